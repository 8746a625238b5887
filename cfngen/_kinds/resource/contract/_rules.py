"""The handler contract's rules about models, as pure functions over JSON data.

Paths are a schema's JSON pointers without the leading `/properties` (`/properties/Tags/*/Key`
becomes ("Tags", "*", "Key")); `*` stands for every item of an array.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from cfngen._errors import CfngenError
from cfngen._kinds._shared._transforms import Judgement, Transform, covers, judge
from cfngen._kinds.resource._view import PropertyPath, ResourceSchema
from cfngen._project import Project
from cfngen._schema import join_pointer

Path = PropertyPath


class _Missing:
    def __repr__(self) -> str:
        return "(missing)"


MISSING: Any = _Missing()


def read_schema(project: Project) -> ResourceSchema:
    """The project's resource schema, as the contract tests and `cfngen invoke` read it:
    validated first, as every rule below trusts its shape (a schema with errors is a usage
    error that names the first one)."""
    from cfngen._validate import validate_file

    report = validate_file(project.schema_path, kind=project.kind)
    errors = [d for d in report.diagnostics if d.severity == "error"]
    if errors or report.schema is None:
        first = errors[0] if errors else None
        where = f" ({first.pointer or '/'}: {first.message})" if first else ""
        raise CfngenError(
            f"{project.schema_path.name} is not a valid resource schema{where}; the handlers "
            "cannot be run against it",
            "run `cfngen validate` and fix what it lists, then `cfngen generate`",
        )
    return ResourceSchema(report.schema, base_dir=project.root)


def pointer(path: Path) -> str:
    return join_pointer("", *path)


# --------------------------------------------------------------------------- paths in models


def values_at(model: Any, path: Path, _done: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every (concrete path, value) that `path` reaches in `model`; `*` fans out over lists."""
    if not path:
        yield _done, model
        return
    head, rest = path[0], path[1:]
    if head == "*":
        if isinstance(model, list):
            for index, item in enumerate(model):
                yield from values_at(item, rest, (*_done, str(index)))
        return
    if isinstance(model, dict) and head in model:
        yield from values_at(model[head], rest, (*_done, head))
    elif isinstance(model, list) and head.isdigit() and int(head) < len(model):
        yield from values_at(model[int(head)], rest, (*_done, head))


def get(model: Any, path: Path) -> Any:
    found = list(values_at(model, path))
    return found[0][1] if found else MISSING


def set_value(model: dict[str, Any], path: Path, value: Any) -> bool:
    """Set the value at a concrete path whose parent exists; False when it does not."""
    parent: Any = model
    for token in path[:-1]:
        if isinstance(parent, dict) and token in parent:
            parent = parent[token]
        elif isinstance(parent, list) and token.isdigit() and int(token) < len(parent):
            parent = parent[int(token)]
        else:
            return False
    if isinstance(parent, dict):
        parent[path[-1]] = value
        return True
    if isinstance(parent, list) and path[-1].isdigit() and int(path[-1]) < len(parent):
        parent[int(path[-1])] = value
        return True
    return False


def pruned(model: dict[str, Any], paths: tuple[Path, ...]) -> dict[str, Any]:
    """A copy of `model` without the properties at `paths`."""
    out = copy.deepcopy(model)
    for path in paths:
        # Deepest and highest-numbered first, so earlier deletions move nothing still to do.
        found = [concrete for concrete, _ in values_at(out, path)]
        for concrete in sorted(found, key=_path_order, reverse=True):
            _delete(out, concrete)
    return out


def _path_order(path: Path) -> tuple[tuple[int, str], ...]:
    return tuple((int(t), "") if t.isdigit() else (-1, t) for t in path)


def _delete(model: Any, path: Path) -> None:
    parent: Any = model
    for token in path[:-1]:
        parent = parent[int(token)] if isinstance(parent, list) else parent[token]
    if isinstance(parent, list):
        del parent[int(path[-1])]
    else:
        del parent[path[-1]]


def present(value: Any) -> bool:
    return value is not MISSING and value is not None and value != ""


# --------------------------------------------------------------------------- rules


def missing_identifiers(info: ResourceSchema, model: Any) -> list[str]:
    """primaryIdentifier properties absent (or empty) from a model."""
    if not isinstance(model, dict):
        return [pointer(path) for path in info.primary]
    return [pointer(path) for path in info.primary if not present(get(model, path))]


