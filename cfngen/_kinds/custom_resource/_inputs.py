"""A custom resource's test inputs: the properties of each request, from the template and the
inputs file of its type, as CloudFormation sends them (every scalar a string), and the invalid
ones built from its type's properties schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError
from cfngen._kinds.custom_resource._template import Resource
from cfngen._kinds.custom_resource._tests import Inputs
from cfngen._kinds.custom_resource._type_files import type_files

#: The property added to the create properties to make update ones, when the inputs name none.
DERIVED_UPDATE_KEY = "CfngenTestRevision"


def _strings(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, list):
        return [_strings(v) for v in value]
    if isinstance(value, dict):
        return {k: _strings(v) for k, v in value.items()}
    return value


def load_inputs(resource: Resource) -> Inputs:
    """Create properties from the template (or the inputs file), update ones from the inputs
    file or derived, invalid ones from the inputs file or the properties schema: the files of
    the resource's own type (_type_files.py)."""
    from cfngen import _schema

    folder = resource.template.parent
    files = type_files(folder, resource.type, resource.types or {resource.type})
    inputs_name = _shown(files.inputs_path, folder)
    schema_name = _shown(files.schema_path, folder)
    token = {"ServiceToken": resource.properties["ServiceToken"]}
    given: dict[str, Any] = {}
    if files.inputs is not None:
        path = files.inputs
        given = _schema.load_object(
            path, 'write {"create": {...}, "update": {...}, "replace": {...}, "invalid": {...}}'
        )
        unknown = sorted(set(given) - {"create", "update", "replace", "invalid"})
        if unknown:
            raise CfngenError(
                f"{path}: unknown keys {', '.join(unknown)}",
                "use create, update, replace and invalid",
            )
        for key, value in given.items():
            if not isinstance(value, dict):
                raise CfngenError(f"{path}: {key} must be an object of properties", "fix it")

    def properties(key: str) -> dict[str, Any] | None:
        value = given.get(key)
        return None if value is None else {**_strings(value), **token}

    def missing(key: str) -> str:
        """Why the inputs give no `key` properties, naming the file as it is."""
        if files.inputs is None:
            return f'no "{key}" properties ({inputs_name} does not exist)'
        return f'no "{key}" properties in {inputs_name}'

    notes: list[str] = []
    create = properties("create") or dict(resource.properties)
    schema = (
        _schema.load_object(files.schema, f"fix {schema_name}")
        if files.schema is not None
        else None
    )
    update = properties("update")
    if update is None and schema is not None and schema.get("additionalProperties") is False:
        update = dict(create)
        notes.append(
            f"no update properties, and {schema_name} allows no other property: the "
            f'in-place update sends the create ones again; name real ones under "update" in '
            f"{inputs_name}"
        )
    elif update is None:
        update = {**create, DERIVED_UPDATE_KEY: "2"}
        notes.append(
            f"update properties derived (the create ones plus {DERIVED_UPDATE_KEY}); name "
            f'real ones under "update" in {inputs_name}'
        )
    inputs = Inputs(create=create, update=update, replace=properties("replace"), notes=notes)
    inputs.why_no_replace = missing("replace")
    invalid = properties("invalid")
    if invalid is None and schema is not None:
        invalid = invalid_properties(schema, create)
        if invalid is None:
            inputs.why_no_invalid = (
                f"no property of {schema_name} can be made invalid (no required, enum, "
                f'pattern or typed property); name invalid ones under "invalid" in {inputs_name}'
            )
        else:
            invalid = {**invalid, **token}
    elif invalid is None and schema is None:
        inputs.why_no_invalid = (
            f"nothing makes the handler fail: no properties schema ({schema_name} does not "
            f"exist) and {missing('invalid')}"
        )
    inputs.invalid = invalid
    return inputs


def _shown(path: Path, folder: Path) -> str:
    """A file of the type as messages name it: relative to the template's folder."""
    return path.relative_to(folder).as_posix()


def invalid_properties(
    schema: Mapping[str, Any], valid: Mapping[str, Any]
) -> dict[str, Any] | None:
    """Properties the schema rejects, close to `valid`: a required one left out, else one
    given a value its enum, pattern or type refuses."""
    import jsonschema

    def rejected(candidate: dict[str, Any]) -> bool:
        try:
            jsonschema.validate(_typed(schema, candidate), schema)
        except jsonschema.ValidationError:
            return True
        except jsonschema.SchemaError:
            return False
        return False

    base = {k: v for k, v in valid.items() if k != "ServiceToken"}
    required = schema.get("required")
    for name in required if isinstance(required, list) else []:
        candidate = {k: v for k, v in base.items() if k != name}
        if rejected(candidate):
            return candidate
    properties = schema.get("properties")
    for name, body in (properties if isinstance(properties, dict) else {}).items():
        if not isinstance(body, dict):
            continue
        for value in ("cfngen-invalid-value", "-1", "not a number", ""):
            candidate = {**base, name: value}
            if rejected(candidate):
                return candidate
    return None


def _typed(schema: Mapping[str, Any], properties: Mapping[str, Any]) -> dict[str, Any]:
    """CloudFormation's strings as the schema's types, where they read as such."""
    declared = schema.get("properties")
    out: dict[str, Any] = {}
    for key, value in properties.items():
        body = declared.get(key) if isinstance(declared, dict) else None
        kind = body.get("type") if isinstance(body, dict) else None
        out[key] = _coerce(value, kind)
    return out


def _coerce(value: Any, kind: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        if kind == "integer":
            return int(value)
        if kind == "number":
            return float(value)
    except ValueError:
        return value
    if kind == "boolean" and value in ("true", "false"):
        return value == "true"
    return value
