"""AWS calls seen where they arrive: the moto server cfngen starts, for handlers that run out
of process (their SDKs are not botocore, so `botocore_recorded` cannot see them).

A WSGI layer in front of moto's application reads each request's service and operation as
_calls.py says an endpoint can: the service from the SigV4 credential scope of its
Authorization header (`Credential=KEY/DATE/REGION/ssm/aws4_request`, the signing name botocore
records too), the operation from `X-Amz-Target` (JSON protocols: `AmazonSSM.PutParameter`) or
the `Action` parameter (query protocols: IAM, STS, EC2, SQS, SNS...). REST protocols (S3,
Lambda, API Gateway) name their operation only by route, which this layer does not match yet:
their calls are not recorded (docs/languages.md says so).

Each call goes to the listeners of this process (`listening`): the runtime of a run, which
gives it to the invocation it belongs to.
"""

from __future__ import annotations

import contextlib
import io
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qs

_SCOPE = re.compile(r"Credential=[^/,\s]+/\d{8}/[^/,\s]+/([^/,\s]+)/aws4_request")
_listeners: list[Callable[[str, str], None]] = []
_lock = threading.Lock()
#: Query bodies are small; a larger body is no query call worth reading.
_MAX_QUERY_BODY = 1 << 20


@contextlib.contextmanager
def listening(listener: Callable[[str, str], None]) -> Iterator[None]:
    """`listener(service, operation)` is told every call the observed servers receive."""
    with _lock:
        _listeners.append(listener)
    try:
        yield
    finally:
        with _lock:
            _listeners.remove(listener)


def observed(app: Callable[..., Any]) -> Callable[..., Any]:
    """`app` (a WSGI application) with every AWS call it serves told to the listeners."""

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if _listeners:
            call = _call(environ)
            if call is not None:
                with _lock:
                    listeners = list(_listeners)
                for listener in listeners:
                    listener(*call)
        return app(environ, start_response)

    return application


def _call(environ: dict[str, Any]) -> tuple[str, str] | None:
    scope = _SCOPE.search(environ.get("HTTP_AUTHORIZATION", ""))
    if scope is None:
        return None
    target = environ.get("HTTP_X_AMZ_TARGET", "")
    if target:
        return scope.group(1), target.rpartition(".")[2]
    action = parse_qs(environ.get("QUERY_STRING", "")).get("Action")
    if not action and "x-www-form-urlencoded" in environ.get("CONTENT_TYPE", ""):
        action = parse_qs(_body(environ).decode("utf-8", "replace")).get("Action")
    return (scope.group(1), action[0]) if action else None


def _body(environ: dict[str, Any]) -> bytes:
    """The request's body, read and put back for the application."""
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return b""
    if length <= 0 or length > _MAX_QUERY_BODY:
        return b""
    body: bytes = environ["wsgi.input"].read(length)
    environ["wsgi.input"] = io.BytesIO(body)
    return body