def identifier(info: ResourceSchema, model: Any) -> tuple[str, ...] | None:
    """The primaryIdentifier values of a model, comparable; None when one is missing."""
    if not isinstance(model, dict) or missing_identifiers(info, model):
        return None
    return tuple(_canonical(get(model, path)) for path in info.primary)


def same_identifier(info: ResourceSchema, a: Any, b: Any) -> bool:
    mine = identifier(info, a)
    return bool(info.primary) and mine is not None and mine == identifier(info, b)


def write_only_returned(info: ResourceSchema, model: Any) -> list[str]:
    return [
        pointer(concrete)
        for path in info.write_only
        for concrete, value in values_at(model, path)
        if value is not None
    ]


def identifiers_of(info: ResourceSchema, model: dict[str, Any]) -> dict[str, Any]:
    """The top-level properties of `model` that are part of an identifier (as `cfn test`)."""
    keys = {path[0] for path in info.primary}
    keys.update(path[0] for group in info.additional for path in group)
    return {key: value for key, value in model.items() if key in keys}


def tags_of(info: ResourceSchema, model: Any) -> dict[str, Any] | None:
    """The tags of a model as CloudFormation sends them in desiredResourceTags: a map, from a
    list of {Key, Value} or a map at the tagProperty; None when there are none."""
    tags = model.get(info.tag_property) if isinstance(model, dict) else None
    if isinstance(tags, dict):
        return {str(key): value for key, value in tags.items()}
    if isinstance(tags, list):
        pairs = [t for t in tags if isinstance(t, dict) and isinstance(t.get("Key"), str)]
        return {t["Key"]: t.get("Value") for t in pairs} or None
    return None


def differences(
    info: ResourceSchema,
    expected: dict[str, Any],
    actual: Any,
    transformed: TransformLog | None = None,
) -> list[tuple[str, Any, Any]]:
    """Where a returned model does not carry what the request asked for.

    As `cfn test`: readOnly and writeOnly properties of the input are not compared; the output
    may hold more (readOnly values, defaults); arrays declared `insertionOrder: false` are
    compared as multisets, at every level. Unlike it, a property the schema's
    `propertyTransform` covers is in sync when an alternative makes it so, as drift detection
    reads it (_transforms.py); `transformed` (when given) gets each such judgement.
    """
    wanted = pruned(expected, info.read_only + info.write_only)
    got = actual if isinstance(actual, dict) else {}
    out: list[tuple[str, Any, Any]] = []
    log = TransformLog() if transformed is None else transformed
    _compare(
        info, wanted, got, (), out, drift=_Drift(info, expected, log) if info.transforms else None
    )
    return out


class TransformLog:
    """The properties a transform was judged for: in sync by one of its alternatives, or still
    different (with the alternatives that failed, which the failure names)."""

    def __init__(self) -> None:
        self.in_sync: list[tuple[str, Judgement]] = []
        self.different: list[tuple[str, Judgement]] = []

    def extend(self, other: TransformLog) -> None:
        self.in_sync.extend(other.in_sync)
        self.different.extend(other.different)

    def failures(self) -> list[str]:
        """A line per alternative that failed where the property stayed different."""
        return [
            f"propertyTransform {judgement.transform.key} at {where}: alternative "
            f"{e.alternative.number} ({e.alternative.text}) failed on the {e.scope}: {e.error}"
            for where, judgement in self.different
            for e in judgement.errors
        ]


@dataclass
class _Drift:
    """What a comparison needs to judge a property by its transform: the template's model."""

    info: ResourceSchema
    root: dict[str, Any]
    log: TransformLog

    def at(self, path: Path) -> Transform | None:
        return next((t for t in self.info.transforms if covers(t.path or (), path)), None)

    def judge(self, transform: Transform, path: Path, got: Any) -> bool:
        parent = get(self.root, path[:-1])
        read = None if got is MISSING else got
        judgement = judge(transform, self.root, parent, read)
        where = pointer(path)
        if judgement.in_sync is not None:
            self.log.in_sync.append((where, judgement))
            return True
        self.log.different.append((where, judgement))
        return False

    def scratch(self) -> _Drift:
        return _Drift(self.info, self.root, TransformLog())


def _compare(
    info: ResourceSchema,
    wanted: Any,
    got: Any,
    path: Path,
    out: list[tuple[str, Any, Any]],
    *,
    drift: _Drift | None = None,
) -> None:
    transform = drift.at(path) if drift is not None and path else None
    if transform is None:
        _compare_values(info, wanted, got, path, out, drift=drift)
        return
    assert drift is not None
    found: list[tuple[str, Any, Any]] = []
    _compare_values(info, wanted, got, path, found, drift=drift)
    if found and not drift.judge(transform, path, got):
        out.extend(found)


