"""Typed views of a schema document, instead of `dict[str, Any]` where that helps.

`SchemaView` reads what every kind's schema has (typeName, handlers with their permissions and
timeouts, typeConfiguration) and resolves its references; each kind grows its own view from it
(the resource kind's `ResourceSchema`: identifiers, readOnly/writeOnly/createOnly, tagging).
Views never fail on a schema that breaks the rules: whatever is malformed reads as absent.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cfngen._schema._refs import Resolver


@dataclass(frozen=True)
class Handler:
    """One entry of the schema's `handlers`."""

    name: str
    #: The IAM actions it declares (non-empty strings only).
    permissions: tuple[str, ...]
    #: `timeoutInMinutes` when it is a whole number, else None.
    timeout_in_minutes: int | None


class SchemaView:
    def __init__(self, schema: dict[str, Any], *, base_dir: Path | None = None) -> None:
        self.schema = schema
        self.resolver = Resolver(schema, base_dir)

    @functools.cached_property
    def type_name(self) -> str | None:
        value = self.schema.get("typeName")
        return value if isinstance(value, str) else None

    @functools.cached_property
    def handler_names(self) -> frozenset[str]:
        """The names under `handlers`, whatever their values."""
        handlers = self.schema.get("handlers")
        return frozenset(handlers) if isinstance(handlers, dict) else frozenset()

    @functools.cached_property
    def handlers(self) -> dict[str, Handler]:
        """The handlers declared as objects, in schema order."""
        handlers = self.schema.get("handlers")
        if not isinstance(handlers, dict):
            return {}
        out = {}
        for name, value in handlers.items():
            if not isinstance(value, dict):
                continue
            permissions = value.get("permissions")
            timeout = value.get("timeoutInMinutes")
            out[name] = Handler(
                name,
                tuple(p for p in permissions if isinstance(p, str) and p)
                if isinstance(permissions, list)
                else (),
                timeout if isinstance(timeout, int) and not isinstance(timeout, bool) else None,
            )
        return out

    @functools.cached_property
    def type_configuration(self) -> dict[str, Any]:
        value = self.schema.get("typeConfiguration")
        return value if isinstance(value, dict) else {}

    def strings(self, key: str) -> tuple[str, ...]:
        """The strings in the top-level list `key` (a list of pointers, of names)."""
        value = self.schema.get(key)
        return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()
