"""The one wording of a JSON Schema rule that a value breaks: what `cfngen validate` says about
a schema against its kind's meta-schema (cfngen/_validate/_structure.py) and what it says about
an instance against a resource schema (example inputs, contract test inputs, models:
cfngen/_instances/_conformance.py). Both hand the failing keyword, its value in the schema and
the offending value here, so a rule reads the same wherever it is broken.

Each sentence says what the value must be, then what it is; the hint, when there is one, what to
write instead. jsonschema's own messages (`'x' is a required property`) are never shown: they
quote Python's repr, not JSON.
"""

from __future__ import annotations

import json
from typing import Any

_TYPE_NAMES = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


def kind_of(value: Any) -> str:
    """The JSON type of `value`, with its article: "a string", "an array", ..."""
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def shown(value: Any, limit: int = 60) -> str:
    """`value` as JSON, cut to `limit` characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def missing_key(name: str) -> str:
    return f"missing required key {name!r}"


def unknown_key(key: str) -> str:
    return f"unknown key {key!r}"


def missing_dependency(name: str, present: str) -> str:
    return f"missing key {name!r}, required when {present!r} is present"


def no_alternative(closest: str | None) -> str:
    detail = "" if closest is None else f" (closest: {closest})"
    return f"matches none of the allowed alternatives{detail}"


def several_alternatives() -> str:
    return "matches more than one of the alternatives, but must match exactly one"


def sentence(
    keyword: str, expected: Any, instance: Any, pointer: str = ""
) -> tuple[str, str | None]:
    """The sentence and default hint for `instance` breaking `keyword` (whose value in the
    schema is `expected`), at `pointer` (a schema's own pointer picks a few hints)."""
    if keyword == "type":
        wanted = [expected] if isinstance(expected, str) else list(expected)
        names = " or ".join(_TYPE_NAMES.get(t, t) for t in wanted)
        hint = None
        if pointer.endswith("/items") and isinstance(instance, list):
            hint = '"items" must be a single schema; tuples of schemas are not allowed'
        elif pointer.endswith("/additionalProperties") and isinstance(instance, dict):
            hint = 'describe a map with "patternProperties", e.g. {".*": {"type": "string"}}'
        return f"must be {names}, not {kind_of(instance)}", hint
    if keyword == "enum":
        options = ", ".join(shown(v, 30) for v in expected[:8])
        more = f", ... ({len(expected)} in all)" if len(expected) > 8 else ""
        return f"{shown(instance)} is not allowed", f"use one of {options}{more}"
    if keyword == "const":
        return f"must be {shown(expected)}, not {shown(instance)}", None
    if keyword == "pattern":
        if pointer.endswith("/typeName") and isinstance(instance, str):
            from cfngen._typename import type_name_problem

            return (
                f"{shown(instance)} is not a valid type name: {type_name_problem(instance)}",
                "use three parts separated by '::', each 2 to 64 letters or digits, "
                "e.g. Acme::Storage::Bucket",
            )
        return f"{shown(instance)} does not match {expected}", None
    if keyword == "format":
        return f"{shown(instance)} is not a valid {expected}", None
    if keyword in ("minItems", "minProperties") and expected == 1:
        return "must not be empty", None
    counted = {
        "minItems": ("at least", "items"),
        "maxItems": ("at most", "items"),
        "minProperties": ("at least", "keys"),
        "maxProperties": ("at most", "keys"),
    }
    if keyword in counted:
        bound, what = counted[keyword]
        return f"must have {bound} {expected} {what}, not {_count(instance)}", None
    if keyword == "uniqueItems":
        dupes = _duplicates(instance)
        return f"lists {', '.join(shown(d) for d in dupes)} more than once", "remove the repeats"
    relation = {
        "minimum": "at least",
        "maximum": "at most",
        "exclusiveMinimum": "greater than",
        "exclusiveMaximum": "less than",
    }
    if keyword in relation:
        return f"must be {relation[keyword]} {expected}, not {shown(instance)}", None
    if keyword in ("minLength", "maxLength"):
        bound = "at least" if keyword == "minLength" else "at most"
        length = len(instance) if isinstance(instance, str) else 0
        return f"must be {bound} {expected} characters long, not {length}", None
    if keyword == "multipleOf":
        return f"must be a multiple of {expected}, not {shown(instance)}", None
    if keyword == "not":
        return "is not allowed here", None
    if keyword == "contains":
        return "has no item that matches the schema in 'contains'", None
    return f"breaks the {keyword!r} rule", None


def _count(value: Any) -> int:
    return len(value) if isinstance(value, (list, dict)) else 0


def _duplicates(items: Any) -> list[Any]:
    seen: list[Any] = []
    dupes: list[Any] = []
    for item in items if isinstance(items, list) else []:
        if any(_same(item, s) for s in seen):
            if not any(_same(item, d) for d in dupes):
                dupes.append(item)
        else:
            seen.append(item)
    return dupes


def _same(a: Any, b: Any) -> bool:
    # JSON equality: true is not 1.
    return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) else a == b
