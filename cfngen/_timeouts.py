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
    from cfngen._schema import SchemaView

    handlers = SchemaView(schema).handlers
    names = sorted(
        handlers,
        key=lambda name: (_ORDER.index(name) if name in _ORDER else len(_ORDER), name),
    )
    return {name: _minutes(handlers[name].timeout_in_minutes) for name in names}


def _minutes(value: int | None) -> int:
    return DEFAULT_TIMEOUT_MINUTES if value is None else value
