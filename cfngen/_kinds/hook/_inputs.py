"""The targets `cfngen test` sends a hook: `inputs/` as `cfn test` reads them, or documents
generated from the target schemas (with `overrides.json` applied, as `cfn test` does).

Files: `inputs/inputs_N_pre_create.json` (also `_pre_update`, `_pre_delete`) hold compliant
targets, `inputs_N_invalid_pre_create.json` (...) non-compliant ones, `inputs_N_invalid.json`
non-compliant ones for every point without its own file. Each maps a target to its document:
`{"AWS::S3::Bucket": {"resourceProperties": {...}, "previousResourceProperties": {...}}}`, and
for STACK and CHANGE_SET the document CloudFormation serves (`{"template": ...}`). Sets are read
from N=1 up to the first N without a file; the tests run once per set. `{{Name}}` placeholders
(CloudFormation exports, which `cfn test` looks up in the account) get a stand-in value
offline: `cfngen-export-Name`, or the value given with --export.
"""

from __future__ import annotations

import copy
import fnmatch
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen import _schema
from cfngen._contract._references import EXPORT
from cfngen._errors import CfngenError
from cfngen._kinds._shared import _targets
from cfngen._kinds.hook._hook_protocol import FILE_PART, POINTS, SPECIAL_TARGETS

INPUTS_DIR = "inputs"
OVERRIDES_FILE = "overrides.json"
_FILE = re.compile(r"^inputs_(\d+)_(.+)\.json$")
# `{{Name}}`, never a `{{resolve:...}}` dynamic reference.
_EXPORT = EXPORT
INVALID = "INVALID"
#: How many of the types a wildcard matches get generated documents (without inputs).
WILDCARD_SAMPLE = 3


@dataclass
class InputSet:
    #: "inputs_2" when read from files, None when generated.
    label: str | None
    #: point -> target -> document, for compliant targets.
    compliant: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: point -> target -> document, for non-compliant targets.
    non_compliant: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: point (or INVALID) and kind -> the file it came from.
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def generated(self) -> bool:
        return self.label is None

    def source(self, key: str) -> str:
        path = self.files.get(key)
        return f"{INPUTS_DIR}/{path.name}" if path else "a document generated from the schema"


def file_kind(rest: str) -> str | None:
    """`invalid_pre_create` -> INVALID_CREATE_PRE_PROVISION, ...: `cfn test`'s get_type."""
    for point in POINTS:
        if f"invalid_{FILE_PART[point]}" in rest:
            return f"{INVALID}_{point}"
    for point in POINTS:
        if FILE_PART[point] in rest:
            return point
    if "create" in rest or "update" in rest:
        return None  # a resource type's input
    return INVALID if INVALID.lower() in rest else None


