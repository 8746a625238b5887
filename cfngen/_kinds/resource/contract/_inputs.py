"""The models the contract tests send: `inputs/` files as `cfn test` reads them, or models
generated from the schema (with `overrides.json` applied, as `cfn test` does).

`inputs/inputs_N_create.json`, `inputs_N_update.json` and `inputs_N_invalid.json` make set N;
sets are read from N=1 up to the first N with no file, and the whole suite runs once per set.
Unlike `cfn test`, `inputs_1_` never matches `inputs_10_create.json`.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen import _schema
from cfngen._errors import CfngenError
from cfngen._kinds.resource._view import ResourceSchema
from cfngen._kinds.resource.contract import _exports
from cfngen._kinds.resource.contract._rules import MISSING, get, identifiers_of, pointer, set_value

INPUTS_DIR = "inputs"
OVERRIDES_FILE = "overrides.json"
_FILE = re.compile(r"^inputs_(\d+)_(.+)\.json$")


@dataclass
class InputSet:
    create: dict[str, Any]
    update: dict[str, Any] | None
    invalid: dict[str, Any] | None
    #: "inputs_2" when read from files, None when generated.
    label: str | None = None
    files: dict[str, Path] = field(default_factory=dict)
    #: The kinds whose file `cfngen generate` wrote and nobody edited since (derived from the
    #: schema: the tests use them as the schema makes them now, and never blame the user).
    derived: set[str] = field(default_factory=set)

    def user_owned(self, kind: str) -> bool:
        return kind in self.files and kind not in self.derived

    @property
    def generated(self) -> bool:
        return self.label is None

    def missing(self, kind: str) -> str:
        """Why a test that needs the `kind` input is skipped, naming the input looked for."""
        if self.generated:
            return (
                f"no {kind} input: the one generated from the schema is empty "
                f"(write {INPUTS_DIR}/inputs_1_{kind}.json)"
            )
        return f"no {kind} input ({INPUTS_DIR}/{self.label}_{kind}.json is missing)"

    def source(self, kind: str) -> str:
        path = self.files.get(kind)
        return f"{INPUTS_DIR}/{path.name}" if path else "the input generated from the schema"


def load_input_sets(
    root: Path, info: ResourceSchema, exports: Mapping[str, Any] | None = None
) -> tuple[list[InputSet], list[str]]:
    """The input sets to run the suite with, and warnings about files that were ignored and
    about `{{Export}}` placeholders no value was given for (`exports`: name -> value)."""
    warnings: list[str] = []
    placeholders = _exports.Exports(exports or {})
    sets = _from_files(root / INPUTS_DIR, info, placeholders)
    _refresh_derived(root, info, sets, warnings)
    if sets:
        if (root / OVERRIDES_FILE).is_file():
            warnings.append(f"{OVERRIDES_FILE} is ignored: it applies to generated inputs only")
        return sets, warnings + placeholders.notes()
    overrides = _overrides(root / OVERRIDES_FILE, warnings, placeholders, info)
    return [_generated(info, overrides)], warnings + placeholders.notes()


def _from_files(folder: Path, info: ResourceSchema, exports: _exports.Exports) -> list[InputSet]:
    if not folder.is_dir():
        return []
    by_number: dict[int, dict[str, Path]] = {}
    for path in sorted(folder.iterdir()):
        match = _FILE.match(path.name)
        if not match or not path.is_file():
            continue
        kind = _kind(match.group(2))
        if kind is not None:
            by_number.setdefault(int(match.group(1)), {})[kind] = path
    sets: list[InputSet] = []
    number = 1
    while number in by_number:
        files = by_number[number]
        if "create" not in files:
            found = ", ".join(path.name for path in files.values())
            raise CfngenError(
                f"{folder}: input set {number} has no inputs_{number}_create.json ({found})",
                "every input set starts with a create input",
            )
        loaded = {
            kind: _exports.load(
                path, "fix the file", exports, info=info, display=f"{INPUTS_DIR}/{path.name}"
            )
            for kind, path in files.items()
        }
        sets.append(
            InputSet(
                create=loaded["create"],
                update=loaded.get("update"),
                invalid=loaded.get("invalid"),
                label=f"inputs_{number}",
                files=files,
            )
        )
        number += 1
    return sets


def _refresh_derived(
    root: Path, info: ResourceSchema, sets: list[InputSet], warnings: list[str]
) -> None:
    """Inputs `cfngen generate` wrote and nobody edited (by the manifest's hash) are a function
    of the schema: after a schema edit without a generate, use them as the schema makes them
    now, rather than blame the handler for a stale input."""
    from cfngen._files import read_optional, sha256
    from cfngen._files._ownership import MANIFEST_PATH, load_manifest

    if not sets or not (root / MANIFEST_PATH).is_file():
        return
    manifest = load_manifest(root, lambda path: path.startswith(f"{INPUTS_DIR}/"))
    fresh: dict[str, Any] | None = None
    for input_set in sets:
        for kind, path in input_set.files.items():
            recorded = manifest.files.get(f"{INPUTS_DIR}/{path.name}")
            data = read_optional(path)
            if recorded is None or data is None or sha256(data) != recorded:
                continue
            input_set.derived.add(kind)
            if fresh is None:
                from cfngen._instances import example_inputs

                try:
                    fresh = example_inputs(info.schema)
                except Exception:  # the file is what generate made of the schema then
                    return
            if fresh.get(kind) is not None and fresh[kind] != getattr(input_set, kind):
                setattr(input_set, kind, copy.deepcopy(fresh[kind]))
                warnings.append(
                    f"{INPUTS_DIR}/{path.name} is out of date (the schema changed since `cfngen "
                    "generate` wrote it): the tests use the input the schema makes now; run "
                    "`cfngen generate`"
                )


def check_user_inputs(info: ResourceSchema, inputs: InputSet) -> None:
    """A create or update input the user wrote that breaks the schema, or an update input that
    changes a createOnly property: a usage error before any handler runs (the input is wrong,
    not the handler)."""
    from cfngen._instances import input_errors, model_errors

    for kind in ("create", "update"):
        model = getattr(inputs, kind)
        if model is None or not inputs.user_owned(kind):
            continue
        errors = (
            input_errors(info.schema, model)
            if kind == "create"
            else model_errors(info.schema, model, partial=True)
        )
        if errors:
            listed = "; ".join(f"{where or '/'}: {why}" for where, why in errors[:3])
            more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
            raise CfngenError(
                f"{inputs.source(kind)} does not match the schema: {listed}{more}",
                _FIX_INPUT,
            )
    if inputs.update is None or not inputs.user_owned("update"):
        return
    for path in info.create_only:
        if "*" in path:
            continue
        before, after = get(inputs.create, path), get(inputs.update, path)
        if before is not MISSING and after is not MISSING and before != after:
            raise CfngenError(
                f"{inputs.source('update')} changes the createOnly property {pointer(path)} "
                f"({json.dumps(before)} in {inputs.source('create')}, {json.dumps(after)} "
                "here); CloudFormation replaces a resource rather than update such a property",
                "give it the create input's value in the update input; " + _FIX_INPUT,
            )


_FIX_INPUT = (
    "the input is wrong, not the handler: fix the file, or delete it and run `cfngen generate`, "
    "which writes one from the schema"
)


def _kind(rest: str) -> str | None:
    # The order of `cfn test`'s get_type; "pre_*" files belong to hooks.
    if "pre_" in rest:
        return None
    for kind in ("create", "update", "invalid"):
        if kind in rest:
            return kind
    return None


def _override_path(at: tuple[str, ...]) -> tuple[str, ...] | None:
    """The model path of a value in overrides.json: {"CREATE": {"/Tags/0/Key": ...}}."""
    if len(at) < 2 or not at[1].startswith("/"):
        return None
    return (*_schema.pointer_tokens(at[1]), *at[2:])


def _overrides(
    path: Path, warnings: list[str], exports: _exports.Exports, info: ResourceSchema
) -> dict[str, dict[tuple[str, ...], Any]]:
    if not path.is_file():
        return {}
    data = _exports.load(path, "fix the file", exports, info=info, model_path=_override_path)
    if (
        not data
        or set(data) - {"CREATE", "UPDATE"}
        or not all(isinstance(v, dict) for v in data.values())
    ):
        warnings.append(
            f"{OVERRIDES_FILE} is ignored: it must be an object with CREATE and/or UPDATE, "
            'each mapping JSON pointers to values, e.g. {"CREATE": {"/Name": "x"}}'
        )
        return {}
    out: dict[str, dict[tuple[str, ...], Any]] = {}
    for action, items in data.items():
        out[action] = {}
        for key, value in items.items():
            if not key.startswith("/"):
                warnings.append(f"{OVERRIDES_FILE}: {action} key {key!r} is not a JSON pointer")
                continue
            out[action][tuple(_schema.pointer_tokens(key))] = value
    return out


def _apply(model: dict[str, Any], overrides: dict[tuple[str, ...], Any]) -> dict[str, Any]:
    out = copy.deepcopy(model)
    for path, value in overrides.items():
        set_value(out, path, copy.deepcopy(value))
    return out


def _generated(info: ResourceSchema, overrides: dict[str, dict[tuple[str, ...], Any]]) -> InputSet:
    from cfngen._instances import example_inputs

    try:
        examples = example_inputs(info.schema)
    except CfngenError:
        raise
    except Exception as exc:
        raise CfngenError(
            f"cannot generate example inputs from the schema: {type(exc).__name__}: {exc}",
            "write inputs/inputs_1_create.json, inputs_1_update.json and inputs_1_invalid.json",
        ) from None
    create_overrides = overrides.get("CREATE", {})
    update_overrides = overrides.get("UPDATE", create_overrides)
    return InputSet(
        create=_apply(examples["create"], create_overrides),
        update=_apply(examples["update"], update_overrides) if examples.get("update") else None,
        invalid=_apply(examples["invalid"], create_overrides) if examples.get("invalid") else None,
    )


class InputProblem(Exception):
    """The inputs themselves break a rule (not the handler)."""


def update_request(
    info: ResourceSchema, inputs: InputSet, current: dict[str, Any]
) -> dict[str, Any]:
    """The UPDATE model for a resource whose current model is `current`, as `cfn test` builds it.

    From files: the update input, with the identifiers of `current` and its top-level readOnly
    properties. Generated: `current` with the generated update on top.
    """
    assert inputs.update is not None
    update = copy.deepcopy(inputs.update)
    if inputs.generated:
        return {**copy.deepcopy(current), **update}
    for path in info.primary:
        if path not in info.create_only or len(path) != 1:
            continue
        key = path[0]
        if key in update and key in current and update[key] != current[key]:
            raise InputProblem(
                f"{inputs.source('update')} changes the createOnly identifier {pointer(path)} "
                f"({current[key]!r} -> {update[key]!r}); an update input must keep it"
            )
    update.update(identifiers_of(info, current))
    read_only = {
        key: copy.deepcopy(value) for key, value in current.items() if (key,) in info.read_only
    }
    return {**read_only, **update}
