"""A hook's type configuration for a run (`--typeconfig FILE`): the official envelope or the
properties themselves, checked against the schema's typeConfiguration as CloudFormation's
SetTypeConfiguration checks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cfngen import _schema
from cfngen._errors import CfngenError
from cfngen._kinds.hook._schema import type_configuration_problems

TYPECONFIG_HINT = (
    'a type configuration file holds {"CloudFormationConfiguration": {"HookConfiguration": '
    '{"Properties": {...}}}} (what SetTypeConfiguration takes) or the properties themselves'
)


def load_type_configuration(
    path: Path | None, schema: Mapping[str, Any] | None = None
) -> dict[str, Any] | None:
    """`--typeconfig FILE`: the official envelope or a bare object; nothing is read from the
    home folder (the official tool reads ~/.cfn-cli/typeConfiguration.json silently). With the
    hook's `schema`, a configuration its typeConfiguration refuses is a usage error, as
    CloudFormation's SetTypeConfiguration refuses it: a handler never runs with one."""
    if path is None:
        return None
    properties = _unwrap_type_configuration(path, _schema.load_object(path, TYPECONFIG_HINT))
    if schema is not None:
        check_type_configuration(schema, properties, str(path))
    return properties


def check_type_configuration(schema: Mapping[str, Any], properties: Any, where: str) -> None:
    problems = type_configuration_problems(dict(schema), properties)
    if problems:
        raise CfngenError(
            f"{where}: the type configuration does not fit the hook's typeConfiguration: "
            + "; ".join(problems),
            "fix the configuration (CloudFormation's SetTypeConfiguration refuses it too)",
        )


def _unwrap_type_configuration(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    envelope = data.get("CloudFormationConfiguration")
    if envelope is None:
        return data
    hook = envelope.get("HookConfiguration") if isinstance(envelope, dict) else None
    properties = hook.get("Properties", {}) if isinstance(hook, dict) else None
    if not isinstance(properties, dict):
        raise CfngenError(
            f"{path}: CloudFormationConfiguration.HookConfiguration.Properties is not an object",
            TYPECONFIG_HINT,
        )
    return properties