def render_exports(text: str, exports: Mapping[str, Any], used: dict[str, str]) -> str:
    """`{{Name}}` placeholders replaced (`used` collects the names and the values given)."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1).strip()
        found = exports.get(name, f"cfngen-export-{name}")
        # --exports FILE may give any JSON value; the text stands where `cfn test` puts it.
        text = found if isinstance(found, str) else json.dumps(found)
        used[name] = text
        return text

    return _EXPORT.sub(value, text)


def _read(path: Path, exports: Mapping[str, str], used: dict[str, str]) -> dict[str, Any]:
    text = render_exports(_schema.read_text(path), exports, used)
    data = _schema.load_object(
        path, 'an input file maps targets to documents: {"AWS::S3::Bucket": {...}}', text=text
    )
    for target, document in data.items():
        if not isinstance(document, dict):
            raise CfngenError(
                f"{path}: {target} must map to a JSON object, not {type(document).__name__}",
                'e.g. {"AWS::S3::Bucket": {"resourceProperties": {"BucketName": "b"}}}',
            )
    return data


def from_files(
    root: Path, exports: Mapping[str, str], used: dict[str, str]
) -> tuple[list[InputSet], list[str]]:
    folder = root / INPUTS_DIR
    notes: list[str] = []
    if not folder.is_dir():
        return [], notes
    by_number: dict[int, dict[str, Path]] = {}
    for path in sorted(folder.iterdir()):
        match = _FILE.match(path.name)
        if not match or not path.is_file():
            continue
        kind = file_kind(match.group(2))
        if kind is None:
            notes.append(f"{INPUTS_DIR}/{path.name} is ignored: it is not a hook input file")
            continue
        by_number.setdefault(int(match.group(1)), {})[kind] = path
    sets: list[InputSet] = []
    number = 1
    while number in by_number:
        files = by_number[number]
        loaded = {kind: _read(path, exports, used) for kind, path in files.items()}
        input_set = InputSet(label=f"inputs_{number}", files=files)
        for point in POINTS:
            if point in loaded:
                input_set.compliant[point] = loaded[point]
            invalid = loaded.get(f"{INVALID}_{point}", loaded.get(INVALID))
            if invalid is not None:
                input_set.non_compliant[point] = invalid
                input_set.files.setdefault(
                    f"{INVALID}_{point}", files.get(f"{INVALID}_{point}") or files[INVALID]
                )
        sets.append(input_set)
        number += 1
    return sets, notes


# --------------------------------------------------------------------------- targets


def declared(schema: Mapping[str, Any], point: str) -> list[str]:
    handlers = schema.get("handlers")
    handler = handlers.get(_handler(point)) if isinstance(handlers, Mapping) else None
    names = handler.get("targetNames") if isinstance(handler, Mapping) else None
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def _handler(point: str) -> str:
    from cfngen._kinds.hook._hook_protocol import HANDLER_OF

    return HANDLER_OF[point]


def covers(names: list[str], target: str) -> bool:
    """Whether a target is one of the declared names (wildcards matched as the official tool
    matches them)."""
    return any(
        fnmatch.fnmatchcase(target, name) if _targets.is_wildcard(name) else target == name
        for name in names
    )


def has_wildcard(names: list[str]) -> bool:
    return any(_targets.is_wildcard(n) for n in names if n not in SPECIAL_TARGETS)


def sample(names: list[str]) -> tuple[list[str], list[str]]:
    """The targets generated documents are made for: every named type, and a few of the types
    each wildcard matches (a wildcard can match 1,854); and notes saying which."""
    known = _targets.bundled_types()
    chosen: list[str] = []
    notes: list[str] = []
    for name in names:
        if not _targets.is_wildcard(name):
            if name not in chosen:
                chosen.append(name)
            continue
        found = _targets.matches(name, known)
        picked = found[:: max(1, len(found) // WILDCARD_SAMPLE)][:WILDCARD_SAMPLE]
        chosen.extend(t for t in picked if t not in chosen)
        if len(found) > len(picked):
            notes.append(
                f"{name} matches {len(found)} types; generated documents test "
                f"{', '.join(picked)} (write inputs/ to choose)"
            )
    return chosen, notes


# --------------------------------------------------------------------------- generated


def _overrides(root: Path, notes: list[str]) -> dict[str, dict[str, Any]]:
    path = root / OVERRIDES_FILE
    if not path.is_file():
        return {}
    data = _schema.load_object(path, "overrides.json maps invocation points to targets")
    allowed = {*POINTS, *(f"{INVALID}_{p}" for p in POINTS), INVALID}
    unknown = sorted(set(data) - allowed)
    if unknown or not all(isinstance(v, dict) for v in data.values()):
        notes.append(
            f"{OVERRIDES_FILE} is ignored: its keys must be among {', '.join(sorted(allowed))}, "
            'each mapping targets to {"resourceProperties": {"/Pointer": value}}'
        )
        return {}
    return data


def _apply(document: dict[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(document)
    for key, pointers in overrides.items():
        if not isinstance(pointers, Mapping):
            continue
        node = out.setdefault(key, {})
        for pointer, value in pointers.items():
            tokens = _schema.pointer_tokens(pointer)
            target = node
            for token in tokens[:-1]:
                target = target.setdefault(token, {}) if isinstance(target, dict) else {}
            if tokens and isinstance(target, dict):
                target[tokens[-1]] = copy.deepcopy(value)
    return out


def _examples(type_name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A valid create and update model of a target type, from its schema ({} when cfngen
    cannot make one)."""
    schema = _targets.bundled_schema(type_name)
    if schema is None:
        return {}, {}
    try:
        from cfngen._instances import example_inputs

        made = example_inputs(schema)
    except Exception:  # a schema the example generator cannot serve: an empty model
        return {}, {}
    create = made.get("create") or {}
    return create, {**create, **(made.get("update") or {})}


