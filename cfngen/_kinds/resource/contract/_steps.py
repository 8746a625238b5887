"""Steps the resource contract tests share: the model after an update or a delete, the
identifiers shown in messages, an invalid input, a createOnly property changed for
NotUpdatable, and why a test is skipped when the schema gives it nothing to work with.
"""

from __future__ import annotations

import copy
from typing import Any

from cfngen._contract._results import Failed, Skipped
from cfngen._kinds.resource.contract import _rules
from cfngen._kinds.resource.contract._case import Case
from cfngen._kinds.resource.contract._messages import (
    R_KEEP_ID,
    as_json,
    explain,
)
from cfngen._kinds.resource.contract._rules import pointer

_NO_WRITABLE_ID = (
    "the user sets no identifier (no createOnly primaryIdentifier, no additionalIdentifier "
    "without readOnly parts): creating the same model twice makes two resources"
)


def _ids(case: Case, model: dict[str, Any]) -> str:
    return as_json(_rules.identifiers_of(case.info, model))


def _updated(case: Case) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    if case.inputs.update is None:
        raise Skipped(case.inputs.missing("update"))
    created = case.create(case.create_input)
    request = case.update_input(created)
    outcome = case.succeed("UPDATE", request, created)
    case.same("UPDATE", request, outcome)
    updated: dict[str, Any] = outcome.response["resourceModel"]
    if not _rules.same_identifier(case.info, created, updated):
        raise Failed(
            explain(
                "UPDATE returned another primaryIdentifier than CREATE",
                R_KEEP_ID,
                sent=request,
                outcome=outcome,
                table=[
                    (pointer(p), _rules.get(created, p), _rules.get(updated, p))
                    for p in case.info.primary
                ],
            )
        )
    return created, request, updated


def _deleted(case: Case, request: dict[str, Any] | None = None) -> dict[str, Any]:
    created = case.create(request if request is not None else case.create_input)
    case.succeed("DELETE", created)
    return created


def _needs_tagging(case: Case, *, updatable: bool) -> None:
    if not case.info.tagging:
        raise Skipped("the schema has no tagging metadata")
    if not case.info.taggable:
        raise Skipped("the resource is not taggable")
    if updatable and not case.info.tag_updatable:
        raise Skipped("the resource's tags are not updatable")


def _invalid_input(case: Case) -> dict[str, Any]:
    invalid = case.inputs.invalid
    if invalid is None:
        raise Skipped(case.inputs.missing("invalid"))
    conformance = case.run.conformance
    if not conformance.errors(invalid, partial=False):
        raise Skipped(f"{case.inputs.source('invalid')} matches the schema: nothing to reject")
    return copy.deepcopy(invalid)


def _change_create_only(case: Case, update: dict[str, Any]) -> tuple[_rules.Path, Any, Any] | None:
    """Change one createOnly property of `update` to another valid value, in place.

    A property outside the primaryIdentifier first: then the handler finds the resource and
    has to notice the change itself.
    """
    paths = sorted(case.info.create_only, key=lambda p: p in case.info.primary)
    for path in paths:
        if "*" in path:
            continue
        old = _rules.get(update, path)
        if old is _rules.MISSING:
            continue
        node = case.info.subschema(path) or {}
        for new in _candidates(old, node):
            changed = copy.deepcopy(update)
            if not _rules.set_value(changed, path, new):
                break
            if not _valid_value(new, node) or case.run.conformance.errors(changed, partial=True):
                continue
            update.clear()
            update.update(changed)
            return path, old, new
    return None


def _candidates(old: Any, node: dict[str, Any]) -> list[Any]:
    enum = node.get("enum")
    if isinstance(enum, list):
        return [value for value in enum if value != old]
    if isinstance(old, bool):
        return [not old]
    if isinstance(old, (int, float)):
        return [old + 1, old - 1]
    if isinstance(old, str):
        out = []
        if old:
            for char in "bcdefgh1234":
                if old[-1] != char:
                    out.append(old[:-1] + char)
                    break
        return [*out, old + "2", old + "x", old[:-1] if len(old) > 1 else "x"]
    return []


def _valid_value(value: Any, node: dict[str, Any]) -> bool:
    from cfngen._patterns import PatternError, search

    if isinstance(value, str):
        if len(value) < node.get("minLength", 0) or len(value) > node.get("maxLength", 1 << 30):
            return False
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            try:
                return search(pattern, value)
            except PatternError:
                return True
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in node and value < node["minimum"]:
            return False
        if "maximum" in node and value > node["maximum"]:
            return False
    return True
