"""Instances of a resource schema: valid create/update inputs, an invalid one, and a checker
that says whether a model a handler returned conforms to the schema the way AWS sees it.

example_inputs(schema) -> {"create": {...}, "update": {...}, "invalid": {...}}
    create and update validate against the schema (AWS's pattern semantics, see _patterns);
    neither holds readOnly properties; update keeps every createOnly value of create and changes
    at least one updatable property when there is one; invalid does not validate.
create_inputs(schema, count) -> [{...}, ...]
    Up to `count` distinct valid create inputs (fewer when the schema allows fewer).
update_input(schema, create) / invalid_input(schema, create) -> {...}
    The update and the invalid input example_inputs derives from a given create input.
model_errors(schema, model, partial=False) -> [(json_pointer, message), ...]
    Why `model` does not conform to the resource schema (types, enums, lengths, patterns as AWS
    evaluates them, additionalProperties, nested definitions); [] when it does. partial=True
    ignores `required` (handlers may return partial models, e.g. without writeOnly values), and
    with it the other presence rules (oneOf is read as anyOf; `not`, `dependencies` and
    `if`/`then`/`else` are skipped, as real schemas use them to say which keys go together).
input_errors(schema, instance) -> [(json_pointer, message), ...]
    The same for a create/update input: readOnly properties are not required.
describe(error) -> [(json_pointer, message), ...]
    A jsonschema error from any validator in cfngen's one wording (cfngen/_schema/_wording.py):
    what every check of a value against a schema says (hook configurations, custom resource
    properties), never jsonschema's own message.
format_samples() -> {format: value}
    The realistic value the generator gives each format it knows (an e-mail address, a CIDR
    block, cfn-lint's AWS::EC2::Subnet.Id...).

Everything is deterministic: the same schema gives the same inputs in every run. Validators are
compiled once per schema object (by identity), so pass the same dict when checking many models.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from cfngen._instances import _conformance
from cfngen._instances._conformance import describe
from cfngen._instances._repair import instance
from cfngen._instances._scalars import MISSING, format_samples
from cfngen._instances._values import Builder
from cfngen._schema import pointer_tokens, property_name

__all__ = [
    "create_inputs",
    "describe",
    "example_inputs",
    "format_samples",
    "input_errors",
    "invalid_input",
    "model_errors",
    "update_input",
]

#: Create inputs tried for distinct valid ones, per one asked for.
_TRIES_PER_INPUT = 3


def model_errors(
    schema: dict[str, Any], model: dict[str, Any], partial: bool = False
) -> list[tuple[str, str]]:
    return _conformance.errors(schema, model, "partial" if partial else "model")


def input_errors(schema: dict[str, Any], instance: dict[str, Any]) -> list[tuple[str, str]]:
    return _conformance.errors(schema, instance, "input")


def _create(schema: dict[str, Any], variant: int) -> tuple[dict[str, Any], bool]:
    builder = Builder(schema, variant)
    value, errors = instance(builder, schema)
    if not isinstance(value, dict) or value is MISSING:
        return {}, False
    return value, not errors


def create_inputs(schema: dict[str, Any], count: int = 3) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for variant in range(count * _TRIES_PER_INPUT):
        if len(out) >= count:
            break
        value, valid = _create(schema, variant)
        key = json.dumps(value, sort_keys=True)
        if valid and key not in seen:
            seen.add(key)
            out.append(value)
    return out


def _top_names(pointers: Any) -> set[str]:
    names = set()
    for pointer in pointers or []:
        tokens = pointer_tokens(pointer) if isinstance(pointer, str) else []
        if len(tokens) >= 2 and tokens[0] == "properties":
            names.add(tokens[1])
    return names


def _exact_names(pointers: Any) -> set[str]:
    """The top-level properties that `/properties/Name` pointers name exactly."""
    names = (property_name(p) for p in pointers or [] if isinstance(p, str))
    return {name for name in names if name is not None}


def _updatable(schema: dict[str, Any]) -> list[str]:
    fixed = (
        _top_names(schema.get("createOnlyProperties"))
        | _exact_names(schema.get("readOnlyProperties"))
        | _top_names(schema.get("primaryIdentifier"))
    )
    return [name for name in schema.get("properties", {}) if name not in fixed]


def update_input(schema: dict[str, Any], create: dict[str, Any]) -> dict[str, Any]:
    """`create` with at least one updatable property changed (createOnly values kept)."""
    names = _updatable(schema)
    if not names:
        return copy.deepcopy(create)

    def scalar_first(name: str) -> tuple[int, int]:
        value = create.get(name, MISSING)
        return (value is MISSING, isinstance(value, (dict, list)))

    ordered = sorted(names, key=scalar_first)
    for variant in range(1, 1 + _TRIES_PER_INPUT):
        other, valid = _create(schema, variant)
        if not valid:
            continue
        for name in ordered:
            if name not in other or other[name] == create.get(name, MISSING):
                continue
            candidate = copy.deepcopy(create)
            candidate[name] = copy.deepcopy(other[name])
            if not input_errors(schema, candidate):
                return candidate
    # Nothing else validates: dropping an optional property is a change too.
    for name in names:
        if name in create:
            candidate = {k: copy.deepcopy(v) for k, v in create.items() if k != name}
            if not input_errors(schema, candidate):
                return candidate
    return copy.deepcopy(create)


#: A value of the wrong type for each declared type, as CloudFormation would reject it.
_WRONG = {
    "string": 12345,
    "integer": "not-a-number",
    "number": "not-a-number",
    "boolean": "not-a-boolean",
    "object": "not-an-object",
    "array": "not-an-array",
}


def invalid_input(schema: dict[str, Any], create: dict[str, Any]) -> dict[str, Any]:
    """`create` with one property of the wrong type (or, failing that, an undeclared one)."""
    builder = Builder(schema)
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    order = [n for n in required if n in create] + [n for n in create if n not in required]
    for name in order:
        declared = builder.effective(properties.get(name, {})).get("type")
        types = [declared] if isinstance(declared, str) else list(declared or [])
        for kind in types + [t for t in _WRONG if t not in types]:
            wrong = _WRONG.get(kind)
            if wrong is None:
                continue
            candidate = copy.deepcopy(create)
            candidate[name] = wrong
            if input_errors(schema, candidate):
                return candidate
    candidate = copy.deepcopy(create)
    candidate["UndeclaredProperty"] = "not in the schema"
    return candidate


def example_inputs(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    creates = create_inputs(schema, 1)
    create = creates[0] if creates else _create(schema, 0)[0]
    return {
        "create": create,
        "update": update_input(schema, create),
        "invalid": invalid_input(schema, create),
    }
