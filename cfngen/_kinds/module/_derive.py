"""The derived files of a module project: `schema.json` and `docs/README.md`.

The official tool writes `schema.json` as a side effect of `cfn validate` and `cfn submit`, and
keeps only each parameter's Type and Description and each resource's Type. cfngen's is a pure
function of the fragment and the type name that keeps each parameter's type, description,
default, allowed values and constraints, and documents the outputs; it still validates against
the official modules meta-schema (tests/test_module_generate.py checks it). Generating is its
own step (`cfngen generate`), never a side effect of validate.

The official tool rewrites `schema.json` in its own form whenever `cfn validate` or `cfn submit`
runs: `is_official_schema` recognises that exact shape, so the next `cfngen generate` rewrites
it without calling it a hand edit (cfngen/_files/_ownership.py asks).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from cfngen import _schema
from cfngen._cfn_template import plain
from cfngen._errors import CfngenError, ExitCode
from cfngen._generate import InvalidSchemaError
from cfngen._kinds.module._fragment import FRAGMENT_DIR, SCHEMA_FILE
from cfngen._project import CONFIG_FILE, Project

if TYPE_CHECKING:
    from cfngen._kind import Derived
    from cfngen._validate._file_report import FileReport

DOCS_FILE = "docs/README.md"
_OFFICIAL_DESCRIPTION = "Schema for Module Fragment of type "
#: Parameter attributes kept in the schema beyond Type, Description, Default, AllowedValues.
_CONSTRAINTS = (
    "AllowedPattern",
    "ConstraintDescription",
    "MinLength",
    "MaxLength",
    "MinValue",
    "MaxValue",
    "NoEcho",
)


def may_derive(project: Project, relpath: str) -> bool:
    path = PurePosixPath(relpath)
    if ".." in path.parts:
        return False
    return relpath in (SCHEMA_FILE, DOCS_FILE)


def generate_inputs(project: Project) -> dict[str, bytes | None]:
    from cfngen._files import read_optional
    from cfngen._kinds.module._fragment import decode_utf8, the_fragment

    fragment = the_fragment(project.root)
    relpath = fragment.relative_to(project.root).as_posix()
    data = read_optional(fragment)
    if data is not None:
        decode_utf8(data, relpath)  # not UTF-8: exit 2 before anything is derived
    return {
        CONFIG_FILE: read_optional(project.root / CONFIG_FILE),
        f"fragment:{relpath}": data,
    }


def derive(project: Project, inputs: Mapping[str, bytes | None]) -> Derived:
    from cfngen._files._ownership import with_header
    from cfngen._kind import Derived
    from cfngen._kinds.module._fragment import decode_utf8
    from cfngen._kinds.module._validate import check_text

    name, data = next((k, v) for k, v in inputs.items() if k.startswith("fragment:"))
    relpath = name.partition(":")[2]
    text = decode_utf8(data or b"", relpath)
    report = check_text(text, path=project.root / relpath, strict=False, display=relpath)
    if not report.valid or report.schema is None:
        raise InvalidFragmentError(report)
    type_name = str(project.config["typeName"])
    schema = module_schema(type_name, report.schema)
    files = {
        SCHEMA_FILE: (json.dumps(schema, indent=4) + "\n").encode(),
        DOCS_FILE: with_header(DOCS_FILE, module_docs(type_name, report.schema)).encode(),
    }
    # `cfn validate` and `cfn submit` rewrite schema.json by themselves.
    return Derived(files=files, report=report, official_rewrites={SCHEMA_FILE: is_official_schema})


class InvalidFragmentError(InvalidSchemaError):
    """What generate catches for an invalid schema, in a module's words."""

    def __init__(self, report: FileReport) -> None:
        CfngenError.__init__(
            self,
            f"{report.path}: the fragment is invalid; nothing was generated",
            "fix the problems listed above and run `cfngen generate` again",
            exit_code=ExitCode.FAILED,
        )
        self.report = report


# --------------------------------------------------------------------------- schema.json


def generate_notes(project: Project, inputs: Mapping[str, bytes | None]) -> list[str]:
    return []


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "string"


def _constant(value: Any) -> dict[str, Any]:
    return {"type": _json_type(value), "const": value}


def _parameter(param: dict[str, Any]) -> dict[str, Any]:
    properties: dict[str, Any] = {"Type": _constant(str(param.get("Type")))}
    required = ["Type"]
    entry: dict[str, Any] = {"type": "object"}
    description = param.get("Description")
    if isinstance(description, str):
        entry["description"] = description
        properties["Description"] = _constant(description)
        required.append("Description")
    if "Default" in param:
        default = param["Default"]
        properties["Default"] = {"type": _json_type(default), "default": default}
    allowed = param.get("AllowedValues")
    if isinstance(allowed, list) and allowed:
        kinds = sorted({_json_type(v) for v in allowed})
        items: dict[str, Any] = {"type": kinds[0] if len(kinds) == 1 else kinds, "enum": allowed}
        properties["AllowedValues"] = {"type": "array", "items": items}
    for key in _CONSTRAINTS:
        if key in param:
            properties[key] = _constant(param[key])
    entry["properties"] = properties
    entry["required"] = required
    return entry


def _output(output: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "object"}
    if isinstance(output, dict) and isinstance(output.get("Description"), str):
        entry["description"] = output["Description"]
    value = output.get("Value") if isinstance(output, dict) else None
    entry["properties"] = {
        "Value": {"type": _json_type(value), "description": json.dumps(value, sort_keys=True)}
    }
    return entry


