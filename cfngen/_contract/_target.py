"""Where the handlers' AWS calls go: the target of a run, and the moto server cfngen starts.

| target      | option             | AWS calls go to                       | time      |
| moto        | (none)             | moto in this process (`mock_aws`)     | simulated |
| moto-server | --moto-server      | a moto server on 127.0.0.1 (a thread) | simulated |
| endpoint    | --endpoint-url URL | URL (LocalStack, a moto server, ...)  | real      |
| aws         | --profile          | AWS                                   | real      |

With moto, a test starts from an empty account (the moto server's `/moto-api/reset`).
Against an endpoint or AWS nothing is reset between tests: each test deletes what it made
through the delete handler.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from cfngen._errors import CfngenError


@dataclass(frozen=True)
class Target:
    """Where a run's AWS calls went, as `cfngen test` says it (stderr, `--format json`)."""

    #: `moto`, `moto-server`, `endpoint` or `aws`.
    kind: str
    #: The endpoint every client was pointed at; None for in-process moto and AWS.
    endpoint_url: str | None
    region: str
    account_id: str
    #: Whether callbackDelaySeconds is simulated (never slept) or slept for real.
    simulated_time: bool

    def describe(self) -> str:
        where = {
            "moto": "moto in this process (offline)",
            "moto-server": f"a moto server cfngen started at {self.endpoint_url}",
            "endpoint": f"{self.endpoint_url}",
            "aws": "AWS",
        }[self.kind]
        time = "simulated time" if self.simulated_time else "real time"
        return f"AWS calls go to {where}, region {self.region}, account {self.account_id}, {time}"

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "endpoint_url": self.endpoint_url,
            "region": self.region,
            "account_id": self.account_id,
            "time": "simulated" if self.simulated_time else "real",
        }


@dataclass(frozen=True)
class Waited:
    """A worker's note: it is about to sleep `seconds` for real (callbackDelaySeconds `asked`,
    capped by --max-delay), for a progress line on a terminal."""

    seconds: float
    asked: float


@contextlib.contextmanager
def moto_server() -> Iterator[str]:
    """A moto server on 127.0.0.1 (a free port), in a thread of this process, for the block;
    its URL. Simply discarded afterwards: whatever it holds goes with it.

    A thread, not a process of its own: the handlers' workers are forked from this process
    and reach it over loopback, and nothing is left running if cfngen is killed.
    """
    from cfngen._contract._moto_imports import install

    install()  # before the server imports a backend: EC2's models only when EC2 is called
    try:
        from moto.server import ThreadedMotoServer
    except ModuleNotFoundError as exc:
        raise CfngenError(
            f"--moto-server needs moto's server dependencies: {exc.name} is not installed",
            'install them: python -m pip install "cfngen[test]" (flask and flask-cors)',
        ) from None
    import logging

    # werkzeug logs every request at INFO on stderr, amid the test lines.
    log = logging.getLogger("werkzeug")
    level = log.level
    log.setLevel(logging.WARNING)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    from cfngen._contract._observed import observed

    # The calls of handlers that run out of process are seen here (_observed.py). werkzeug's
    # server reads its `app` on every request; moto offers no other way in.
    inner = server._server
    if inner is not None:
        inner.app = observed(inner.app)
    try:
        host, port = server.get_host_and_port()
        yield f"http://{host}:{port}"
    finally:
        server.stop()
        log.setLevel(level)


def reset_moto_server(url: str) -> None:
    """Forget everything the moto server at `url` holds (moto's own reset API)."""
    import urllib.request

    request = urllib.request.Request(f"{url}/moto-api/reset", method="POST", data=b"")
    # No proxy: the handlers' environment may name one (_network.py), and this is loopback.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=30) as answer:
        answer.read()


def caller_account(endpoint_url: str | None, region: str, fallback: str) -> str:
    """The account id the target answers STS GetCallerIdentity with (moto 123456789012,
    LocalStack 000000000000, a real account its own); `fallback` when it does not answer."""
    import boto3
    import botocore.exceptions

    client = boto3.session.Session().client("sts", region_name=region, endpoint_url=endpoint_url)
    try:
        return str(client.get_caller_identity()["Account"])
    except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError, KeyError):
        return fallback


#: The account of an ARN (`arn:partition:service:region:ACCOUNT:...`).
_ARN_ACCOUNT = re.compile(r"(arn:[\w-]+:[\w-]*:[\w-]*:)(\d{12})(?=:)")


def retarget(value: Any, account_id: str, fake: str) -> Any:
    """`value` (parsed JSON) with the ARNs of the `fake` account (moto's, which generated
    inputs and stand-ins use) moved to `account_id`: an ARN of another account is left as it
    is."""
    if isinstance(value, str):
        return _ARN_ACCOUNT.sub(
            lambda m: m.group(1) + (account_id if m.group(2) == fake else m.group(2)), value
        )
    if isinstance(value, list):
        return [retarget(item, account_id, fake) for item in value]
    if isinstance(value, dict):
        return {key: retarget(item, account_id, fake) for key, item in value.items()}
    return value


def is_loopback_url(url: str) -> bool:
    from cfngen._contract._network import _is_loopback

    return _is_loopback(urlsplit(url).hostname)
