"""What `cfngen build` puts in a hook's registry package beyond a resource's: target-info.json
and one schema per target under target-schemas/, as the official `cfn submit` writes them.

The official tool asks the registry (ListTypes for wildcards, DescribeType for schemas); here the
answers come from the project's own target-schemas/ and target-info.json, else from the schemas
cfn-lint bundles, so a hook builds offline. A wildcard expands to every type it matches, as
ListTypes would answer (AWS::S3::* to about thirty).
"""

from __future__ import annotations

from typing import Any

from cfngen._errors import CfngenError
from cfngen._kinds.hook import _targets
from cfngen._project import Project


def target_info(project: Project) -> dict[str, Any]:
    from cfngen._files import read_optional
    from cfngen._kinds.hook._target_schemas import TARGET_INFO, TARGET_SCHEMAS, _local_schemas
    from cfngen._kinds.hook._targets import target_names
    from cfngen._schema import load_object

    schema = load_object(project.schema_path, "fix the hook's schema")
    inputs: dict[str, bytes | None] = {TARGET_INFO: read_optional(project.root / TARGET_INFO)}
    folder = project.root / TARGET_SCHEMAS
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        inputs[f"{TARGET_SCHEMAS}/{path.name}"] = read_optional(path)
    local = _local_schemas(inputs)
    known = sorted(set(_targets.bundled_types()) | set(local))
    targets: list[str] = []
    for name in target_names(schema):
        if name in _targets.SPECIAL_TARGETS or name == "CLOUD_CONTROL":
            continue
        targets += _targets.matches(name, known) if _targets.is_wildcard(name) else [name]
    info: dict[str, Any] = {}
    for target in dict.fromkeys(targets):
        found = local.get(target) or _targets.bundled_schema(target)
        if found is None:
            raise CfngenError(
                f"no schema for the hook's target {target}",
                f"put its resource schema in {TARGET_SCHEMAS}/{_targets.schema_file_name(target)}",
            )
        info[target] = {
            "TypeName": target,
            "TargetName": target,
            "TargetType": "RESOURCE",
            "Schema": found,
            "IsCfnRegistrySupportedType": True,
            "SchemaFileAvailable": True,
        }
    return info
