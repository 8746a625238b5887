"""Instances of a resource schema: valid create/update inputs, an invalid one, and a checker
that says whether a model a handler returned conforms to the schema the way AWS sees it.

STUB (issues 3 and 5 complete it). The interface is fixed:

example_inputs(schema) -> {"create": {...}, "update": {...}, "invalid": {...}}
    create and update validate against the schema (AWS's pattern semantics, see _patterns);
    neither holds readOnly properties; update keeps every createOnly value of create and changes
    at least one updatable property when there is one; invalid does not validate.
model_errors(schema, model, partial=False) -> [(json_pointer, message), ...]
    Why `model` does not conform to the resource schema (types, enums, lengths, patterns as AWS
    evaluates them, additionalProperties, nested definitions); [] when it does. partial=True
    ignores `required` (handlers may return partial models, e.g. without writeOnly values).
"""

from __future__ import annotations

from typing import Any


def example_inputs(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    raise NotImplementedError("example inputs are not generated yet")


def model_errors(
    schema: dict[str, Any], model: dict[str, Any], partial: bool = False
) -> list[tuple[str, str]]:
    raise NotImplementedError("model conformance is not checked yet")
