"""The schema's handler timeouts: one reader for the IAM role, models.py and the contract runner.

`timeoutInMinutes` of a handler is how long CloudFormation lets one operation take in all,
callbacks included (the meta-schema allows 2 to 2160); without it, 120.
"""

from __future__ import annotations

from typing import Any

#: What the official tool and CloudFormation assume for a handler without `timeoutInMinutes`.
DEFAULT_TIMEOUT_MINUTES = 120
_ORDER = ("create", "read", "update", "delete", "list")


def handler_timeouts(schema: dict[str, Any]) -> dict[str, int]:
    """Minutes per declared handler, in create/read/update/delete/list order, then the rest.

    A value that is not an integer (invalid, and reported by validate) counts as the default.
    """
    handlers = schema.get("handlers")
    if not isinstance(handlers, dict):
        return {}
    names = sorted(
        (name for name, handler in handlers.items() if isinstance(handler, dict)),
        key=lambda name: (_ORDER.index(name) if name in _ORDER else len(_ORDER), name),
    )
    return {name: _minutes(handlers[name].get("timeoutInMinutes")) for name in names}


def _minutes(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return DEFAULT_TIMEOUT_MINUTES
