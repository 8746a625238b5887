"""Instances of a resource schema: valid create/update inputs and a deliberately invalid one.

STUB (issues 3 and 5 complete it). The interface is fixed:

example_inputs(schema) -> {"create": {...}, "update": {...}, "invalid": {...}}

create and update validate against the schema (AWS's pattern semantics, see _patterns);
update changes only updatable properties and keeps createOnly ones; invalid does not validate.
"""

from __future__ import annotations

from typing import Any


def example_inputs(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    raise NotImplementedError("example inputs are not generated yet")
