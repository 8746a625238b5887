"""Where handlers' traffic may go while they run: the one policy, and the guard that keeps it.

Offline (the default), nothing a handler does leaves the machine:

- every request a botocore client sends goes to moto, whenever and however its session was
  made (the library's session proxy, `boto3.client`, `boto3.Session()`, a client made at import
  time, a session cached before the sandbox opened). moto hooks only the sessions made after it
  is imported; this routes at the transport instead (`Endpoint._send`), so the order in which
  sessions and the mock were made cannot matter;
- every other connection and name lookup the process makes, in any thread and in the forked
  workers, is checked by an audit hook (PEP 578: `socket.connect`, `socket.getaddrinfo`, ... are
  raised by the socket module's C code itself, so `from socket import getaddrinfo` copies and
  `_socket` are covered too). Loopback is allowed: the custom resource's ResponseURL receiver and
  the hook's payload server are on 127.0.0.1, and so is a local emulator. Anything else fails
  the call with `NetworkRefused`, naming the host and `--allow-network`, before any packet: a
  DNS lookup of an outside name is refused too, as it would leave the machine;
- programs a handler starts are outside the hook: they get proxy variables that point to a
  loopback port where nothing listens, so the tools that honour them (curl, pip, the AWS CLI,
  requests) fail at once instead of connecting. Tools that ignore them are not stopped.

Only the options in `network_policy` ever let traffic leave; `--region` is not one of them.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

ALLOW_OPTION = "--allow-network"
#: The same option of `pytest --cfngen`.
PYTEST_ALLOW_OPTION = "--cfngen-allow-network"


@dataclass(frozen=True)
class NetworkPolicy:
    """What may leave the machine while handlers run."""

    #: Requests of botocore clients are answered by moto.
    aws_to_moto: bool
    #: Requests of botocore clients may leave (real AWS, a remote endpoint).
    aws_may_leave: bool
    #: Any other connection may leave (the handler's own HTTP calls, its DNS lookups).
    others_may_leave: bool
    #: What let botocore's requests leave, for messages ("--profile").
    aws_reason: str = ""
    #: `--endpoint-url` (or the `--moto-server` cfngen started): where every botocore request
    #: goes, whatever endpoint its client was made for.
    endpoint_url: str | None = None


def network_policy(
    *,
    allow_network: bool = False,
    profile: str | None = None,
    role_arn: str | None = None,
    endpoint_url: str | None = None,
) -> NetworkPolicy:
    """The one table of what each option lets out. The region is no argument: it never
    changes where traffic goes.

    | options                     | AWS calls go to        | other connections      |
    | (none), --region            | moto                   | refused (loopback ok)  |
    | --allow-network             | moto                   | out                    |
    | --profile, --role-arn       | AWS                    | refused without --allow-network |
    | --endpoint-url URL          | URL (out if not loopback) | refused without --allow-network |
    """
    real = profile is not None or role_arn is not None
    remote = endpoint_url is not None and not _is_loopback(urlsplit(endpoint_url).hostname)
    reasons = [
        option
        for option, given in (
            ("--profile", profile is not None),
            ("--role-arn", role_arn is not None),
            ("--endpoint-url", remote),
        )
        if given
    ]
    return NetworkPolicy(
        aws_to_moto=not real and endpoint_url is None,
        aws_may_leave=bool(reasons),
        others_may_leave=allow_network,
        aws_reason=", ".join(reasons),
        endpoint_url=endpoint_url,
    )


class NetworkRefused(ConnectionRefusedError):
    """A connection or name lookup that the network policy keeps on this machine."""

    def __init__(self, host: str, port: int | str | None, policy: NetworkPolicy) -> None:
        self.host = host
        self.port = port
        where = host if port is None else f"{host}:{port}"
        if policy.aws_may_leave:
            runs = f"AWS calls may reach AWS ({policy.aws_reason}), nothing else"
        else:
            runs = "handlers run offline and their AWS calls go to moto"
        super().__init__(
            f"cfngen refused a connection to {where}: {runs}; run with {ALLOW_OPTION} "
            f"(pytest: {PYTEST_ALLOW_OPTION}) to let the handlers reach other hosts"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # It may cross a worker's pipe (_isolate.py), where unpickling calls the class with
        # its args: the message alone.
        return (_rebuilt, (str(self), self.host, self.port))


def _rebuilt(message: str, host: str, port: int | str | None) -> NetworkRefused:
    error = NetworkRefused.__new__(NetworkRefused)
    ConnectionRefusedError.__init__(error, message)
    error.host, error.port = host, port
    return error


# --------------------------------------------------------------------------- the guard


class _State:
    #: The policy in force (None: no sandbox open, the guard lets everything through).
    policy: NetworkPolicy | None = None
    hook_added = False


_state = _State()
#: Set while a botocore client sends a request the policy lets leave (real AWS).
_sending = threading.local()


@contextlib.contextmanager
def guarded(policy: NetworkPolicy) -> Iterator[None]:
    """`policy` in force for this process and the workers forked from it, for the block."""
    if not _state.hook_added:
        # An audit hook cannot be removed: outside a block it finds no policy and returns.
        sys.addaudithook(_audit)
        _state.hook_added = True
    saved = _state.policy
    with contextlib.ExitStack() as stack:
        stack.enter_context(_botocore_routed())
        if not policy.others_may_leave:
            stack.enter_context(_children_without_network())
        _state.policy = policy
        try:
            yield
        finally:
            _state.policy = saved


def _audit(event: str, args: tuple[Any, ...]) -> None:
    policy = _state.policy
    if policy is None:
        return
    where = _DESTINATIONS.get(event)
    if where is None:
        return
    found = where(args)
    if found is not None:
        _check(policy, *found)


def _check(policy: NetworkPolicy, host: Any, port: Any) -> None:
    """Raise NetworkRefused unless the policy lets a connection to (host, port) through."""
    if policy.others_may_leave or _is_loopback(host):
        return
    if policy.aws_may_leave and getattr(_sending, "aws", False):
        return
    name = host.decode("ascii", "replace") if isinstance(host, bytes) else str(host)
    raise NetworkRefused(name, port if isinstance(port, (int, str)) else None, policy)


def _address(sock: Any, address: Any) -> tuple[Any, Any] | None:
    """(host, port) of an IP socket's destination; None for the other families (AF_UNIX,
    netlink) and for an address the socket already has (sendmsg without one)."""
    if getattr(sock, "family", None) not in (socket.AF_INET, socket.AF_INET6):
        return None
    if address is None:
        return None
    if isinstance(address, tuple) and address:
        return address[0], address[1] if len(address) > 1 else None
    return address, None


#: The socket module's audit events that send to, or look up, a host: each to (host, port).
_DESTINATIONS: dict[str, Any] = {
    "socket.connect": lambda args: _address(args[0], args[1]),
    "socket.sendto": lambda args: _address(args[0], args[1]),
    "socket.sendmsg": lambda args: _address(args[0], args[1]),
    "socket.getaddrinfo": lambda args: (args[0], args[1]),
    "socket.gethostbyname": lambda args: (args[0], None),
    "socket.gethostbyaddr": lambda args: (args[0], None),
    "socket.getnameinfo": lambda args: (args[0][0], args[0][1]),
}

_LOOPBACK_NAMES = ("localhost",)


def _is_loopback(host: Any) -> bool:
    """Whether `host` (a name or address, as the socket module takes it) stays on this
    machine without asking a name server: a loopback or unspecified address, `localhost`, or
    none (a local, passive lookup)."""
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    text = host.strip("[]").partition("%")[0].rstrip(".").lower()
    if text == "" or text in _LOOPBACK_NAMES or text.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified


# --------------------------------------------------------------------------- botocore


@contextlib.contextmanager
def _botocore_routed() -> Iterator[None]:
    """Every request of every botocore client through `_send` below, for the block."""
    from botocore.endpoint import Endpoint

    original = Endpoint._send

    def send(self: Any, request: Any) -> Any:
        policy = _state.policy
        if policy is None:
            return original(self, request)
        if policy.aws_to_moto:
            answer = _moto_answer(request)
            if answer is not None:
                return answer
        if policy.endpoint_url is not None:
            request.url = _at_endpoint(request.url, policy.endpoint_url)
        parts = urlsplit(request.url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        # botocore would wrap the guard's refusal in "Could not connect to the endpoint URL",
        # which names neither why nor what to do: refuse here, before urllib3 is asked.
        _sending.aws = True
        try:
            _check(policy, parts.hostname, port)
            return original(self, request)
        finally:
            _sending.aws = False

    Endpoint._send = send
    try:
        yield
    finally:
        Endpoint._send = original


def _at_endpoint(url: str, endpoint: str) -> str:
    """`url` sent to `endpoint` instead of the host its client was made for.

    Clients made while the sandbox is open already point there (AWS_ENDPOINT_URL); this
    catches the others (made at import time, or with an endpoint of their own), keeping the
    path and query. A bucket in the host name (S3's virtual-hosted style) moves into the path,
    where a moto server or LocalStack reads it in the path style they both take.
    """
    parts = urlsplit(url)
    target = urlsplit(endpoint)
    if (parts.scheme, parts.netloc) == (target.scheme, target.netloc):
        return url
    path = parts.path
    host = parts.hostname or ""
    bucket, dot, rest = host.partition(".")
    if dot and (rest.startswith("s3.") or rest.startswith("s3-")):
        path = f"/{bucket}{path}"
    base = target.path.rstrip("/")
    return parts._replace(scheme=target.scheme, netloc=target.netloc, path=base + path).geturl()


def _moto_answer(request: Any) -> Any:
    """moto's response to a botocore request, as its `before-send` handler gives it to the
    sessions made after moto was imported; None for a URL moto does not serve."""
    from moto.core.models import botocore_stubber

    return botocore_stubber("before-send", request)


# --------------------------------------------------------------------------- child processes

#: The variables curl, wget, pip, git, the AWS CLI and requests read for a proxy.
_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "ftp_proxy")
_NO_PROXY = "localhost,127.0.0.1,::1"


@contextlib.contextmanager
def _children_without_network() -> Iterator[None]:
    """Programs started in the block get proxies on a loopback port that refuses connections.

    Set with `os.putenv` only: children inherit the C environment, while this process's
    `os.environ` (which requests and urllib read) stays as it was, so the handler's own calls
    meet the guard's message rather than an unreachable proxy.
    """
    closed = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        # Bound and never listening: nothing else can take the port, and a connection to it is
        # refused at once.
        closed.bind(("127.0.0.1", 0))
        proxy = f"http://127.0.0.1:{closed.getsockname()[1]}"
        values = {name: proxy for name in _PROXY_VARIABLES}
        values.update({name.upper(): proxy for name in _PROXY_VARIABLES})
        values.update(no_proxy=_NO_PROXY, NO_PROXY=_NO_PROXY)
        for name, value in values.items():
            os.putenv(name, value)
        try:
            yield
        finally:
            for name in values:
                if name in os.environ:
                    os.putenv(name, os.environ[name])
                else:
                    os.unsetenv(name)
    finally:
        closed.close()