def module_schema(type_name: str, template: Mapping[str, Any]) -> dict[str, Any]:
    """The registry schema of a module, from its (plain) fragment."""
    template = plain(template)
    description = template.get("Description")
    schema: dict[str, Any] = {
        "typeName": type_name,
        "description": description
        if isinstance(description, str) and description
        else _OFFICIAL_DESCRIPTION + type_name,
    }
    properties: dict[str, Any] = {}
    parameters = template.get("Parameters")
    if isinstance(parameters, dict) and parameters:
        properties["Parameters"] = {
            "type": "object",
            "description": "The module's parameters: give their values as the Properties of "
            "the resource that uses the module",
            "properties": {
                name: _parameter(param)
                for name, param in parameters.items()
                if isinstance(param, dict)
            },
        }
    resources = template.get("Resources") or {}
    properties["Resources"] = {
        "type": "object",
        "description": "The resources the module creates; their logical ids in a stack are "
        "prefixed with the module's logical id",
        "properties": {
            name: {
                "type": "object",
                "properties": {
                    "Type": {"type": "string", "const": resource.get("Type")},
                    "Properties": {"type": "object"},
                },
            }
            for name, resource in resources.items()
            if isinstance(resource, dict)
        },
        "additionalProperties": False,
    }
    outputs = template.get("Outputs")
    if isinstance(outputs, dict) and outputs:
        properties["Outputs"] = {
            "type": "object",
            "description": "The module's outputs: read them with Fn::GetAtt "
            "<ModuleLogicalId>.<OutputName>",
            "properties": {name: _output(output) for name, output in outputs.items()},
        }
    schema["properties"] = properties
    schema["additionalProperties"] = True
    return schema


def is_official_schema(data: bytes) -> bool:
    """Whether `data` is the `schema.json` the official `cfn validate`/`submit` wrote."""
    try:
        value = _schema.loads(data.decode("utf-8")).data
    except ValueError:
        return False
    if not isinstance(value, dict) or set(value) != {
        "typeName",
        "description",
        "properties",
        "additionalProperties",
    }:
        return False
    type_name = value.get("typeName")
    properties = value.get("properties")
    return (
        isinstance(type_name, str)
        and value.get("description") == _OFFICIAL_DESCRIPTION + type_name
        and isinstance(properties, dict)
        and set(properties) <= {"Parameters", "Resources"}
        and data == (json.dumps(value, indent=4) + "\n").encode()
    )


# --------------------------------------------------------------------------- docs


def _cell(value: Any) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value)
    return text.replace("|", "\\|").replace("\n", " ")


def module_docs(type_name: str, template: Mapping[str, Any]) -> str:
    template = plain(template)
    lines = [f"# {type_name}", ""]
    description = template.get("Description")
    if isinstance(description, str) and description:
        lines += [description.strip(), ""]
    parameters = template.get("Parameters") or {}
    resources = template.get("Resources") or {}
    outputs = template.get("Outputs") or {}
    lines += [
        "## Use it",
        "",
        "```yaml",
        "Resources:",
        "  MyModule:",
        f"    Type: {type_name}",
    ]
    if parameters:
        lines.append("    Properties:")
        for name, param in parameters.items():
            default = param.get("Default") if isinstance(param, dict) else None
            shown = json.dumps(default) if default is not None else "..."
            lines.append(f"      {name}: {shown}")
    lines += ["```", ""]
    if parameters:
        lines += [
            "## Parameters",
            "",
            "| Name | Type | Default | Allowed values | Description |",
            "|---|---|---|---|---|",
        ]
        for name, raw in parameters.items():
            param = raw if isinstance(raw, dict) else {}
            allowed = param.get("AllowedValues")
            lines.append(
                f"| {name} | {_cell(param.get('Type'))} | "
                f"{_cell(param.get('Default')) if 'Default' in param else '(required)'} | "
                f"{', '.join(_cell(v) for v in allowed) if isinstance(allowed, list) else ''} | "
                f"{_cell(param.get('Description'))} |"
            )
        lines.append("")
    lines += [
        "## Resources",
        "",
        "In the stack that uses the module as `MyModule`, each resource's logical id is "
        "prefixed with `MyModule`.",
        "",
        "| Logical id | In the stack | Type |",
        "|---|---|---|",
    ]
    for name, resource in resources.items():
        rtype = resource.get("Type") if isinstance(resource, dict) else None
        lines.append(f"| {name} | MyModule{name} | {_cell(rtype)} |")
    lines.append("")
    if outputs:
        lines += [
            "## Outputs",
            "",
            "| Name | Read it with | Description |",
            "|---|---|---|",
        ]
        for name, output in outputs.items():
            desc = output.get("Description") if isinstance(output, dict) else None
            lines.append(f"| {name} | `!GetAtt MyModule.{name}` | {_cell(desc)} |")
        lines.append("")
    lines += [
        "## schema.json",
        "",
        f"`cfngen generate` writes `schema.json` from `{FRAGMENT_DIR}/`: the schema the "
        "registry shows, with each parameter's type, default and allowed values and the "
        "outputs. The official `cfn validate` and `cfn submit` rewrite it in their poorer form "
        "every time they run; `cfngen build` and `cfngen submit` package cfngen's (run "
        "`cfngen generate` again after a `cfn` command).",
        "",
    ]
    return "\n".join(lines)
