"""`submit --configure FILE`: the type configuration, checked before anything is uploaded.

A hook does nothing until it is configured. Its configuration wraps the properties its schema's
typeConfiguration describes in an envelope (user guide, "Hook configuration schema"):

    {"CloudFormationConfiguration": {"HookConfiguration": {
        "HookInvocationStatus": "ENABLED", "FailureMode": "FAIL",
        "TargetOperations": ["RESOURCE"], "Properties": {...}}}}

A resource type's configuration is the properties object itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError, ExitCode
from cfngen._package._limits import HOOK_CONFIGURATION
from cfngen._schema import load_object, read_text

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


def read_configuration(path: Path, envelope: str, configuration_schema: dict[str, Any]) -> str:
    """The configuration in `path` as the JSON text SetTypeConfiguration takes; a CfngenError
    naming every problem when it does not match the extension's configuration schema."""
    text = read_text(path)
    data = load_object(path, "write the configuration as one JSON object", text=text)
    problems: list[str] = []
    if envelope == "hook":
        if len(text.encode("utf-8")) > HOOK_CONFIGURATION.bytes:
            raise CfngenError(
                f"{path}: {HOOK_CONFIGURATION.problem(len(text.encode()), 'the configuration')}",
                "make the configuration smaller",
            )
        problems += _check(data, _HOOK_ENVELOPE, "")
        properties: Any = data
        for key in _PROPERTIES:
            properties = properties.get(key, {}) if isinstance(properties, dict) else {}
        pointer = "/" + "/".join(_PROPERTIES)
    else:
        from cfngen._contract._type_configuration import properties_of

        properties, pointer = properties_of(data, (), str(path)), ""
    if not problems:
        problems += _check(properties, configuration_schema, pointer)
    if problems:
        listed = "; ".join(problems)
        raise CfngenError(
            f"{path}: does not match the type configuration schema: {listed}",
            "fix the file; the schema is the typeConfiguration in the extension's schema",
            exit_code=ExitCode.FAILED,
        )
    return json.dumps(data)


def _check(instance: Any, schema: dict[str, Any], base: str) -> list[str]:
    from jsonschema import Draft7Validator
    from jsonschema.exceptions import SchemaError

    try:
        validator = Draft7Validator(schema)
        errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    except SchemaError as exc:
        raise CfngenError(
            f"the extension's configuration schema is not a valid JSON schema: {exc.message}",
            "run `cfngen validate`",
        ) from None
    from cfngen._instances import describe

    return [
        f"{base + pointer or '/'}: {message}"
        for error in errors
        for pointer, message in describe(error)
    ]
