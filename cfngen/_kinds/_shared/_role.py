"""`resource-role.yaml`: the IAM role CloudFormation assumes to run the handlers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfngen._generate._jinja import render
from cfngen._schema import SchemaView
from cfngen._timeouts import DEFAULT_TIMEOUT_MINUTES, handler_timeouts
from cfngen._typename import TypeName

TEMPLATES = Path(__file__).with_name("templates")

#: IAM's CreateRole limits for MaxSessionDuration, in seconds.
MIN_SESSION_SECONDS = 3600
MAX_SESSION_SECONDS = 43200
#: The official tool allows 70 seconds of session per minute of handler timeout, as headroom.
SECONDS_PER_TIMEOUT_MINUTE = 70


def handler_actions(schema: dict[str, Any]) -> list[str]:
    """Sorted unique IAM actions over every handler's `permissions`."""
    handlers = SchemaView(schema).handlers.values()
    return sorted({action for handler in handlers for action in handler.permissions})


def max_session_duration(schema: dict[str, Any]) -> int:
    """Seconds: the longest handler timeout with headroom, clamped to IAM's 1 to 12 hours."""
    longest = max(handler_timeouts(schema).values(), default=DEFAULT_TIMEOUT_MINUTES)
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
