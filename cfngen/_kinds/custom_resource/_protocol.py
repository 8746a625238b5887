"""The custom resource request/response protocol: requests as CloudFormation sends them, and
every rule a response must keep, each a plain function of what the receiver got.

Rules (the names appear in every message, so a failure says which one broke):

- `one-response`: exactly one response per request, PUT before the invocation's deadline;
- `put-headers`: the PUT carries an empty Content-Type (the URL is presigned without one);
- `size`: the body is at most 4,096 bytes of JSON;
- `status`: Status is SUCCESS or FAILED;
- `reason`: a FAILED response says why (a non-empty Reason);
- `echo`: StackId, RequestId and LogicalResourceId are the request's;
- `physical-id`: PhysicalResourceId is a non-empty string of at most 1 KB; Update and Delete
  keep the request's id, except a successful Update that replaces the resource;
- `data`: Data is a flat map of names to strings (what Fn::GetAtt reads), with nothing on Delete;
- `no-echo`: NoEcho, when present, is a boolean.
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cfngen._contract._call import Invocation
from cfngen._kinds.custom_resource._intrinsics import stack_id
from cfngen._kinds.custom_resource._lambda import Function, as_lambda_runs
from cfngen._kinds.custom_resource._receiver import Receiver, Slot

if TYPE_CHECKING:
    from cfngen._contract._runner import Runner
    from cfngen._project import Project

MAX_RESPONSE_BYTES = 4096
MAX_PHYSICAL_ID_BYTES = 1024
#: After the handler returns, a response still in flight is waited for this long.
GRACE_SECONDS = 0.2
REQUEST_TYPES = ("Create", "Update", "Delete")
#: The response field holding the status.
STATUS_KEY = "Status"
STATUSES = frozenset({"SUCCESS", "FAILED"})


@dataclass
class Exchange:
    """One request and everything that came back for it."""

    event: dict[str, Any]
    #: The call as the runner saw it (its `response`: the first body received); None when
    #: the function could not be called at all (`init_error`).
    invocation: Invocation | None
    #: Parsed bodies of the PUTs received before the deadline, in order.
    bodies: list[Any]
    raw: list[bytes]
    headers: list[dict[str, str]]
    #: PUTs the receiver refused (an expired URL) or received after the deadline.
    late: int = 0
    refused: int = 0
    problems: list[str] = field(default_factory=list)
    #: Why the function could not be imported (Lambda's init phase failed).
    init_error: str | None = None

    @property
    def returned(self) -> bool:
        """Whether the invocation ended before its deadline."""
        return self.invocation is None or not (
            self.invocation.timed_out or self.invocation.not_called
        )

    @property
    def error(self) -> str | None:
        """What the handler raised (or why it could not start)."""
        if self.init_error is not None:
            return self.init_error
        crash = None if self.invocation is None else self.invocation.crash
        return None if crash is None else crash.headline

    @property
    def output(self) -> str:
        lines = [] if self.invocation is None else self.invocation.output
        return "".join(line + "\n" for line in lines)

    @property
    def response(self) -> dict[str, Any] | None:
        body = self.bodies[0] if len(self.bodies) == 1 else None
        return body if isinstance(body, dict) else None

    @property
    def status(self) -> str | None:
        return None if self.response is None else self.response.get(STATUS_KEY)

    @property
    def physical_id(self) -> Any:
        return None if self.response is None else self.response.get("PhysicalResourceId")

    @property
    def reason(self) -> str:
        reason = None if self.response is None else self.response.get("Reason")
        return str(reason or "")

    def describe(self) -> str:
        """One line: what was asked, what came back."""
        kind = self.event["RequestType"]
        if not self.bodies:
            return f"{kind}: no response"
        shown = []
        for body in self.bodies:
            if not isinstance(body, dict):
                shown.append(repr(body)[:200])
                continue
            text = f"{body.get('Status')} PhysicalResourceId={body.get('PhysicalResourceId')!r}"
            if body.get("Reason"):
                text += f" Reason={str(body['Reason'])[:300]!r}"
            shown.append(text)
        return f"{kind}: " + "; then ".join(shown)

    def log_tail(self, lines: int = 12) -> str:
        tail = self.output.strip().splitlines()[-lines:]
        return "\n".join("  | " + line for line in tail)


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
        body = None if first is None else _parse(first.body)
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
                exchange.problems = check(exchange)
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
            bodies=[_parse(p.body) for p in in_time],
            raw=[p.body for p in in_time],
            headers=[p.headers for p in in_time],
            late=sum(1 for p in slot.puts if p.at > cutoff),
            refused=sum(1 for p in slot.puts if p.status != 200),
        )
        if not expired:
            exchange.problems = check(exchange)
        return exchange


def _parse(body: bytes) -> Any:
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return _Unreadable(body[:200].decode("utf-8", "replace"))


@dataclass
class _Unreadable:
    text: str


def check(exchange: Exchange) -> list[str]:
    """Every rule the response to this request breaks, each message naming its rule."""
    event = exchange.event
    kind = event["RequestType"]
    count = len(exchange.bodies)
    if count == 0:
        if not exchange.returned:
            why = "the invocation was still running at its deadline"
        elif exchange.error:
            why = f"the handler raised {exchange.error} and did not answer"
        else:
            why = "the handler returned without answering"
        late = f" ({exchange.late} PUT after the deadline)" if exchange.late else ""
        return [
            f"one-response: no response before the deadline: {why}{late}; CloudFormation would "
            f"wait up to ServiceTimeout (an hour by default) and then fail the {kind}"
        ]
    problems: list[str] = []
    if count > 1 or exchange.late:
        statuses = [b.get("Status") if isinstance(b, dict) else "?" for b in exchange.bodies]
        problems.append(
            f"one-response: {count + exchange.late} responses to one request "
            f"({', '.join(map(str, statuses))}{', and a late one' if exchange.late else ''}); "
            "CloudFormation takes the first and ignores the rest"
        )
    for headers in exchange.headers[:1]:
        content_type = headers.get("content-type")
        if content_type:
            problems.append(
                f"put-headers: the PUT's Content-Type is {content_type!r}; send an empty "
                "Content-Type header (the URL is presigned without one)"
            )
    raw = exchange.raw[0]
    body = exchange.bodies[0]
    if len(raw) > MAX_RESPONSE_BYTES:
        problems.append(
            f"size: the response is {len(raw)} bytes; CloudFormation refuses more than "
            f"{MAX_RESPONSE_BYTES}"
        )
    if not isinstance(body, dict):
        text = body.text if isinstance(body, _Unreadable) else json.dumps(body)[:200]
        problems.append(f"status: the response is not a JSON object: {text!r}")
        return problems
    status = body.get("Status")
    if status not in ("SUCCESS", "FAILED"):
        problems.append(f"status: Status is {status!r}; it must be SUCCESS or FAILED")
    if status == "FAILED" and not (isinstance(body.get("Reason"), str) and body["Reason"].strip()):
        problems.append("reason: a FAILED response must say why in Reason; it has none")
    for key in ("StackId", "RequestId", "LogicalResourceId"):
        if body.get(key) != event[key]:
            problems.append(
                f"echo: {key} is {body.get(key)!r}; the request's is {event[key]!r} "
                "(CloudFormation matches the response to its request by them)"
            )
    physical_id = body.get("PhysicalResourceId")
    if not isinstance(physical_id, str) or not physical_id:
        problems.append(
            f"physical-id: PhysicalResourceId is {physical_id!r}; it must be a non-empty string"
        )
    elif len(physical_id.encode("utf-8")) > MAX_PHYSICAL_ID_BYTES:
        problems.append(
            f"physical-id: PhysicalResourceId is {len(physical_id.encode('utf-8'))} bytes; the "
            f"limit is {MAX_PHYSICAL_ID_BYTES}"
        )
    elif (
        kind != "Create"
        and physical_id != event.get("PhysicalResourceId")
        and (kind == "Delete" or status == "FAILED")
    ):
        problems.append(
            f"physical-id: a {status} {kind} answered PhysicalResourceId {physical_id!r}; "
            f"it must echo the request's {event.get('PhysicalResourceId')!r}"
        )
    data = body.get("Data")
    if data is not None:
        if not isinstance(data, dict):
            problems.append(f"data: Data is a {type(data).__name__}; it must be a JSON object")
        else:
            nested = sorted(k for k, v in data.items() if isinstance(v, (dict, list)))
            if nested:
                problems.append(
                    f"data: Data must be a flat map of strings; {', '.join(nested)} "
                    "holds an object or a list (Fn::GetAtt cannot read it)"
                )
            if kind == "Delete" and data:
                problems.append("data: a Delete response carries no Data; this one has some")
    if "NoEcho" in body and not isinstance(body["NoEcho"], bool):
        problems.append(f"no-echo: NoEcho is {body['NoEcho']!r}; it must be true or false")
    return problems
