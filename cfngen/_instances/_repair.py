"""The repair loop: a first instance of the resource schema, then each invalid part made again
(deepest first; a part out of strategies hands over to its parent) until the instance is valid
or the rounds run out."""

from __future__ import annotations

from typing import Any

from cfngen._instances import _conformance
from cfngen._instances._scalars import MISSING, _strategies
from cfngen._instances._values import MAX_ROUNDS, Builder, Path


def instance(builder: Builder, schema: Any) -> tuple[Any, list[Any]]:
    """An instance of `schema` (the resource) and the errors left (empty: it is valid)."""
    result = builder.value(schema, (), 0)
    errors: list[Any] = []
    for _ in range(MAX_ROUNDS):
        if result is MISSING:
            result = {}
        errors = _conformance.iter_errors(builder.validator, result)
        if not errors:
            return result, []
        targets = []
        for error in errors:
            where = tuple(error.absolute_path)
            while where and where not in builder.nodes:
                where = where[:-1]
            if where not in targets:
                targets.append(where)
        # Deepest first; a parent is regenerated as a whole, so skip what lies below it.
        targets.sort(key=len, reverse=True)
        done: list[Path] = []
        for where in targets:
            if any(where[: len(d)] == d for d in done):
                continue
            result, redone = _repair(builder, result, where)
            done.append(redone)
            if result is MISSING:
                break
    return result, errors


def _repair(builder: Builder, instance: Any, where: Path) -> tuple[Any, Path]:
    node = builder.nodes.get(where)
    if node is None:
        return instance, where
    limit = _strategies(builder.effective(node.schema))
    tries = builder.attempts.get(where, 0) + 1
    builder.attempts[where] = tries
    if tries >= limit and where:
        # Out of strategies here: let the parent try its next one (which may drop us).
        # Our count stays spent, so when the parent makes us again and we fail again, the
        # parent moves on at once: rounds add up along a path instead of multiplying.
        parent = where[:-1]
        while parent and parent not in builder.nodes:
            parent = parent[:-1]
        return _repair(builder, instance, parent)
    _forget(builder, where)
    value = builder.value(node.schema, where, node.depth, node.required)
    if not where:
        return value, where
    try:
        container = _get(instance, where[:-1])
    except (KeyError, IndexError, TypeError):
        return instance, where
    key = where[-1]
    if value is MISSING:
        if isinstance(container, dict) and not node.required:
            container.pop(key, None)
            return instance, where
        return (
            _repair(builder, instance, where[:-1])
            if where[:-1] in builder.nodes
            else (
                instance,
                where,
            )
        )
    if isinstance(container, dict) or (
        isinstance(container, list) and isinstance(key, int) and key < len(container)
    ):
        container[key] = value  # type: ignore[index]
    return instance, where


def _forget(builder: Builder, where: Path) -> None:
    for path in [p for p in builder.nodes if p[: len(where)] == where and p != where]:
        del builder.nodes[path]


def _get(instance: Any, path: Path) -> Any:
    for key in path:
        instance = instance[key]
    return instance
