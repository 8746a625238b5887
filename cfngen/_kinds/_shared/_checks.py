"""Semantic checks and lint: what a meta-schema cannot say.

Errors are what the registry (and the official validator) rejects, or what makes the generated
code wrong: a `$ref` that does not resolve, a property both createOnly and
conditionalCreateOnly. Mistakes the registry accepts are `ACCEPTED` findings, warnings unless
`--strict`, so that no project the official tool accepts is locked out: pointers that name no
property (into /definitions, say), a property both readOnly and writeOnly, `permissions: []`.
Other warnings are habits that cause trouble later (wildcard permissions, hard-coded
partitions, no tagging). docs/validate.md has the table. The rules of every subschema:
_node_checks.py; of the schema's pointers: _pointer_checks.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cfngen._diagnostics import ACCEPTED, Problem, Severity
from cfngen._kinds._shared._iam import permission_problems
from cfngen._kinds._shared._node_checks import node_problems
from cfngen._kinds._shared._pointer_checks import pointer_problems, strings
from cfngen._kinds._shared._pointers import PropertyIndex, schema_nodes
from cfngen._kinds._shared._transform_checks import transform_problems
from cfngen._schema import Resolver, close_match, depth_checks, join_pointer
from cfngen._support import STATE_KEY
from cfngen._typename import reserved_namespace

_LIST_INPUTS = {
    "maxresults",
    "maxrecords",
    "maxitems",
    "nexttoken",
    "nextmarker",
    "nextpagetoken",
    "pagetoken",
    "paginationtoken",
}

#: What to do instead of a keyword that resource schemas do not allow (unknown-key hints).
KEYWORD_HINTS = {
    "if": "if/then/else are not allowed in resource schemas; express alternatives with oneOf",
    "then": "if/then/else are not allowed in resource schemas; express alternatives with oneOf",
    "else": "if/then/else are not allowed in resource schemas; express alternatives with oneOf",
    "not": '"not" is not allowed in resource schemas; express alternatives with oneOf',
    "propertyNames": "describe the allowed keys of a map with patternProperties instead",
    "additionalItems": '"items" is a single schema here, so additionalItems means nothing; '
    "remove it",
    "readOnly": "list the property's pointer in the top-level readOnlyProperties instead",
    "writeOnly": "list the property's pointer in the top-level writeOnlyProperties instead",
    "$id": '"$id" is only allowed at the top of the schema',
    "$schema": '"$schema" is only allowed at the top of the schema',
    "$defs": 'resource schemas are draft-07: use "definitions"',
    "dependentRequired": 'resource schemas are draft-07: use "dependencies" with a list of names',
    "dependentSchemas": 'resource schemas are draft-07: use "dependencies" with a schema',
    "unevaluatedProperties": 'resource schemas are draft-07: use "additionalProperties": false',
    "unevaluatedItems": "resource schemas are draft-07; remove it",
    "prefixItems": '"items" must be a single schema; tuples are not allowed',
    "minContains": "resource schemas are draft-07; remove it",
    "maxContains": "resource schemas are draft-07; remove it",
    "nullable": 'this is OpenAPI, not JSON Schema: use "type": ["string", "null"]',
    "remote": '"remote" is reserved for CloudFormation; remove it',
    "patternProperties": "the top level declares named properties only; put the map in a property",
    "definitions": "definitions belong at the top level of the schema",
}


def check(schema: dict[str, Any], resolver: Resolver) -> list[Problem]:
    index = PropertyIndex(schema, resolver)
    out: list[Problem] = []
    out.extend(_namespace(schema))
    out.extend(pointer_problems(schema, index))
    out.extend(_overlaps(schema, index))
    out.extend(_required(schema, index))
    out.extend(_refs(schema, index))
    out.extend(depth_checks(schema, resolver))
    out.extend(permission_problems(schema))
    out.extend(_tagging(schema, index))
    out.extend(node_problems(schema))
    out.extend(_list_inputs(schema))
    out.extend(transform_problems(schema, index))
    return out


# --------------------------------------------------------------------------- errors


def _namespace(schema: dict[str, Any]) -> Iterator[Problem]:
    name = schema.get("typeName")
    if not isinstance(name, str) or "::" not in name:
        return
    reserved = reserved_namespace(name.split("::")[0])
    if reserved:
        yield Problem(
            "warning",
            "/typeName",
            f"the namespace {name.split('::')[0]!r} is reserved by AWS: a private type cannot "
            "be registered under it",
            "use your organization's name as the first part, e.g. Acme::Service::Resource",
            code="cfngen/type-name-reserved-namespace",
        )


def _required(schema: dict[str, Any], index: PropertyIndex) -> Iterator[Problem]:
    """Required names must be declared: both top-level objects forbid every other key."""
    for where, node in (("", schema), ("/typeConfiguration", schema.get("typeConfiguration"))):
        if not isinstance(node, dict):
            continue
        declared = {
            name
            for candidate in index.resolver.expand(node)
            if isinstance(candidate.get("properties"), dict)
            for name in candidate["properties"]
        }
        for i, name in strings(node.get("required")):
            if name not in declared:
                close = close_match(name, sorted(declared))
                yield Problem(
                    ACCEPTED,
                    f"{where}/required/{i}",
                    f"{name!r} is required but not declared in properties",
                    f"did you mean {close!r}?" if close else "declare it, or remove it",
                    code="cfngen/required-undeclared",
                )


def _overlaps(schema: dict[str, Any], index: PropertyIndex) -> Iterator[Problem]:
    def entries(key: str) -> list[tuple[int, str]]:
        return strings(schema.get(key))

    read_only = {p for _, p in entries("readOnlyProperties")}
    create_only = {p for _, p in entries("createOnlyProperties")}
    # The official validator rejects the last two; the registry takes the first two.
    rules: list[tuple[str, set[str], str, str, Severity]] = [
        (
            "writeOnlyProperties",
            read_only,
            "readOnly and writeOnly",
            "readOnly properties are only returned, writeOnly ones are never returned; "
            "remove it from one list",
            ACCEPTED,
        ),
        (
            "createOnlyProperties",
            read_only,
            "readOnly and createOnly",
            "users cannot set a readOnly property, so it cannot be createOnly; "
            "remove it from one list",
            ACCEPTED,
        ),
        (
            "conditionalCreateOnlyProperties",
            create_only,
            "createOnly and conditionalCreateOnly",
            "remove it from one list",
            "error",
        ),
        (
            "conditionalCreateOnlyProperties",
            read_only,
            "readOnly and conditionalCreateOnly",
            "remove it from one list",
            "error",
        ),
    ]
    for key, against, both, hint, severity in rules:
        for i, ptr in entries(key):
            if ptr in against:
                yield Problem(
                    severity,
                    f"/{key}/{i}",
                    f"{ptr} is both {both}",
                    hint,
                    code="cfngen/property-conflicting-lists",
                )
    required = schema.get("required")
    if isinstance(required, list):
        for i, name in strings(required):
            if f"/properties/{name}" in read_only and name not in required[:i]:
                yield Problem(
                    "warning",
                    f"/required/{i}",
                    f"{name!r} is required but readOnly: users cannot set it",
                    "remove it from required or from readOnlyProperties",
                    code="cfngen/required-read-only",
                )
    settable = read_only | create_only
    for i, ptr in entries("primaryIdentifier"):
        # An identifier that names nothing has its own finding (_pointers).
        if ptr not in settable and not index.property_problem(ptr):
            yield Problem(
                "warning",
                f"/primaryIdentifier/{i}",
                f"the identifier {ptr} is neither readOnly nor createOnly",
                "an identifier cannot change after creation: list it in readOnlyProperties "
                "(set by the service) or createOnlyProperties (set by the user)",
                code="cfngen/identifier-neither-read-only-nor-create-only",
            )


def _refs(schema: dict[str, Any], index: PropertyIndex) -> Iterator[Problem]:
    for ptr, node in schema_nodes(schema):
        ref = node.get("$ref")
        if not isinstance(ref, str):
            continue
        outcome = index.resolver.resolve_ref(ref)
        here = join_pointer(ptr, "$ref")
        if outcome.problem:
            yield Problem(
                "error", here, outcome.problem, outcome.hint, code="cfngen/ref-unresolved"
            )
        elif outcome.unchecked:
            yield Problem(
                "warning",
                here,
                f"$ref {ref!r} points outside this file and was not checked",
                "cfngen checks references within the schema file and to files beside it",
                code="cfngen/ref-outside-file",
            )


def _tagging(schema: dict[str, Any], index: PropertyIndex) -> Iterator[Problem]:
    tagging = schema.get("tagging")
    if "taggable" in schema:
        yield Problem(
            "warning",
            "/taggable",
            '"taggable" is deprecated',
            'use "tagging": {"taggable": ...} instead'
            + ("" if tagging is None else ' and remove "taggable"'),
            key=True,
            code="cfngen/taggable-deprecated",
        )
    if tagging is None and "taggable" not in schema:
        yield Problem(
            "warning",
            "",
            "the schema does not say whether the resource supports tags",
            'add "tagging": {"taggable": false}, or describe its tags: '
            '{"taggable": true, "tagProperty": "/properties/Tags", ...}',
            code="cfngen/tagging-undeclared",
        )
        return
    if not isinstance(tagging, dict):
        return
    tag_property = tagging.get("tagProperty")
    if isinstance(tag_property, str):
        found = index.property_problem(tag_property)
        if found:
            yield Problem(
                ACCEPTED,
                "/tagging/tagProperty",
                found[0],
                found[1],
                code="cfngen/tag-property-unknown",
            )
    elif tagging.get("taggable") is True and index.property_problem("/properties/Tags"):
        yield Problem(
            "warning",
            "/tagging",
            "the resource is taggable but has no Tags property and no tagProperty",
            'add "tagProperty": the pointer to the property that holds the tags',
            code="cfngen/taggable-without-tags",
        )


def _list_inputs(schema: dict[str, Any]) -> Iterator[Problem]:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for name in properties:
        if isinstance(name, str) and name.lower() in _LIST_INPUTS:
            yield Problem(
                "warning",
                join_pointer("/properties", name),
                f"{name!r} looks like an input of a LIST call, not a property of the resource",
                "pagination belongs to the list handler, not to the resource model",
                key=True,
                code="cfngen/property-looks-like-list-input",
            )


# --------------------------------------------------------------------------- callback context


def check_callback_context(schema: dict[str, Any], resolver: Resolver) -> list[Problem]:
    """callback-context.json, the JSON schema of the handlers' progress state: its top-level
    property names must leave the runtime library's reserved key alone."""
    properties = schema.get("properties")
    if not isinstance(properties, dict) or STATE_KEY not in properties:
        return []
    return [
        Problem(
            "error",
            join_pointer("/properties", STATE_KEY),
            f"the property name {STATE_KEY!r} is reserved: the steps of cfngen_runtime keep "
            "their progress under it in the callback context",
            "rename the property",
            key=True,
            code="cfngen/property-name-reserved",
        )
    ]
