"""The IAM actions a schema lists (handlers' and tagging's `permissions`): what resource-role.yaml
puts in its policy, so each must be an action IAM accepts.

IAM's grammar for an action is `*` or `service:action`: the service prefix is letters, digits
and `-` (`execute-api`), the action letters and digits with the wildcards `*` and `?`. A few
registered AWS schemas write actions with `.` (`s3:REST.PUT.OBJECT`), which IAM takes as a name
that matches nothing, so `.`, `_` and `-` pass too. Anything else (a space, a newline, NUL, a
quote, a second `:`, a letter outside ASCII) makes IAM reject the whole role: an error.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from cfngen._diagnostics import ACCEPTED, Problem

ACTION = re.compile(r"\*|[A-Za-z0-9-]+:[A-Za-z0-9*?._-]+")
_SERVICE = re.compile(r"[A-Za-z0-9-]+")
_NAMED = {
    "\x00": "NUL",
    "\t": "a tab",
    "\n": "a newline",
    "\r": "a carriage return",
    " ": "a space",
}


def action_problem(action: str) -> str | None:
    """Why `action` is not an IAM action, or None."""
    if ACTION.fullmatch(action):
        return None
    for char in action:
        if char.isspace() or unicodedata.category(char).startswith("C"):
            name = _NAMED.get(char) or unicodedata.name(char, "a control character").lower()
            return f"it contains {name} (U+{ord(char):04X}), which IAM does not allow"
        if not char.isascii():
            return f"it contains {char!r}, which IAM does not allow (ASCII letters and digits only)"
    service, colon, name = action.partition(":")
    if not colon or not service or not name:
        return "an action is written service:Action, e.g. s3:GetObject"
    if not _SERVICE.fullmatch(service):
        return f"the service prefix {service!r} may only have letters, digits and '-'"
    bad = sorted({c for c in name if not (c.isalnum() or c in "*?._-")})
    return f"the action name may not contain {' '.join(repr(c) for c in bad)}"


def permission_problems(schema: dict[str, Any]) -> Iterator[Problem]:
    """Every handler's permissions and tagging's: empty lists, malformed actions, wildcards."""
    handlers = schema.get("handlers")
    for name, handler in handlers.items() if isinstance(handlers, dict) else ():
        if not isinstance(handler, dict):
            continue
        here = f"/handlers/{name}/permissions"
        if handler.get("permissions") == []:
            yield Problem(
                ACCEPTED,
                here,
                f"the {name} handler lists no permissions",
                'list the IAM actions the handler calls, e.g. "s3:GetObject"',
                code="cfngen/handler-no-permissions",
            )
        yield from _actions(handler.get("permissions"), here)
    tagging = schema.get("tagging")
    if isinstance(tagging, dict):
        if tagging.get("permissions") == []:
            yield Problem(
                "warning",
                "/tagging/permissions",
                "lists no permissions",
                "list the IAM actions tagging needs, or remove the key",
                code="cfngen/handler-no-permissions",
            )
        yield from _actions(tagging.get("permissions"), "/tagging/permissions")


def _actions(permissions: Any, here: str) -> Iterator[Problem]:
    for i, action in enumerate(permissions if isinstance(permissions, list) else []):
        if not isinstance(action, str):
            continue  # the meta-schema says so
        if action == "":
            # Registered AWS schemas have one (CloudFormation::ResourceDefaultVersion); the role
            # leaves it out.
            yield Problem(
                ACCEPTED,
                f"{here}/{i}",
                "an empty permission",
                "remove it",
                code="cfngen/permission-empty",
            )
            continue
        problem = action_problem(action)
        if problem is not None:
            yield Problem(
                "error",
                f"{here}/{i}",
                f"{action!r} is not an IAM action: {problem}",
                "IAM rejects resource-role.yaml with it; write the action as IAM names it",
                code="cfngen/permission-not-iam-action",
            )
        elif "*" in action:
            yield Problem(
                "warning",
                f"{here}/{i}",
                f"wildcard permission {action!r}",
                "list the specific actions the handler calls",
                code="cfngen/permission-wildcard",
            )
