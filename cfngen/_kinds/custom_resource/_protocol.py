"""The custom resource request/response protocol: requests as CloudFormation sends them to the
function, each answered with an `Exchange` (what came back, checked by the rules of _rules.py).
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from cfngen._kinds._shared._intrinsics import stack_id
from cfngen._kinds._shared._lambda import Function, as_lambda_runs
from cfngen._kinds.custom_resource import KIND
from cfngen._kinds.custom_resource._receiver import Receiver, Slot
from cfngen._kinds.custom_resource._rules import STATUS_KEY, STATUSES, Exchange, check, parse

if TYPE_CHECKING:
    from cfngen._contract._call import Invocation
    from cfngen._contract._runner import Runner
    from cfngen._project import Project

#: After the handler returns, a response still in flight is waited for this long.
GRACE_SECONDS = 0.2
REQUEST_TYPES = KIND.invoke_actions

__all__ = ["REQUEST_TYPES", "STATUSES", "STATUS_KEY", "Cloud", "Exchange", "Request"]


class Request:
    """One request on its way to the function: the runner's `Exchange` (one call, never
    re-invoked; the answer is the body PUT to the request's ResponseURL)."""

    waits = False
    timeout_minutes: float | None = None

    def __init__(self, cloud: Cloud, event: dict[str, Any], slot: Slot) -> None:
        self.cloud = cloud
        self.slot = slot
        self.request = event
        self.label: str = event["RequestType"]
        self.limit: float = cloud.seconds
        #: time.monotonic() when the function returned (None: it did not).
        self.ended: float | None = None

    def event(self, number: int, callback_context: Mapping[str, Any] | None) -> dict[str, Any]:
        self.cloud.cold_start()
        return self.request

    def answer(self, invocation: Invocation, returned: Any) -> dict[str, Any] | None:
        self.ended = time.monotonic()
        if not self.slot.puts:
            time.sleep(GRACE_SECONDS)  # a response still on its way
        first = next((p for p in self.slot.puts if p.status == 200), None)
        body = None if first is None else parse(first.body)
        return body if isinstance(body, dict) else None

    def advance(self, response: Mapping[str, Any]) -> None:
        pass


class Cloud:
    """A local CloudFormation for one custom resource: sends requests to the function through
    the runner (a call under its limit, its output captured, in the runner's worker process),
    with a ResponseURL on the local receiver, and checks every response."""

    def __init__(
        self,
        runner: Runner[Project] | None,
        function: Function,
        *,
        logical_id: str,
        resource_type: str,
        region: str,
        seconds: float,
        service_timeout: int | None,
    ) -> None:
        #: None when the function cannot be imported (`function.init_error`): nothing runs.
        self.runner = runner
        self.function = function
        self.logical_id = logical_id
        self.resource_type = resource_type
        self.region = region
        self.seconds = seconds
        self.service_timeout = service_timeout
        self.stack_id = stack_id(region)
        #: The receiver of the unit of work running (`receiving`).
        self.receiver: Receiver | None = None

    @property
    def hung(self) -> Mapping[str, str]:
        """Request types whose invocation ran into its deadline, and why: not sent again (a
        handler that hangs would otherwise cost its whole Timeout in every test)."""
        return {} if self.runner is None else self.runner.entrypoint.hung

    @contextlib.contextmanager
    def receiving(self) -> Iterator[Receiver]:
        """A receiver for the unit of work running: opened inside the unit, in the worker
        process whose handlers PUT to it (a server thread of cfngen's own process would not
        see them)."""
        with Receiver() as receiver:
            self.receiver = receiver
            try:
                yield receiver
            finally:
                self.receiver = None

    def cold_start(self) -> None:
        """The function's modules imported afresh (Lambda containers share no memory), called
        as Lambda calls it."""
        assert self.runner is not None
        entrypoint = self.runner.entrypoint
        self.function.forget()
        entrypoint.reload()
        entrypoint.function = as_lambda_runs(self.function, entrypoint.function, self.region)

    def request(
        self,
        request_type: str,
        properties: Mapping[str, Any],
        *,
        old_properties: Mapping[str, Any] | None = None,
        physical_id: str | None = None,
        request_id: str | None = None,
        url: str | None = None,
    ) -> dict[str, Any]:
        event: dict[str, Any] = {
            "RequestType": request_type,
            "ServiceToken": properties.get("ServiceToken", ""),
            "ResponseURL": url or "",
            "StackId": self.stack_id,
            "RequestId": request_id or str(uuid.uuid4()),
            "LogicalResourceId": self.logical_id,
            "ResourceType": self.resource_type,
            "ResourceProperties": dict(properties),
        }
        if self.service_timeout is not None:
            event["ServiceTimeout"] = str(self.service_timeout)
        if physical_id is not None:
            event["PhysicalResourceId"] = physical_id
        if old_properties is not None:
            event["OldResourceProperties"] = dict(old_properties)
        return event

    def send(self, event: dict[str, Any], *, expired: bool = False) -> Exchange:
        """Deliver `event` once (with a fresh URL) and check what came back."""
        if self.runner is None:
            exchange = Exchange(
                event, None, [], [], [], init_error=self.function.init_error or "not imported"
            )
            if not expired:
                exchange.problems, exchange.warnings = check(exchange)
            return exchange
        receiver = self.receiver
        if receiver is None:
            raise RuntimeError("no receiver: send inside `with cloud.receiving():`")
        slot = receiver.slot(expired=expired)
        event = {**event, "ResponseURL": receiver.url(slot)}
        request = Request(self, event, slot)
        with receiver.trusted():
            outcome = self.runner.carry(request, handler=request.label, max_delay=0.0)
        invocation = outcome.last
        if request.ended is None:  # ran into its deadline: what came before it counts
            cutoff = time.monotonic()
        else:
            deadline = request.ended - invocation.seconds + request.limit
            cutoff = min(request.ended + GRACE_SECONDS, deadline)
        in_time = [p for p in slot.puts if p.at <= cutoff and p.status == 200]
        exchange = Exchange(
            event,
            invocation,
            bodies=[parse(p.body) for p in in_time],
            raw=[p.body for p in in_time],
            headers=[p.headers for p in in_time],
            late_bodies=[parse(p.body) for p in slot.puts if p.at > cutoff],
            refused=sum(1 for p in slot.puts if p.status != 200),
        )
        if not expired:
            exchange.problems, exchange.warnings = check(exchange)
        return exchange
