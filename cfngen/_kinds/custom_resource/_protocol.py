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

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cfngen._kinds.custom_resource._lambda import Function, Invocation, invoke, stack_id
from cfngen._kinds.custom_resource._receiver import Receiver

MAX_RESPONSE_BYTES = 4096
MAX_PHYSICAL_ID_BYTES = 1024
#: After the handler returns, a response still in flight is waited for this long.
GRACE_SECONDS = 0.2
REQUEST_TYPES = ("Create", "Update", "Delete")


@dataclass
class Exchange:
    """One request and everything that came back for it."""

    event: dict[str, Any]
    invocation: Invocation
    #: Parsed bodies of the PUTs received before the deadline, in order.
    bodies: list[Any]
    raw: list[bytes]
    headers: list[dict[str, str]]
    #: PUTs the receiver refused (an expired URL) or received after the deadline.
    late: int = 0
    refused: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def response(self) -> dict[str, Any] | None:
        body = self.bodies[0] if len(self.bodies) == 1 else None
        return body if isinstance(body, dict) else None

    @property
    def status(self) -> str | None:
        return None if self.response is None else self.response.get("Status")

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
        tail = self.invocation.output.strip().splitlines()[-lines:]
        return "\n".join("  | " + line for line in tail)


class Cloud:
    """A local CloudFormation for one custom resource: sends requests to the handler in this
    process, with a ResponseURL on the local receiver, and checks every response."""

    def __init__(
        self,
        receiver: Receiver,
        function: Function,
        *,
        logical_id: str,
        resource_type: str,
        region: str,
        seconds: float,
        service_timeout: int | None,
    ) -> None:
        self.receiver = receiver
        self.function = function
        self.logical_id = logical_id
        self.resource_type = resource_type
        self.region = region
        self.seconds = seconds
        self.service_timeout = service_timeout
        self.stack_id = stack_id(region)
        #: Request types whose invocation ran into its deadline: not sent again (a handler
        #: that hangs would otherwise cost its whole Timeout in every test).
        self.hung: dict[str, str] = {}

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
        import time

        slot = self.receiver.slot(expired=expired)
        event = {**event, "ResponseURL": self.receiver.url(slot)}
        with self.receiver.trusted():
            invocation = invoke(self.function, event, seconds=self.seconds, region=self.region)
            if invocation.returned and not slot.puts:
                time.sleep(GRACE_SECONDS)  # a response still on its way
        cutoff = min(invocation.ended_at + GRACE_SECONDS, invocation.deadline_at)
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
        if not invocation.returned:
            self.hung.setdefault(event["RequestType"], exchange.describe())
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
    invocation = exchange.invocation
    kind = event["RequestType"]
    count = len(exchange.bodies)
    if count == 0:
        if not invocation.returned:
            why = "the invocation was still running at its deadline"
        elif invocation.error:
            why = f"the handler raised {invocation.error} and did not answer"
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
