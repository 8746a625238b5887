"""`resource-role.yaml`: the IAM role CloudFormation assumes to run the handlers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfngen._generate._jinja import render
from cfngen._typename import TypeName

TEMPLATES = Path(__file__).with_name("templates")

#: What the official tool assumes for a handler without `timeoutInMinutes` (two hours).
DEFAULT_TIMEOUT_MINUTES = 120
#: IAM's CreateRole limits for MaxSessionDuration, in seconds.
MIN_SESSION_SECONDS = 3600
MAX_SESSION_SECONDS = 43200
#: The official tool allows 70 seconds of session per minute of handler timeout, as headroom.
SECONDS_PER_TIMEOUT_MINUTE = 70


def handler_actions(schema: dict[str, Any]) -> list[str]:
    """Sorted unique IAM actions over every handler's `permissions`."""
    actions: set[str] = set()
    for handler in _handlers(schema).values():
        permissions = handler.get("permissions", [])
        if isinstance(permissions, list):
            actions.update(p for p in permissions if isinstance(p, str) and p)
    return sorted(actions)


def max_session_duration(schema: dict[str, Any]) -> int:
    """Seconds: the longest handler timeout with headroom, clamped to IAM's 1 to 12 hours."""
    timeouts = []
    for handler in _handlers(schema).values():
        minutes = handler.get("timeoutInMinutes", DEFAULT_TIMEOUT_MINUTES)
        if not isinstance(minutes, int) or isinstance(minutes, bool):
            minutes = DEFAULT_TIMEOUT_MINUTES
        timeouts.append(minutes)
    longest = max(timeouts, default=DEFAULT_TIMEOUT_MINUTES)
    seconds = SECONDS_PER_TIMEOUT_MINUTE * longest
    return min(MAX_SESSION_SECONDS, max(MIN_SESSION_SECONDS, seconds))


def render_role(schema: dict[str, Any], type_name: str) -> str:
    """The role template: Allow the handlers' actions, or Deny everything when they need none."""
    name = TypeName(type_name)
    actions = handler_actions(schema)
    return render(
        TEMPLATES,
        "resource-role.yaml",
        type_name=name,
        hyphenated=name.hyphenated,
        max_session_duration=max_session_duration(schema),
        effect="Allow" if actions else "Deny",
        actions=actions or ["*"],
    )


def _handlers(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    handlers = schema.get("handlers")
    if not isinstance(handlers, dict):
        return {}
    return {k: v for k, v in handlers.items() if isinstance(v, dict)}
