"""The resource handler contract's rules, worded once, and how a broken one is explained:
every failure message quotes the rule that broke, what was sent and what came back."""

from __future__ import annotations

import json
from typing import Any

from cfngen._contract._loop import Outcome
from cfngen._contract._results import report_crash
from cfngen._kinds.resource.contract import _rules

MAX_LIST_PAGES = 200

# The rules, worded once: every failure message quotes the one that broke.
R_SUCCESS = {
    "CREATE": "create must create the resource and return SUCCESS",
    "READ": "read must return SUCCESS with the model of an existing resource",
    "UPDATE": "update must change an existing resource and return SUCCESS",
    "DELETE": "delete must delete an existing resource and return SUCCESS",
    "LIST": "list must return SUCCESS with the primaryIdentifier of every resource",
}
R_IDENTIFIER = "every model a handler returns must include the primaryIdentifier"
R_WRITE_ONLY = "a handler must never return writeOnly properties"
R_CONFORM = "every model a handler returns must match the resource schema"
R_SAME = (
    "a SUCCESS model must hold every property of the request, unchanged "
    "(readOnly and writeOnly properties aside)"
)
R_ALREADY_EXISTS = "create must fail with AlreadyExists when a resource with that identifier exists"
R_READ_NOT_FOUND = "read must fail with NotFound when the resource does not exist"
R_UPDATE_NOT_FOUND = (
    "update must fail with NotFound when the resource does not exist, and never create it"
)
R_DELETE_NOT_FOUND = "delete must fail with NotFound when the resource does not exist"
R_DELETE_NO_MODEL = "a delete that succeeds must not return a model"
R_LIST_HAS = "list must return the primaryIdentifier of every existing resource"
R_LIST_OMITS = "list must not return a deleted resource"
R_NOT_UPDATABLE = "update must fail with NotUpdatable when a createOnly property changes"
R_INVALID = (
    "a handler must reject a model that does not match the schema: FAILED with an error code "
    "such as InvalidRequest, not an exception"
)
R_SYNC = "read and list must answer at once: never IN_PROGRESS"
R_KEEP_ID = "update must keep the primaryIdentifier"
R_RECREATE = "after a delete, create with the same identifier must succeed again"
R_TAGS = (
    "a taggable resource must apply the tags of its create input: the models create and read "
    "return hold them"
)
R_TAG_UPDATE = (
    "tags are updatable: update must apply the update input's tags (added, changed and removed "
    "ones) and return SUCCESS; the models update and read return hold them"
)
R_PAGES = "list must end its pages: a nextToken must never repeat"
R_TIME = "create, update and delete must return within 60 s, read and list within 30 s"
R_ENDLESS = "IN_PROGRESS must end: a handler must reach SUCCESS or FAILED"
R_STABILIZE = (
    "create, update and delete must finish within the handler's timeoutInMinutes: once it has "
    "passed, FAILED with NotStabilized, not IN_PROGRESS"
)
R_EXIT = (
    "a handler must return a progress event, never end its process "
    "(os._exit, sys.exit in a thread, a crash in native code)"
)
R_SHAPE = (
    "a progress event has status SUCCESS, FAILED or IN_PROGRESS and the fields that go with it"
)


# --------------------------------------------------------------------------- messages


def as_json(value: Any, limit: int = 1200) -> str:
    if value is _rules.MISSING:
        return "(missing)"
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 15] + f"... ({len(text)} chars)"


def shown_response(response: dict[str, Any]) -> dict[str, Any]:
    keys = ("status", "errorCode", "message", "resourceModel", "resourceModels", "nextToken")
    return {key: response[key] for key in keys if key in response and response[key] != ""}


def _table(rows: list[tuple[str, Any, Any]], left: str = "input", right: str = "output") -> str:
    cells = [("property", left, right)] + [
        (p or "/", as_json(a, 60), as_json(b, 60)) for p, a, b in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(2)]
    return "\n".join(
        f"    {row[0].ljust(widths[0])}  {row[1].ljust(widths[1])}  {row[2]}" for row in cells
    )


def explain(
    headline: str,
    rule: str,
    *,
    sent: Any = None,
    outcome: Outcome | None = None,
    table: list[tuple[str, Any, Any]] | None = None,
    notes: list[str] | None = None,
) -> str:
    lines = [headline, f"  rule: {rule}"]
    if outcome is not None and outcome.crash is not None:
        crash = outcome.crash
        report_crash(crash)
        lines.append(f"  the {outcome.action} handler {crash.account}")
        lines.extend(f"  {frame}" for frame in crash.frames)
    if table:
        lines.append(_table(table))
    lines.extend(f"  {note}" for note in notes or [])
    if sent is not None:
        lines.append(f"  input:  {as_json(sent)}")
    if outcome is not None and outcome.last.response is not None:
        lines.append(f"  output: {as_json(shown_response(outcome.response))}")
    if outcome is not None:
        output = [line for invocation in outcome.invocations for line in invocation.output]
        if output:
            lines.append("  handler output:")
            if len(output) > 20:
                lines.append(f"    | ... ({len(output) - 20} earlier lines)")
            lines.extend(f"    | {line}" for line in output[-20:])
    return "\n".join(lines)


def status_text(outcome: Outcome) -> str:
    if outcome.status == "FAILED":
        message = outcome.response.get("message")
        code = outcome.error_code or "no errorCode"
        return f"FAILED ({code}: {message})" if message else f"FAILED ({code})"
    return str(outcome.status)
