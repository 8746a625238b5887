"""The rules every subschema of a resource schema follows, wherever it is: arrayType only on
arrays, an explicit insertionOrder, `additionalProperties: false` on objects, and patterns that
compile, use no Java-only syntax and match every partition.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from cfngen import _patterns
from cfngen._diagnostics import Problem
from cfngen._kinds._shared._pointers import schema_nodes
from cfngen._schema import join_pointer

_HARDCODED_PARTITION = re.compile(r"arn:aws:")
#: A branch of allOf/anyOf/oneOf adds to the object around it; it is not an object of its own.
_BRANCH = re.compile(r"/(?:allOf|anyOf|oneOf)/[0-9]+$")


def node_problems(schema: dict[str, Any]) -> Iterator[Problem]:
    """Rules that apply to every subschema."""
    exempt_objects = {"", "/typeConfiguration", "/handlers/list/handlerSchema"}
    for ptr, node in schema_nodes(schema):
        kind = node.get("type")
        if "arrayType" in node and kind is not None and kind != "array":
            yield Problem(
                "error",
                join_pointer(ptr, "arrayType"),
                "arrayType only applies to arrays",
                'remove it, or make the type exactly "array"',
                code="cfngen/array-type-not-array",
            )
        if (kind == "array" or (isinstance(kind, list) and "array" in kind)) and (
            "insertionOrder" not in node
        ):
            yield Problem(
                "warning",
                ptr,
                "array without an explicit insertionOrder",
                'add "insertionOrder": false if the order of items does not matter, '
                "true if it does (the default, which makes reordering a change)",
                code="cfngen/array-insertion-order-missing",
            )
        if (
            ("properties" in node or "patternProperties" in node)
            and ptr not in exempt_objects
            and not _BRANCH.search(ptr)
            and "additionalProperties" not in node
        ):
            yield Problem(
                "warning",
                ptr,
                'object without "additionalProperties": false',
                "add it: CloudFormation will require it, and without it any key is accepted",
                code="cfngen/object-additional-properties-open",
            )
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            yield from _pattern(pattern, join_pointer(ptr, "pattern"), key=False)
        keys = node.get("patternProperties")
        if isinstance(keys, dict):
            for key in keys:
                yield from _pattern(key, join_pointer(ptr, "patternProperties", key), key=True)


def _pattern(pattern: str, ptr: str, *, key: bool) -> Iterator[Problem]:
    try:
        java = _patterns.java_only_constructs(pattern)
        _patterns.compile_pattern(pattern)
        broken = None
    except _patterns.PatternError as exc:
        java, broken = [], str(exc)
    if java:
        yield Problem(
            "warning",
            ptr,
            f"the pattern uses Java-only regex syntax {', '.join(java)}",
            "CloudFormation understands it, but Python and most JSON Schema tools do not; "
            "prefer a plain character class",
            key=key,
            code="cfngen/pattern-java-only",
        )
    elif broken:
        yield Problem(
            "warning",
            ptr,
            f"the pattern cannot be compiled: {broken}",
            "cfngen cannot check values against it; fix the regular expression",
            key=key,
            code="cfngen/pattern-invalid",
        )
    if _HARDCODED_PARTITION.search(pattern):
        yield Problem(
            "warning",
            ptr,
            "the pattern hard-codes the aws partition in an ARN",
            "match every partition (aws-cn, aws-us-gov) with arn:aws[A-Za-z-]*:",
            key=key,
            code="cfngen/pattern-hard-coded-partition",
        )
