"""The checks of a resource schema's JSON pointers: the pointer lists (readOnlyProperties,
primaryIdentifier, ...), additional identifiers, nonPublicDefinitions, propertyTransform keys,
typeConfiguration's deprecated properties and resourceLink mappings, each naming a property
that exists."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cfngen._diagnostics import ACCEPTED, Problem
from cfngen._kinds._shared._pointers import PropertyIndex
from cfngen._schema import Resolver, join_pointer

POINTER_LISTS = (
    "primaryIdentifier",
    "readOnlyProperties",
    "writeOnlyProperties",
    "createOnlyProperties",
    "conditionalCreateOnlyProperties",
    "deprecatedProperties",
    "nonPublicProperties",
)
#: Inputs of a LIST API call, which are never properties of the resource.


def strings(value: Any) -> list[tuple[int, str]]:
    if not isinstance(value, list):
        return []
    return [(i, v) for i, v in enumerate(value) if isinstance(v, str)]


def pointer_problems(schema: dict[str, Any], index: PropertyIndex) -> Iterator[Problem]:
    for key in POINTER_LISTS:
        yield from _pointer_list(index, schema.get(key), f"/{key}")
    extra = schema.get("additionalIdentifiers")
    if isinstance(extra, list):
        for i, identifier in enumerate(extra):
            yield from _pointer_list(index, identifier, f"/additionalIdentifiers/{i}")
    for i, ptr in strings(schema.get("nonPublicDefinitions")):
        problem = _definition_problem(index.resolver, ptr)
        if problem:
            yield Problem(
                ACCEPTED,
                f"/nonPublicDefinitions/{i}",
                problem[0],
                problem[1],
                code="cfngen/definition-unknown",
            )
    transforms = schema.get("propertyTransform")
    if isinstance(transforms, dict):
        for ptr in transforms:
            here = join_pointer("/propertyTransform", ptr)
            if not ptr.startswith("/") and ptr in (schema.get("properties") or {}):
                yield Problem(
                    "warning",
                    here,
                    f"propertyTransform key {ptr!r} is a property name, not a JSON pointer",
                    f"write '/properties/{ptr}'",
                    key=True,
                    code="cfngen/property-transform-key-not-pointer",
                )
                continue
            found = index.property_problem(ptr)
            if found:
                yield Problem(
                    ACCEPTED,
                    here,
                    found[0],
                    found[1],
                    key=True,
                    code="cfngen/property-transform-unknown-property",
                )
    config = schema.get("typeConfiguration")
    if isinstance(config, dict):
        yield from _pointer_list(
            index,
            config.get("deprecatedProperties"),
            "/typeConfiguration/deprecatedProperties",
            config,
        )
    link = schema.get("resourceLink")
    if isinstance(link, dict) and isinstance(link.get("mappings"), dict):
        for name, ptr in link["mappings"].items():
            if not isinstance(ptr, str):
                continue
            here = join_pointer("/resourceLink/mappings", name)
            # Warnings: how the console reads mappings is not documented precisely.
            if not ptr.startswith("/"):
                yield Problem(
                    "warning",
                    here,
                    f"{ptr!r} is not a JSON pointer: it must start with '/'",
                    f"write '/{ptr}'",
                    code="cfngen/resource-link-mapping-not-pointer",
                )
                continue
            found = index.property_problem("/properties" + ptr)
            if found:
                yield Problem(
                    "warning",
                    here,
                    f"{ptr!r} does not name a property of the resource",
                    "mappings point into the resource model, e.g. /BucketName for "
                    "/properties/BucketName",
                    code="cfngen/resource-link-mapping-unknown-property",
                )


def _pointer_list(
    index: PropertyIndex, value: Any, where: str, root: Any = None
) -> Iterator[Problem]:
    seen: dict[str, int] = {}
    for i, ptr in strings(value):
        here = f"{where}/{i}"
        if ptr in seen:
            yield Problem(
                "warning",
                here,
                f"{ptr!r} is listed twice (first at {where}/{seen[ptr]})",
                "remove the repeat",
                code="cfngen/pointer-duplicate",
            )
            continue
        seen[ptr] = i
        found = index.property_problem(ptr, root)
        if found:
            yield Problem(
                ACCEPTED, here, found[0], found[1], code="cfngen/pointer-unknown-property"
            )


def _definition_problem(resolver: Resolver, ptr: str) -> tuple[str, str | None] | None:
    if not ptr.startswith("/definitions/"):
        return (f"{ptr!r} does not point at a definition", "write /definitions/Name")
    outcome = resolver.at(ptr)
    return None if outcome.problem is None else (outcome.problem, outcome.hint)
