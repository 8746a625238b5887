"""What `cfngen build` puts in a hook's registry package beyond a resource's: target-info.json
and one schema per target under target-schemas/, as the official `cfn submit` writes them.

`PACKAGING` is the hook's file set: a resource's plus these, and the envelope its type
configuration comes in. The official tool asks the registry (ListTypes for wildcards,
DescribeType for schemas); here the
answers come from the project's own target-schemas/ and target-info.json, else from the schemas
cfn-lint bundles, so a hook builds offline. A wildcard expands to every type it matches, as
ListTypes would answer (AWS::S3::* to about thirty).
"""

from __future__ import annotations

import json
from typing import Any

from cfngen._errors import CfngenError
from cfngen._kind import Configuration, Entries, FileSet, PackageContext
from cfngen._kinds._shared import _targets
from cfngen._package._layout import (
    configuration_schema,
    handler,
    inputs,
    metadata,
    overrides,
    rpdk_config,
    schema,
)
from cfngen._package._limits import HOOK_CONFIGURATION
from cfngen._project import Project


def target_info(project: Project) -> dict[str, Any]:
    from cfngen._files import read_optional
    from cfngen._kinds._shared._targets import target_names
    from cfngen._kinds.hook._target_schemas import TARGET_INFO, TARGET_SCHEMAS, _local_schemas
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


def target_files(context: PackageContext) -> Entries:
    """target-info.json and one schema per target under target-schemas/."""
    info = target_info(context.project)
    if not info:
        return {}
    entries = {"target-info.json": json.dumps(info, indent=4).encode("utf-8")}
    for target, details in info.items():
        name = "-".join(part.lower() for part in target.split("::")) + ".json"
        body = json.dumps(details.get("Schema", {}), indent=4).encode("utf-8")
        entries[f"target-schemas/{name}"] = body
    return entries


#: The envelope around a hook's properties; its keys as SetTypeConfiguration documents them
#: (TargetStacks is the older spelling of HookInvocationStatus).
_HOOK_ENVELOPE: dict[str, Any] = {
    "type": "object",
    "required": ["CloudFormationConfiguration"],
    "properties": {
        "CloudFormationConfiguration": {
            "type": "object",
            "required": ["HookConfiguration"],
            "properties": {
                "HookConfiguration": {
                    "type": "object",
                    "required": ["FailureMode"],
                    "properties": {
                        "HookInvocationStatus": {"enum": ["ENABLED", "DISABLED"]},
                        "TargetStacks": {"enum": ["ALL", "NONE"]},
                        "FailureMode": {"enum": ["FAIL", "WARN"]},
                        "TargetOperations": {
                            "type": "array",
                            "items": {"enum": ["RESOURCE", "STACK", "CHANGE_SET", "CLOUD_CONTROL"]},
                        },
                        "TargetFilters": {"type": "object"},
                        "StackFilters": {"type": "object"},
                        "Properties": {"type": "object"},
                    },
                }
            },
        }
    },
}
_PROPERTIES = ("CloudFormationConfiguration", "HookConfiguration", "Properties")


PACKAGING = FileSet(
    registry_type="HOOK",
    parts=(
        rpdk_config,
        schema,
        configuration_schema,
        inputs,
        target_files,
        handler,
        metadata,
        overrides,
    ),
    role_template="hook-role.yaml",
    configuration=Configuration(
        envelope=_PROPERTIES, envelope_schema=_HOOK_ENVELOPE, limit=HOOK_CONFIGURATION
    ),
)
