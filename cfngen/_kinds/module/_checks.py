"""What the registry and the user guide forbid in a module's fragment, each with its position.

The official `cfn validate` stops at the first problem, matches `Fn::ImportValue` as raw text,
misses `Fn::Transform` below the top level, `AWS::CloudFormation::StackSet`, unknown types and
the nesting of modules, and crashes on `Resources:` with no value. These checks report every
problem at once, at the node that has it. Rule ids (`M...`) name each check in messages and in
docs/module.md. Nested modules: _nesting.py; Fn::ImportValue and Fn::Transform anywhere:
_forbidden_functions.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfngen._diagnostics import ACCEPTED, Diagnostic
from cfngen._kinds.module._conditions import circular_conditions
from cfngen._kinds.module._findings import Findings
from cfngen._kinds.module._forbidden_functions import forbidden_functions, import_value_text
from cfngen._kinds.module._fragment import MODULE_SUFFIX, key_of
from cfngen._kinds.module._local import LocalType, local_types
from cfngen._kinds.module._nesting import nested_module
from cfngen._schema import join_pointer

#: The official tool's limits (rpdk/core/fragment/generator.py), which are the service's.
MAX_BYTES = 1_500_000
MAX_RESOURCES = 500
MAX_OUTPUTS = 200
MAX_MAPPINGS = 200
MAX_MAPPING_KEYS = 200
#: Resource types a module may not contain, and why.
FORBIDDEN_TYPES = {
    "AWS::CloudFormation::Stack": "a module cannot contain a nested stack",
    "AWS::CloudFormation::StackSet": "a module cannot contain a stack set",
    "AWS::CloudFormation::Macro": "a module cannot contain a macro",
}
_SECTIONS = frozenset(
    {
        "AWSTemplateFormatVersion",
        "Description",
        "Metadata",
        "Parameters",
        "Rules",
        "Mappings",
        "Conditions",
        "Transform",
        "Resources",
        "Outputs",
    }
)


def check(
    template: Any,
    text: str,
    *,
    root: Path | None,
    own_type: str | None = None,
) -> list[Diagnostic]:
    """Every module rule `template` (cfn-lint's nodes) breaks; `text` is its source, `root`
    the module's project folder (for modules and types available locally)."""
    out = Findings()
    size = len(text.encode("utf-8"))
    if size > MAX_BYTES:
        out.add(
            "error",
            "",
            None,
            f"the fragment is {size:,} bytes; a module's template may be at most "
            f"{MAX_BYTES:,} bytes",
            "move resources into a second module and use it from this one",
            at=(1, 1),
            code="cfngen/module-fragment-too-large",
        )
    if not isinstance(template, dict):
        out.add(
            "error",
            "",
            template,
            "a fragment must be a template: a mapping of sections",
            code="cfngen/module-fragment-not-template",
        )
        return _with_positions(out.items)
    _sections(template, out)
    _parameters(template, out)
    _resources(template, out, root=root, own_type=own_type)
    _outputs(template, out)
    _mappings(template, out)
    circular_conditions(template, out)
    forbidden_functions(template, "", out)
    import_value_text(template, text, out)
    return _with_positions(out.items)


def _with_positions(items: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(items, key=Diagnostic.sort_key)


def _section(template: dict[str, Any], name: str) -> tuple[Any, Any]:
    return key_of(template, name), template.get(name)


def _sections(template: dict[str, Any], out: Findings) -> None:
    for key in template:
        if key in ("Transform", "transform"):
            out.add(
                "error",
                join_pointer("", str(key)),
                key,
                "a module cannot use transforms (AWS::Serverless, AWS::Include, macros): "
                "CloudFormation does not expand them in a module",
                "remove the Transform section and write the resources it would make",
                code="cfngen/module-transform",
            )


def _parameters(template: dict[str, Any], out: Findings) -> None:
    key, section = _section(template, "Parameters")
    if section is None:
        return
    if not isinstance(section, dict):
        out.add(
            "error",
            "/Parameters",
            section,
            "Parameters must be a mapping",
            fallback=key,
            code="cfngen/module-parameters-not-mapping",
        )
        return
    for name, param in section.items():
        pointer = join_pointer("/Parameters", str(name))
        if not isinstance(param, dict):
            out.add(
                "error",
                pointer,
                param,
                f"parameter {name} must be a mapping",
                fallback=name,
                code="cfngen/module-parameter-not-mapping",
            )
        elif "Type" not in param:
            out.add(
                "error",
                pointer,
                name,
                f"parameter {name} has no Type",
                "add `Type: String` (or Number, CommaDelimitedList, an AWS-specific type)",
                code="cfngen/module-parameter-no-type",
            )


def _resources(
    template: dict[str, Any], out: Findings, *, root: Path | None, own_type: str | None
) -> None:
    key, section = _section(template, "Resources")
    if key not in template:
        out.add(
            "error",
            "",
            None,
            "a module's fragment must have a Resources section",
            "add Resources with at least one resource",
            fallback=template,
            code="cfngen/module-no-resources",
        )
        return
    if not isinstance(section, dict) or not section:
        what = "empty" if section is None or section == {} else "not a mapping"
        out.add(
            "error",
            "/Resources",
            section if section else None,
            f"Resources is {what}: a module must declare at least one resource",
            "add a resource under Resources",
            fallback=key,
            code="cfngen/module-no-resources",
        )
        return
    if len(section) > MAX_RESOURCES:
        out.add(
            "error",
            "/Resources",
            key,
            f"the fragment declares {len(section)} resources; a module may declare at most "
            f"{MAX_RESOURCES}",
            "split it into modules",
            code="cfngen/module-too-many-resources",
        )
    known: set[str] | None = None
    local: dict[str, LocalType] | None = None
    for name, resource in section.items():
        pointer = join_pointer("/Resources", str(name))
        if not isinstance(resource, dict):
            out.add(
                "error",
                pointer,
                resource,
                f"resource {name} must be a mapping",
                fallback=name,
                code="cfngen/module-resource-not-mapping",
            )
            continue
        if "Type" not in resource:
            out.add(
                "error",
                pointer,
                name,
                f"resource {name} has no Type",
                "add its Type",
                code="cfngen/module-resource-no-type",
            )
            continue
        rtype = resource["Type"]
        tpointer = pointer + "/Type"
        if not isinstance(rtype, str):
            out.add(
                "error",
                tpointer,
                rtype,
                f"resource {name}: Type must be a string",
                code="cfngen/module-resource-type-not-string",
            )
            continue
        if rtype in FORBIDDEN_TYPES:
            out.add(
                "error",
                tpointer,
                rtype,
                f"resource {name}: {FORBIDDEN_TYPES[rtype]} ({rtype})",
                "the user guide forbids it in modules; declare its resources here instead",
                code="cfngen/module-resource-type-forbidden",
            )
            continue
        if rtype.startswith("AWS::Serverless::"):
            out.add(
                "error",
                tpointer,
                rtype,
                f"resource {name}: {rtype} needs the AWS::Serverless transform, which a module "
                "cannot use",
                "write the plain CloudFormation resources (AWS::Lambda::Function, ...) instead",
                code="cfngen/module-resource-needs-transform",
            )
            continue
        if local is None:
            local = local_types(root)
        if rtype.endswith(MODULE_SUFFIX):
            nested_module(name, rtype, tpointer, out, local=local, own_type=own_type)
            continue
        if rtype.startswith("Custom::") or rtype == "AWS::CloudFormation::CustomResource":
            continue
        if known is None:
            from cfngen._kinds._shared._targets import bundled_types

            known = set(bundled_types())
        if rtype in known or rtype in local:
            continue
        if rtype.startswith("AWS::"):
            from cfngen._schema import close_match

            close = close_match(rtype, sorted(known))
            out.add(
                "error",
                tpointer,
                rtype,
                f"resource {name}: {rtype} is not a resource type",
                f"did you mean {close}?" if close else "check the spelling",
                code="cfngen/module-resource-type-invalid",
            )
        else:
            out.add(
                ACCEPTED,
                tpointer,
                rtype,
                f"resource {name}: {rtype} is not a public type and no project beside this one "
                "declares it; it must be registered in the account that uses the module",
                "put its project beside this one (or in CFNGEN_MODULE_PATH) to have it checked",
                code="cfngen/module-resource-type-unknown",
            )


def _outputs(template: dict[str, Any], out: Findings) -> None:
    key, section = _section(template, "Outputs")
    if section is None:
        return
    if not isinstance(section, dict):
        out.add(
            "error",
            "/Outputs",
            section,
            "Outputs must be a mapping",
            fallback=key,
            code="cfngen/module-outputs-not-mapping",
        )
        return
    if len(section) > MAX_OUTPUTS:
        out.add(
            "error",
            "/Outputs",
            key,
            f"the fragment declares {len(section)} outputs; a module may declare at most "
            f"{MAX_OUTPUTS}",
            code="cfngen/module-too-many-outputs",
        )
    for name, output in section.items():
        if isinstance(output, dict) and "Export" in output:
            export = key_of(output, "Export")
            out.add(
                "error",
                join_pointer("/Outputs", str(name)) + "/Export",
                export,
                f"output {name} has an Export: a module's outputs cannot be exported",
                "remove Export; the template that uses the module can export the value",
                code="cfngen/module-output-export",
            )


def _mappings(template: dict[str, Any], out: Findings) -> None:
    key, section = _section(template, "Mappings")
    if not isinstance(section, dict):
        return
    if len(section) > MAX_MAPPINGS:
        out.add(
            "error",
            "/Mappings",
            key,
            f"the fragment declares {len(section)} mappings; a module may declare at most "
            f"{MAX_MAPPINGS}",
            code="cfngen/module-too-many-mappings",
        )
    for name, mapping in section.items():
        if isinstance(mapping, dict) and len(mapping) > MAX_MAPPING_KEYS:
            out.add(
                "error",
                join_pointer("/Mappings", str(name)),
                name,
                f"mapping {name} has {len(mapping)} keys; a module's mapping may have at most "
                f"{MAX_MAPPING_KEYS}",
                code="cfngen/module-mapping-too-many-keys",
            )
