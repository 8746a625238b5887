"""Structural rules: a kind's meta-schema, and its errors turned into sentences.

A meta-schema (the resource kind's is cfngen/_kinds/resource/metaschema.json) is plain draft-07
JSON Schema checked by jsonschema; each failing keyword becomes one Problem with the pointer of
the offending value. Subschemas may carry `x-message` / `x-hint` maps (keyword -> text) for
wording that depends on where the keyword sits; everything else is worded per keyword by the
one author of those sentences, cfngen/_schema/_wording.py, and
an unknown key gets the kind's hint for it (`hints`: keyword -> what to do instead). An
`x-severity` map (keyword -> "warning") marks the rules the registry does not enforce
(docs/validate.md): their findings are warnings unless --strict.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from cfngen._diagnostics import Problem
from cfngen._schema import join_pointer, loads, pointer_tokens
from cfngen._schema._wording import missing_key, sentence, unknown_key


@functools.cache
def _validator(metaschema: Path) -> Any:
    # Built once per process and meta-schema. Non-recursive references are inlined first:
    # jsonschema looks a `$ref` up again every time it meets it, which was most of the time
    # spent on real schemas.
    from jsonschema import Draft7Validator

    schema = loads(metaschema.read_text(encoding="utf-8")).data
    # A kind's meta-schema may borrow another's definitions (the hook meta-schema takes the
    # resource meta-schema's property schemas): its own win.
    borrowed = schema.get("x-definitions-from")
    if isinstance(borrowed, str):
        other = loads((metaschema.parent / borrowed).read_text(encoding="utf-8")).data
        schema["definitions"] = {**other.get("definitions", {}), **schema.get("definitions", {})}
    definitions = schema.get("definitions", {})
    return Draft7Validator(_inline(schema, definitions, _recursive(definitions)))


def _definition(ref: Any) -> str | None:
    """`#/definitions/Name` -> "Name"; None for any other reference."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    tokens = pointer_tokens(ref[1:])
    return tokens[1] if len(tokens) == 2 and tokens[0] == "definitions" else None


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, list):
        for value in node:
            yield from _refs(value)
    elif isinstance(node, dict):
        name = _definition(node.get("$ref"))
        if name is not None:
            yield name
        for value in node.values():
            yield from _refs(value)


def _recursive(definitions: dict[str, Any]) -> set[str]:
    """The definitions that refer back to themselves, directly or through others: inlining
    those would never end, so they stay references."""
    edges = {name: set(_refs(node)) for name, node in definitions.items()}
    found = set()
    for start, refs in edges.items():
        stack, seen = list(refs), set()
        while stack:
            name = stack.pop()
            if name == start:
                found.add(start)
                break
            if name not in seen and name in edges:
                seen.add(name)
                stack.extend(edges[name])
    return found


def _inline(node: Any, definitions: dict[str, Any], recursive: set[str]) -> Any:
    if isinstance(node, list):
        return [_inline(v, definitions, recursive) for v in node]
    if not isinstance(node, dict):
        return node
    name = _definition(node.get("$ref"))
    if name is not None and name not in recursive:
        target = _inline(definitions[name], definitions, recursive)
        # Draft-07 ignores the siblings of $ref; keep the ones we read (description).
        merged = {k: v for k, v in node.items() if k != "$ref"}
        merged.update(target)
        return merged
    return {k: _inline(v, definitions, recursive) for k, v in node.items()}


def check(schema: Any, metaschema: Path, hints: Mapping[str, str]) -> list[Problem]:
    """Every structural problem in `schema` against `metaschema`, unsorted, no duplicates."""
    seen: set[tuple[str, str]] = set()
    problems = []
    mistyped: set[str] = set()
    for error in _validator(metaschema).iter_errors(schema):
        if error.validator == "type":
            mistyped.add(_pointer(error))
        severity = _custom(error, "x-severity")
        for found in _translate(error, hints):
            problem = (
                dataclasses.replace(found, severity="warning") if severity == "warning" else found
            )
            if (problem.pointer, problem.message) not in seen:
                seen.add((problem.pointer, problem.message))
                problems.append((error.validator, problem))
    # A value of the wrong type breaks every other rule about it too: say only the first thing.
    return [p for keyword, p in problems if keyword == "type" or p.pointer not in mistyped]


def _pointer(error: Any) -> str:
    return join_pointer("", *error.absolute_path)


def _custom(error: Any, field: str) -> str | None:
    table = error.schema.get(field) if isinstance(error.schema, dict) else None
    if isinstance(table, dict):
        text = table.get(error.validator)
        if isinstance(text, str):
            return text
    return None


def _translate(error: Any, hints: Mapping[str, str]) -> Iterator[Problem]:
    keyword = error.validator
    pointer = _pointer(error)
    instance = error.instance
    value = error.validator_value
    hint = _custom(error, "x-hint")
    message = _custom(error, "x-message")

    if keyword in ("anyOf", "oneOf") and error.context:
        # Only reachable through "contains" (plain draft-07): explain the closest branch.
        from jsonschema.exceptions import best_match

        best = best_match(error.context)
        if best is not None:
            yield from _translate(best, hints)
            return

    if keyword == "additionalProperties" and isinstance(instance, dict):
        yield from _unknown_keys(error, pointer, message, hint, hints)
        return

    if keyword == "required" and isinstance(instance, dict):
        props = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        for name in value:
            if name in instance:
                continue
            what = props.get(name, {}).get("description") if isinstance(props, dict) else None
            yield _problem(
                keyword,
                pointer,
                message or missing_key(name),
                hint or (f'add "{name}": {what}' if what else None),
            )
        return

    if message is not None:
        yield _problem(keyword, pointer, message.format(instance=instance), hint)
        return
    if keyword == "const" and pointer.endswith("/additionalProperties") and instance is not True:
        hint = 'to describe a map, use "patternProperties", e.g. {".*": {"type": "string"}}'
    message, default_hint = sentence(keyword, value, instance, pointer)
    yield _problem(keyword, pointer, message, hint or default_hint)


def _unknown_keys(
    error: Any, pointer: str, message: str | None, hint: str | None, hints: Mapping[str, str]
) -> Iterator[Problem]:
    schema = error.schema
    declared = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    for key in error.instance:
        if key in declared or any(re.search(p, key) for p in patterns):
            continue
        if message is not None:
            yield _problem(
                "additionalProperties",
                join_pointer(pointer, key),
                message.format(key=key),
                hint,
                key=True,
            )
            continue
        yield _problem(
            "additionalProperties",
            join_pointer(pointer, key),
            unknown_key(key),
            hints.get(key) or _did_you_mean(key, declared) or hint,
            key=True,
        )


def _did_you_mean(key: str, allowed: dict[str, Any]) -> str | None:
    from cfngen._schema import close_match

    close = close_match(key, list(allowed))
    if close is None:
        return None
    if close.lower() == key.lower():
        return f"did you mean {close!r}? keys are case-sensitive"
    return f"did you mean {close!r}?"


def _problem(
    keyword: str, pointer: str, message: str, hint: str | None, *, key: bool = False
) -> Problem:
    # The metaschema rule the value breaks is the kind of problem: additionalProperties ->
    # cfngen/schema-additional-properties.
    kebab = re.sub(r"(?<!^)(?=[A-Z])", "-", keyword).lower()
    return Problem("error", pointer, message, hint, key=key, code=f"cfngen/schema-{kebab}")