def _compare_values(
    info: ResourceSchema,
    wanted: Any,
    got: Any,
    path: Path,
    out: list[tuple[str, Any, Any]],
    *,
    drift: _Drift | None,
) -> None:
    if isinstance(wanted, dict):
        if not isinstance(got, dict):
            out.append((pointer(path), wanted, got))
            return
        for key, value in wanted.items():
            _compare(info, value, got.get(key, MISSING), (*path, key), out, drift=drift)
        return
    if isinstance(wanted, list):
        if not isinstance(got, list):
            out.append((pointer(path), wanted, got))
            return
        if _insertion_order(info, path) is False:
            _compare_unordered(info, wanted, got, path, out, drift=drift)
            return
        for index, (a, b) in enumerate(zip(wanted, got, strict=False)):
            _compare(info, a, b, (*path, str(index)), out, drift=drift)
        # Items one side has beyond the other's end, each named by its index.
        for index in range(len(got), len(wanted)):
            out.append((pointer((*path, str(index))), wanted[index], MISSING))
        for index in range(len(wanted), len(got)):
            out.append((pointer((*path, str(index))), MISSING, got[index]))
        return
    if _canonical(wanted) != _canonical(got):
        out.append((pointer(path), wanted, got))


def _compare_unordered(
    info: ResourceSchema,
    wanted: list[Any],
    got: list[Any],
    path: Path,
    out: list[Any],
    *,
    drift: _Drift | None,
) -> None:
    """An `insertionOrder: false` array: each wanted item must match its own returned item by
    the same rules as the whole model (so arrays nested in the items are unordered too where
    the schema says so, and items may hold more, e.g. readOnly values). A difference names the
    item: its closest unmatched counterpart's differences, or the item as missing."""
    tried: dict[tuple[int, int], tuple[list[tuple[str, Any, Any]], _Drift | None]] = {}

    def rows(i: int, j: int) -> list[tuple[str, Any, Any]]:
        # Each pairing judged apart: only the pairs kept report their transforms.
        if (i, j) not in tried:
            found: list[tuple[str, Any, Any]] = []
            mine = drift.scratch() if drift is not None else None
            _compare(info, wanted[i], got[j], (*path, str(i)), found, drift=mine)
            tried[i, j] = (found, mine)
        return tried[i, j][0]

    def keep(i: int, j: int) -> None:
        mine = tried[i, j][1]
        if drift is not None and mine is not None:
            drift.log.extend(mine.log)

    matches = [[not rows(i, j) for j in range(len(got))] for i in range(len(wanted))]
    owner: dict[int, int] = {}  # got index -> wanted index

    def assign(i: int, seen: set[int]) -> bool:
        # Kuhn's augmenting path: a greedy match could pair an item with the one that a
        # later, stricter item needs.
        for j, ok in enumerate(matches[i]):
            if ok and j not in seen:
                seen.add(j)
                if j not in owner or assign(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    unmatched = [i for i in range(len(wanted)) if not assign(i, set())]
    for j, i in sorted(owner.items()):
        keep(i, j)
    free = [j for j in range(len(got)) if j not in owner]
    for i in unmatched:
        if not free:
            out.append((pointer((*path, str(i))), wanted[i], MISSING))
            continue
        j = min(free, key=lambda j: len(rows(i, j)))
        free.remove(j)
        out.extend(rows(i, j))
        keep(i, j)
    for j in free:
        out.append((pointer((*path, str(j))), MISSING, got[j]))


def _canonical(value: Any) -> str:
    if value is MISSING:
        return "\0missing"
    return json.dumps(value, sort_keys=True)


def _insertion_order(info: ResourceSchema, path: Path) -> Any:
    node = info.subschema(path)
    return node.get("insertionOrder", True) if node is not None else True


# --------------------------------------------------------------------------- conformance


class Conformance:
    """Whether models match the resource schema (cfngen._instances.model_errors), for one
    schema checked many times."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema

    def errors(self, model: Any, *, partial: bool = True) -> list[tuple[str, str]]:
        if not isinstance(model, dict):
            return []
        from cfngen._instances import model_errors

        return list(model_errors(self.schema, model, partial=partial))
