"""Which targets of a hook get a model, and the schema each is modelled from.

Every type the schema names, from `target-schemas/` (a project's pinned or private schemas),
`target-info.json` (the official tool's file), or the schemas cfn-lint bundles. A wildcard can
match hundreds of types (`AWS::*` matches 1,854): a module for each would cost minutes and
megabytes for models no code reads, so a type matched only by a wildcard gets its module when the
project's code imports it (`target_models.aws_s3_accesspoint`) or its schema is in
`target-schemas/`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cfngen import _schema
from cfngen._errors import CfngenError
from cfngen._kinds._shared import _targets
from cfngen._kinds._shared._targets import target_names

TARGET_SCHEMAS = "target-schemas"
TARGET_INFO = "target-info.json"


def _local_schemas(inputs: Mapping[str, bytes | None]) -> dict[str, Any]:
    """Target schemas the project holds: target-info.json's, then target-schemas/ (which
    wins, as a pinned copy), by type name.
    A file of target-schemas/ that is the bundled schema byte for byte is cfngen's copy, not
    the user's: it is left out.

    A file there that is no schema is an error, as it is to the official tool (its
    TypeSchemaLoader refuses it): ignoring it would model, test and package the bundled schema
    of a type the user meant to pin, silently. Like the official loader, a file may hold one
    schema or a list of them."""
    schemas: dict[str, Any] = {}
    info = inputs.get(TARGET_INFO)
    if info is not None:
        try:
            data = _schema.loads(info.decode("utf-8")).data
        except ValueError as exc:
            raise CfngenError(
                f"{TARGET_INFO} is not valid JSON ({exc})",
                "fix it, or delete it: cfngen finds the schemas of AWS types itself",
            ) from None
        for name, entry in data.items() if isinstance(data, dict) else []:
            found = entry.get("Schema") if isinstance(entry, dict) else None
            if isinstance(found, str):
                try:
                    found = _schema.loads(found).data
                except ValueError:
                    found = None
            if isinstance(found, dict):
                schemas[name] = found
    for key, data in sorted(inputs.items()):
        if not key.startswith(TARGET_SCHEMAS + "/") or data is None:
            continue
        for found in _pinned_schemas(key, data):
            name = found["typeName"]
            bundled = _targets.bundled_schema_text(name)
            if bundled is not None and data == bundled.encode("utf-8"):
                continue
            schemas[name] = found
    return schemas


def _pinned_schemas(key: str, data: bytes) -> list[dict[str, Any]]:
    """The schemas one file of target-schemas/ holds (CfngenError when it holds none)."""
    hint = (
        "keep one resource schema (a JSON object with a typeName) per file, e.g. the "
        "registry's schema of the type; or delete the file to use the schema cfngen bundles"
    )
    try:
        found = _schema.loads(data.decode("utf-8")).data
    except ValueError as exc:
        raise CfngenError(f"{key} is not valid JSON ({exc})", hint) from None
    items = found if isinstance(found, list) else [found]
    if not items or not all(
        isinstance(item, dict) and isinstance(item.get("typeName"), str) for item in items
    ):
        raise CfngenError(f"{key} is not a resource schema: it has no typeName", hint)
    return items


def modelled_targets(
    schema: dict[str, Any], inputs: Mapping[str, bytes | None]
) -> tuple[dict[str, dict[str, Any]], set[str], list[str]]:
    """Type name -> schema of every target that gets a model, the types whose schema the
    project holds itself, and what the user should know."""
    local = _local_schemas(inputs)
    warnings: list[str] = []
    imports = set((inputs.get("imports") or b"").decode().split())
    known = sorted(set(_targets.bundled_types()) | set(local))
    chosen: dict[str, dict[str, Any]] = {}

    def add(name: str) -> bool:
        found = local.get(name) or _targets.bundled_schema(name)
        if found is not None:
            chosen[name] = found
        return found is not None

    for name in target_names(schema):
        if name in _targets.SPECIAL_TARGETS:
            continue
        if _targets.is_wildcard(name):
            for match in _targets.matches(name, known):
                if match in local or _targets.module_name(match) in imports:
                    add(match)
        elif not add(name):
            warnings.append(
                f"no schema for the target {name}, so it has no typed model: put its schema "
                f"in {TARGET_SCHEMAS}/"
            )
    return dict(sorted(chosen.items())), set(local), warnings
