"""A hook's target info from the project's own files, as the official dry-run reads it offline.

`cfn submit` asks the registry (ListTypes, DescribeType) for the schema of every type a hook
targets, and falls back to `target-schemas/*.json` (one resource schema each) and
`target-info.json` in the project. This is that local path (rpdk/core/type_schema_loader.py,
load_type_info), so the package holds the same target-info.json; the hook kind may supply
schemas it finds elsewhere (cfn-lint's bundled ones) instead.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError
from cfngen._project import Project
from cfngen._schema import load_object

TARGET_SCHEMAS = "target-schemas"
TARGET_INFO = "target-info.json"
#: Targets that are no resource type and have no schema.
_SPECIAL = frozenset({"STACK", "CHANGE_SET", "CLOUD_CONTROL"})


def local_target_info(project: Project) -> dict[str, Any]:
    schema = load_object(project.schema_path, "fix the hook's schema")
    handlers = schema.get("handlers")
    names: set[str] = set()
    for handler in handlers.values() if isinstance(handlers, dict) else ():
        if isinstance(handler, dict):
            names.update(str(n) for n in handler.get("targetNames", []) if n not in _SPECIAL)
    schemas = _local_schemas(project.root / TARGET_SCHEMAS)
    info_path = project.root / TARGET_INFO
    local = load_object(info_path, "fix target-info.json") if info_path.is_file() else {}
    targets: list[str] = []
    for name in sorted(names):
        if "*" in name or "?" in name:
            targets += sorted(t for t in {*schemas, *local} if fnmatch.fnmatchcase(t, name))
        else:
            targets.append(name)
    info: dict[str, Any] = {}
    for target in dict.fromkeys(targets):
        entry: dict[str, Any] = {"TypeName": target, "TargetName": target, "TargetType": "RESOURCE"}
        if isinstance(local.get(target), dict):
            entry.update(local[target])
        if "Schema" not in entry and target in schemas:
            entry["Schema"] = schemas[target]
        if not entry.get("Schema"):
            raise CfngenError(
                f"no schema for the hook's target {target}",
                f"put its resource schema in {TARGET_SCHEMAS}/ "
                f"({'-'.join(target.split('::')).lower()}.json)",
            )
        entry["IsCfnRegistrySupportedType"] = True
        entry["SchemaFileAvailable"] = True
        info[target] = entry
    return info


def _local_schemas(folder: Path) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        data = load_object(path, "keep one resource schema (a JSON object) per file")
        name = data.get("typeName")
        if isinstance(name, str):
            found[name] = data
    return found
