"""The AWS calls handlers make while contract tests run, each attributed to the action under
test: what the permission contract (_permissions.py) judges.

One recorder per process takes `record(service, operation)` from whoever sees a call:

- in-process (Python handlers): `botocore_recorded` wraps botocore's `Endpoint.make_request`,
  which every client's every call goes through once (retries are below it), whatever session
  made the client — the library's session proxy, a client made at import time — as the network
  guard routes `Endpoint._send` (_network.py);
- out of process (handlers in other languages, a real endpoint; not built yet): an endpoint
  that sees the request reads the service from its SigV4 credential scope and the operation
  from X-Amz-Target, the query's Action or the REST route, and records the same pair.

So a call is keyed by what every observer can see: the service's signing name and the
operation. The action it is attributed to (`attributed`) and the test it ran in
(`in_test`) are set by the runner of the process that calls the handlers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Call:
    """One AWS call a handler made."""

    #: The service as its requests are signed (`monitoring` for CloudWatch).
    service: str
    #: The API operation (`ListObjectsV2`).
    operation: str
    #: The action under test when it was made (the handler it came from: `CREATE`,
    #: `CREATE_PRE_PROVISION`); None outside any action.
    action: str | None
    #: The contract test it ran in; None in the clean-up after a test.
    test: str | None = None
    #: The client's service name where the observer knows it (botocore's `cloudwatch`): a
    #: hint for the IAM prefix when the signing name is none.
    client_service: str | None = None


class Recorder:
    """The calls of this process since it was last drained."""

    def __init__(self) -> None:
        self.action: str | None = None
        self.test: str | None = None
        self._calls: list[Call] = []
        #: The actions that ran since the last drain, whether they called AWS or not.
        self._ran: set[str] = set()

    def record(
        self,
        service: str,
        operation: str,
        action: str | None = None,
        *,
        client_service: str | None = None,
    ) -> None:
        """Note one call; `action` defaults to the action under test in this process."""
        self._calls.append(
            Call(
                service,
                operation,
                self.action if action is None else action,
                self.test,
                client_service,
            )
        )

    def drain(self) -> tuple[list[Call], set[str]]:
        """The calls recorded and the actions that ran since the last drain (a worker sends
        them with each result)."""
        calls, self._calls = self._calls, []
        ran, self._ran = self._ran, set()
        return calls, ran


#: This process's recorder (a forked worker gets its own copy, drained with each result).
RECORDER = Recorder()


@contextlib.contextmanager
def attributed(action: str) -> Iterator[None]:
    """Calls made in the block belong to `action`. Process-wide, not per thread: a handler
    may call from threads of its own, and the runner's time limit runs it in one."""
    saved, RECORDER.action = RECORDER.action, action
    RECORDER._ran.add(action)
    try:
        yield
    finally:
        RECORDER.action = saved


@contextlib.contextmanager
def in_test(name: str) -> Iterator[None]:
    saved, RECORDER.test = RECORDER.test, name
    try:
        yield
    finally:
        RECORDER.test = saved


@contextlib.contextmanager
def botocore_recorded() -> Iterator[None]:
    """Every botocore call made in the block, recorded (only while an action runs: the
    runner's own calls, the library's set-up, are not a handler's)."""
    from botocore.endpoint import Endpoint

    original = Endpoint.make_request

    def make_request(self: Any, operation_model: Any, request_dict: Any) -> Any:
        if RECORDER.action is not None:
            model = operation_model.service_model
            RECORDER.record(
                model.signing_name or model.endpoint_prefix,
                operation_model.name,
                client_service=model.service_name,
            )
        return original(self, operation_model, request_dict)

    Endpoint.make_request = make_request
    try:
        yield
    finally:
        Endpoint.make_request = original
