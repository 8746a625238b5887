"""What came back for one request to a custom resource's function (an `Exchange`), and every
rule a response must keep, each a plain function of it.

Rules (the names appear in every message, so a finding says which one broke). A rule's breach is
a failure where CloudFormation fails the stack or a user loses a resource, and a warning where
CloudFormation accepts the response; docs/custom-resources.md gives each verdict its reason:

- `one-response`: a response per request, PUT before the invocation's deadline (none: failure);
  more than one: a warning when they agree, a failure when they differ;
- `put-headers`: the PUT carries an empty Content-Type (the URL is presigned without one);
- `size`: the body is at most 4,096 bytes of JSON;
- `status`: Status is SUCCESS or FAILED;
- `reason`: a FAILED response says why (a non-empty Reason);
- `echo`: StackId, RequestId and LogicalResourceId are the request's;
- `physical-id`: PhysicalResourceId is a non-empty string of at most 1 KB; a FAILED Update
  keeps the request's id; a Delete answering another id is a warning;
- `data`: Data is a JSON object; a value that is an object or a list, and Data on a Delete, are
  warnings;
- `no-echo`: NoEcho, when present, is a boolean.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cfngen._contract._call import Invocation

MAX_RESPONSE_BYTES = 4096
MAX_PHYSICAL_ID_BYTES = 1024
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
    #: Parsed bodies of the PUTs received after the deadline; PUTs the receiver refused (an
    #: expired URL).
    late_bodies: list[Any] = field(default_factory=list)
    refused: int = 0
    #: Rules broken in a way CloudFormation fails the stack for (or a user loses a resource).
    problems: list[str] = field(default_factory=list)
    #: Rules broken in a way CloudFormation accepts.
    warnings: list[str] = field(default_factory=list)
    #: Why the function could not be imported (Lambda's init phase failed).
    init_error: str | None = None

    @property
    def late(self) -> int:
        return len(self.late_bodies)

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
        """The first response (when there are several that differ, `check` fails it)."""
        body = self.bodies[0] if self.bodies else None
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


def parse(body: bytes) -> Any:
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return _Unreadable(body[:200].decode("utf-8", "replace"))


@dataclass
class _Unreadable:
    text: str


def check(exchange: Exchange) -> tuple[list[str], list[str]]:
    """Every rule the response to this request breaks, each message naming its rule: (what
    CloudFormation would fail the stack for, what it accepts)."""
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
        ], []
    problems: list[str] = []
    warnings: list[str] = []
    if count > 1 or exchange.late:
        _several(exchange, problems, warnings)
    for headers in exchange.headers[:1]:
        content_type = headers.get("content-type")
        if content_type:
            problems.append(
                f"put-headers: the PUT's Content-Type is {content_type!r}; send an empty "
                "Content-Type header (the URL is presigned without one, and S3 refuses a "
                "signature that does not match: the response never arrives)"
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
        return problems, warnings
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
    for rule in (_physical_id(kind, body, event), _data(kind, body.get("Data"))):
        problems += rule[0]
        warnings += rule[1]
    if "NoEcho" in body and not isinstance(body["NoEcho"], bool):
        problems.append(f"no-echo: NoEcho is {body['NoEcho']!r}; it must be true or false")
    return problems, warnings


def _several(exchange: Exchange, problems: list[str], warnings: list[str]) -> None:
    """More than one response to one request: the same object written again is harmless; two
    that differ leave the outcome to whichever CloudFormation reads."""
    everything = exchange.bodies + exchange.late_bodies
    answers = [
        (b.get("Status"), b.get("PhysicalResourceId")) if isinstance(b, dict) else ("?", None)
        for b in everything
    ]
    shown = [f"{s} {i!r}" if i is not None else str(s) for s, i in answers]
    late = f" ({exchange.late} after the deadline)" if exchange.late else ""
    if len(set(answers)) > 1:
        problems.append(
            f"one-response: {len(everything)} different responses to one request{late} "
            f"({', '.join(shown)}); which one CloudFormation reads is a race: answer once"
        )
    else:
        warnings.append(
            f"one-response: {len(everything)} responses to one request{late}, each "
            f"{shown[0]}; CloudFormation reads one of them: answer once"
        )


def _physical_id(
    kind: str, body: Mapping[str, Any], event: Mapping[str, Any]
) -> tuple[list[str], list[str]]:
    """(failures, warnings) of the response's PhysicalResourceId."""
    physical_id = body.get("PhysicalResourceId")
    problems: list[str] = []
    warnings: list[str] = []
    if not isinstance(physical_id, str) or not physical_id:
        problems.append(
            f"physical-id: PhysicalResourceId is {physical_id!r}; it must be a non-empty string"
        )
        return problems, warnings
    size = len(physical_id.encode("utf-8"))
    if size > MAX_PHYSICAL_ID_BYTES:
        problems.append(
            f"physical-id: PhysicalResourceId is {size} bytes; the limit is {MAX_PHYSICAL_ID_BYTES}"
        )
        return problems, warnings
    asked = event.get("PhysicalResourceId")
    if kind == "Create" or physical_id == asked:
        return problems, warnings
    if kind == "Update" and body.get("Status") == "FAILED":
        problems.append(
            f"physical-id: a FAILED Update answered PhysicalResourceId {physical_id!r}; it must "
            f"echo the request's {asked!r} (CloudFormation records the id a failed update "
            "answers, and later requests, the rollback's Delete included, name that one)"
        )
    elif kind == "Delete":
        warnings.append(
            f"physical-id: the Delete answered PhysicalResourceId {physical_id!r}, not the "
            f"request's {asked!r}; CloudFormation accepts it (the resource is gone either way), "
            "but echo the request's id"
        )
    return problems, warnings


def _data(kind: str, data: Any) -> tuple[list[str], list[str]]:
    """(failures, warnings) of the response's Data."""
    if data is None:
        return [], []
    if not isinstance(data, dict):
        return [f"data: Data is a {type(data).__name__}; it must be a JSON object"], []
    warnings: list[str] = []
    nested = sorted(k for k, v in data.items() if isinstance(v, (dict, list)))
    if nested:
        warnings.append(
            f"data: {', '.join(nested)} in Data holds an object or a list; Fn::GetAtt returns it "
            "whole, where a template mostly expects a string"
        )
    if kind == "Delete" and data:
        warnings.append(
            "data: the Delete response carries Data; CloudFormation accepts it and reads none "
            "of it (nothing can Fn::GetAtt a deleted resource)"
        )
    return [], warnings
