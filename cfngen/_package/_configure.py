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
from cfngen._kind import Configuration
from cfngen._schema import load_object, read_text


def read_configuration(
    path: Path, configuration: Configuration, configuration_schema: dict[str, Any]
) -> str:
    """The configuration in `path` as the JSON text SetTypeConfiguration takes; a CfngenError
    naming every problem when it does not match the extension's configuration schema."""
    text = read_text(path)
    data = load_object(path, "write the configuration as one JSON object", text=text)
    problems: list[str] = []
    limit = configuration.limit
    if limit is not None and len(text.encode("utf-8")) > limit.bytes:
        raise CfngenError(
            f"{path}: {limit.problem(len(text.encode()), 'the configuration')}",
            "make the configuration smaller",
        )
    if configuration.envelope:
        if configuration.envelope_schema is not None:
            problems += _check(data, dict(configuration.envelope_schema), "")
        properties: Any = data
        for key in configuration.envelope:
            properties = properties.get(key, {}) if isinstance(properties, dict) else {}
        pointer = "/" + "/".join(configuration.envelope)
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
