"""What `cfngen validate` checks in `propertyTransform` expressions (the keys are pointers,
checked with the others in _checks.py; a `*` there must stand for array items).

Every finding is a warning (an error with --strict): the official validator and the registry
accept any string, but a transform that does not parse, names a field the model never has, or
builds a pattern that does not compile makes drift detection report drift that is not there.
Findings are placed at the key, and say where in the expression they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from cfngen._diagnostics import ACCEPTED, Problem
from cfngen._kinds._shared._pointers import PropertyIndex
from cfngen._kinds._shared._transforms import (
    Alternative,
    Transform,
    TransformError,
    parse,
    transforms_of,
)
from cfngen._schema import join_pointer

CODE_SYNTAX = "cfngen/transform-syntax"
CODE_FIELD = "cfngen/transform-unknown-field"
CODE_PATTERN = "cfngen/transform-pattern"

#: A string literal that is a piece of a pattern rather than text: `.*`, `.+?`, an escape
#: (`\/`), a character class, a counted repeat, an anchor at either end, a group option.
_PATTERN_LIKE = re.compile(r"\.[*+?]|\\|\[|\]|\{\d+(,\d*)?\}|^\^|\$$|\(\?|\|")
#: Stands for a value the template gives when a pattern built around it is compiled.
_PLACEHOLDER = "x"


def transform_problems(schema: dict[str, Any], index: PropertyIndex) -> Iterator[Problem]:
    for transform in transforms_of(schema):
        here = join_pointer("/propertyTransform", transform.key)
        for alternative in transform.alternatives:
            try:
                tree = parse(alternative.text).ast
            except TransformError as exc:
                yield _syntax(transform, alternative, exc, here)
                continue
            yield from _fields(transform, alternative, tree, index, here)
            yield from _patterns(transform, alternative, tree, here)


def _syntax(
    transform: Transform, alternative: Alternative, exc: TransformError, here: str
) -> Problem:
    where = ""
    if exc.offset is not None:
        where = f" at character {alternative.offset + min(exc.offset, len(alternative.text)) + 1}"
    which = _which(transform, alternative)
    return Problem(
        ACCEPTED,
        here,
        f"{which} of {transform.key} is not a JSONata expression{where}: {exc.message}",
        "drift detection cannot evaluate it; write JSONata (https://docs.jsonata.org), with "
        "$OR between alternatives",
        key=True,
        code=CODE_SYNTAX,
    )


def _which(transform: Transform, alternative: Alternative) -> str:
    if len(transform.alternatives) == 1:
        return "the propertyTransform"
    return f"alternative {alternative.number} of the propertyTransform"


# --------------------------------------------------------------------------- field names


def _fields(
    transform: Transform, alternative: Alternative, tree: Any, index: PropertyIndex, here: str
) -> Iterator[Problem]:
    if transform.path is None or index.property_problem(transform.key):
        return  # the key's own finding says what is wrong
    parent = transform.path[:-1]
    seen: set[tuple[str, ...]] = set()
    for chain in _input_paths(tree, True):
        if chain in seen:
            continue
        seen.add(chain)
        at_root = index.property_problem("/properties/" + "/".join(chain))
        beside = index.property_problem("/properties/" + "/".join((*parent, *chain)))
        if at_root is None or beside is None:
            continue
        where = "/properties/" + "/".join(parent) if parent else None
        name = ".".join(chain)
        yield Problem(
            "warning",
            here,
            f"{_which(transform, alternative)} of {transform.key} names {name!r}, which is "
            + (
                f"neither a property of the model nor of {where}"
                if where
                else "not a property of the model"
            ),
            "an alternative is evaluated on the template's properties and on the object "
            "holding the transformed property; name a property declared there",
            key=True,
            code=CODE_FIELD,
        )


def _input_paths(node: Any, on_input: bool) -> Iterator[tuple[str, ...]]:
    """The field paths (`MasterUserSecret.KmsKeyId`) an expression reads from its input:
    names inside predicates, lambdas and transform updates are read from something else."""
    if isinstance(node, (list, tuple)):
        for item in node:
            yield from _input_paths(item, on_input)
        return
    kind = getattr(node, "type", None)
    if not isinstance(kind, str) or not hasattr(node, "__dict__"):
        return
    if kind == "path":
        steps = list(getattr(node, "steps", None) or [])
        if steps and getattr(steps[0], "type", None) == "variable" and steps[0].value == "":
            steps = steps[1:]  # `$.Source` reads the input too
        chain: list[str] = []
        for step in steps:
            if getattr(step, "type", None) != "name" or not isinstance(step.value, str):
                break
            chain.append(step.value)
            if getattr(step, "stages", None) or getattr(step, "predicate", None):
                break
        if chain and on_input:
            yield tuple(chain)
        for step in steps:
            yield from _input_paths(step, on_input=False)
        return
    if kind == "name":
        if on_input and isinstance(node.value, str):
            yield (node.value,)
        for key in ("stages", "predicate", "group"):
            yield from _input_paths(getattr(node, key, None), on_input=False)
        return
    for key, value in vars(node).items():
        if key.startswith("_") or key in ("value", "type", "position", "id"):
            continue
        inner = on_input and not (
            kind == "lambda" or key in ("stages", "predicate", "update", "delete", "group", "expr")
        )
        yield from _input_paths(value, inner)


# --------------------------------------------------------------------------- patterns


def _patterns(
    transform: Transform, alternative: Alternative, tree: Any, here: str
) -> Iterator[Problem]:
    from cfngen._patterns import PatternError, compile_pattern

    for pattern in dict.fromkeys(_built_patterns(tree)):
        try:
            compile_pattern(pattern)
        except (PatternError, RecursionError) as exc:
            yield Problem(
                "warning",
                here,
                f"{_which(transform, alternative)} of {transform.key} builds the pattern "
                f"{pattern!r}, which does not compile: {exc}",
                "a result that is not equal to the read value is read as a pattern (as AWS's "
                'own transforms do, e.g. $join([EngineVersion, ".*"])); escape characters '
                "meant literally",
                key=True,
                code=CODE_PATTERN,
            )


def _built_patterns(node: Any) -> Iterator[str]:
    """The patterns an expression's string literals build: a `$join` of pieces, one of them
    pattern-like, whole, with a stand-in for each value it joins; any other pattern-like
    literal alone."""
    if isinstance(node, (list, tuple)):
        for item in node:
            yield from _built_patterns(item)
        return
    kind = getattr(node, "type", None)
    if not isinstance(kind, str) or not hasattr(node, "__dict__"):
        return
    if kind == "string":
        if isinstance(node.value, str) and _PATTERN_LIKE.search(node.value):
            yield node.value
        return
    joined = _join_pieces(node)
    if joined is not None:
        pieces, separator = joined
        texts = [p.value if getattr(p, "type", None) == "string" else None for p in pieces]
        if any(t is not None and _PATTERN_LIKE.search(t) for t in texts):
            yield separator.join(_PLACEHOLDER if t is None else t for t in texts)
        yield from _built_patterns([p for p, t in zip(pieces, texts, strict=True) if t is None])
        return
    for key, value in vars(node).items():
        if not key.startswith("_"):
            yield from _built_patterns(value)


def _join_pieces(node: Any) -> tuple[list[Any], str] | None:
    """For `$join([...])` or `$join([...], "sep")`: the array's items and the separator."""
    if getattr(node, "type", None) != "function":
        return None
    procedure = getattr(node, "procedure", None)
    if getattr(procedure, "type", None) != "variable" or getattr(procedure, "value", "") != "join":
        return None
    arguments = list(getattr(node, "arguments", None) or [])
    if not arguments or getattr(arguments[0], "type", None) != "unary":
        return None
    if getattr(arguments[0], "value", None) != "[":
        return None
    separator = ""
    if len(arguments) > 1:
        if getattr(arguments[1], "type", None) != "string":
            return None
        separator = arguments[1].value
    return list(getattr(arguments[0], "expressions", None) or []), separator