def _generated_document(point: str, target: str) -> dict[str, Any]:
    if target == "STACK":
        template = {"Resources": {"Queue": {"Type": "AWS::SQS::Queue"}}}
        document: dict[str, Any] = {"template": template}
        if point == "UPDATE_PRE_PROVISION":
            document["previousTemplate"] = {"Resources": {}}
        return document
    if target == "CHANGE_SET":
        return {
            "template": {"Resources": {"Queue": {"Type": "AWS::SQS::Queue"}}},
            "changedResources": [
                {
                    "action": "CREATE",
                    "logicalResourceId": "Queue",
                    "resourceType": "AWS::SQS::Queue",
                    "lineNumber": 1,
                    "beforeContext": None,
                    "afterContext": json.dumps({"Properties": {}}),
                }
            ],
        }
    create, update = _examples(target)
    if point == "UPDATE_PRE_PROVISION":
        return {"resourceProperties": update, "previousResourceProperties": create}
    return {"resourceProperties": create}


def generated(root: Path, schema: Mapping[str, Any], notes: list[str]) -> InputSet:
    """Documents from the target schemas for every point: compliant ones (with overrides),
    and non-compliant ones only where overrides.json says what makes a target non-compliant
    (a random valid document is no evidence of non-compliance)."""
    overrides = _overrides(root, notes)
    input_set = InputSet(label=None)
    for point in POINTS:
        names, sample_notes = sample(declared(schema, point))
        notes.extend(n for n in sample_notes if n not in notes)
        invalid = overrides.get(f"{INVALID}_{point}", overrides.get(INVALID, {}))
        for target in names:
            document = _generated_document(point, target)
            own = overrides.get(point, {})
            if point == "UPDATE_PRE_PROVISION" and point not in overrides:
                own = overrides.get("CREATE_PRE_PROVISION", {})
            input_set.compliant.setdefault(point, {})[target] = _apply(
                document, own.get(target, {})
            )
            if target in invalid:
                input_set.non_compliant.setdefault(point, {})[target] = _apply(
                    document, invalid[target]
                )
    return input_set


def load_input_sets(
    root: Path, schema: Mapping[str, Any], exports: Mapping[str, str] | None = None
) -> tuple[list[InputSet], list[str]]:
    """The input sets to run the tests with, and notes about what was ignored or made up."""
    used: dict[str, str] = {}
    sets, notes = from_files(root, exports or {}, used)
    if sets:
        if (root / OVERRIDES_FILE).is_file():
            notes.append(f"{OVERRIDES_FILE} is ignored: it applies to generated documents only")
    else:
        sets = [generated(root, schema, notes)]
    stand_ins = sorted(name for name, value in used.items() if value == f"cfngen-export-{name}")
    if stand_ins:
        notes.append(
            "CloudFormation exports cannot be looked up offline; stand-in values: "
            + ", ".join(f"{{{{{name}}}}} = cfngen-export-{name}" for name in stand_ins)
            + " (give real ones with --export NAME=VALUE)"
        )
    return sets, notes
