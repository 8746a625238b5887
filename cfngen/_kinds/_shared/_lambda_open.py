"""A Lambda function of a template, imported offline (fake credentials, moto answering
every AWS call, the runner's network policy) as Lambda's init phase does, and what a Lambda
container has loaded before its first request loaded before any deadline runs: shared by
the kinds whose function is declared in the user's template (custom resources, Lambda hooks)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

from cfngen._contract._environ import patched_environ
from cfngen._contract._network import guarded, network_policy

_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_EC2_METADATA_DISABLED": "true",
}


@contextlib.contextmanager
def offline(region: str, *, allow_network: bool) -> Iterator[None]:
    """Fake credentials, the region, moto answering every AWS call and the runner's network
    policy (the first import of the handler, before the runner opens)."""
    from cfngen._contract._moto_imports import install

    install()  # before any backend loads: EC2's models only when EC2 is called
    from moto import mock_aws

    values = {**_ENV, "AWS_DEFAULT_REGION": region, "AWS_REGION": region}
    policy = network_policy(allow_network=allow_network)
    with guarded(policy), patched_environ(values), mock_aws():
        yield


_WARM: set[str] = set()
_SERVICE = re.compile(r"""\b(?:client|resource)\(\s*["']([a-z0-9-]+)["']""")


def warm_up(code_dir: Path) -> None:
    """Load, once per process and before any deadline runs, what a Lambda container has loaded
    before its first request and this process lacks: botocore's data (boto3's first client) and
    moto's backend of each service the function's code names (importing moto's SSM backend
    alone takes seconds, which would otherwise count against the function's Timeout)."""
    services = {"sts"}
    for path in sorted(code_dir.glob("*.py"))[:50]:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            services.update(_SERVICE.findall(path.read_text(encoding="utf-8")))
    for service in sorted(services - _WARM):
        _WARM.add(service)
        with contextlib.suppress(Exception):
            if service == "sts":
                import boto3

                boto3.client("sts").get_caller_identity()
            else:
                from moto.backends import get_backend

                get_backend(service)  # type: ignore[call-overload]
