"""A module rendered as CloudFormation expands it into the template that uses it.

CloudFormation replaces a resource `MyModule: {Type: Org::Svc::Name::MODULE, Properties: {...}}`
by the fragment's resources, each logical id prefixed with `MyModule`; the Properties are the
fragment's parameters (defaults otherwise); conditions and mappings are prefixed too, and every
Ref, Fn::GetAtt, Fn::Sub, Fn::If, Fn::FindInMap, DependsOn and Condition that names them follows.
The module's outputs keep their Description and Condition. A parameter with neither a value nor a
default is a usage error, unless the caller asks for stand-ins (`cfngen test`: _stand_ins.py).
Modules the fragment uses are expanded the same way when their project is available locally
(beside this one, or in CFNGEN_MODULE_PATH); `!GetAtt Nested.Output` becomes the nested
module's output value. No other tool previews this.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen._cfn_template import decode, plain
from cfngen._errors import CfngenError, ExitCode
from cfngen._kinds._shared._parameters import parse_params
from cfngen._kinds.module._conditions import circle_text, condition_cycle
from cfngen._kinds.module._fragment import MODULE_SUFFIX, fragment_text
from cfngen._kinds.module._local import LocalType, local_types
from cfngen._kinds.module._nesting import MAX_DEPTH
from cfngen._kinds.module._rewrite import Names

__all__ = ["DEFAULT_LOGICAL_ID", "Rendered", "parse_params", "render"]

DEFAULT_LOGICAL_ID = "Module"
_LOGICAL_ID = re.compile(r"^[A-Za-z0-9]{1,255}$")
#: Parameter types whose value is a Systems Manager parameter's name, resolved at deploy time.
_SSM_TYPES = ("AWS::SSM::Parameter::Value<", "AWS::SSM::Parameter::Name")


@dataclass
class Rendered:
    template: dict[str, Any]
    warnings: list[str] = field(default_factory=list)

    def text(self, fmt: str = "yaml") -> str:
        if fmt == "json":
            return json.dumps(self.template, indent=2) + "\n"
        import yaml

        return str(yaml.safe_dump(self.template, sort_keys=False, allow_unicode=True, width=100))


def render(
    template: dict[str, Any],
    *,
    logical_id: str = DEFAULT_LOGICAL_ID,
    params: dict[str, Any] | None = None,
    root: Path | None = None,
    type_name: str | None = None,
    stand_ins: bool = False,
) -> Rendered:
    """The consumer template that uses the (plain) fragment `template` as `logical_id`.
    `stand_ins`: a parameter of the module with neither a value nor a default gets a value
    valid for its declaration, named in one warning (else: a usage error)."""
    if not _LOGICAL_ID.match(logical_id):
        raise CfngenError(
            f"--logical-id {logical_id!r} is not a logical id", "use letters and digits only"
        )
    out = Rendered(
        template={
            "AWSTemplateFormatVersion": "2010-09-09",
            "Description": f"{type_name or 'The module'} as CloudFormation expands it "
            f"into a template that names it {logical_id}",
        }
    )
    sections: dict[str, dict[str, Any]] = {
        "Parameters": {},
        "Conditions": {},
        "Mappings": {},
        "Resources": {},
    }
    outputs = _expand(
        plain(template),
        logical_id,
        dict(params or {}),
        sections,
        out.warnings,
        local=local_types(root),
        chain=[type_name or "the module"],
        top=True,
        stand_ins=stand_ins,
    )
    for name, section in sections.items():
        if section:
            out.template[name] = section
    if outputs:
        out.template["Outputs"] = {f"{logical_id}{name}": body for name, body in outputs.items()}
    return out


def _parameter_values(
    declared: dict[str, Any],
    given: dict[str, Any],
    warnings: list[str],
    *,
    top: bool,
    where: str,
    stand_ins: bool = False,
) -> dict[str, Any]:
    from cfngen._kinds.module._stand_ins import stand_in

    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise CfngenError(
            f"{where}: no parameter named {', '.join(unknown)}",
            f"the module's parameters: {', '.join(declared) or 'none'}",
        )
    values: dict[str, Any] = {}
    made: dict[str, str] = {}
    for name, raw in declared.items():
        param = raw if isinstance(raw, dict) else {}
        if name in given:
            value = given[name]
        elif "Default" in param:
            value = param["Default"]
        elif top and stand_ins:
            value = made[name] = stand_in(name, param)
        elif top:
            raise CfngenError(
                f"{where}: parameter {name} has no value and no default",
                f"give it: --param {name}=VALUE (or --params FILE)",
            )
        else:
            # The module that uses this one forgot it: CloudFormation fails that template.
            raise CfngenError(
                f"{where}: parameter {name} has no value and no default",
                f"give it: {name} in the Properties of the resource that uses {where}",
                exit_code=ExitCode.FAILED,
            )
        ptype = str(param.get("Type", "String"))
        if (ptype.startswith("List<") or ptype == "CommaDelimitedList") and isinstance(value, str):
            value = [item.strip() for item in value.split(",")]
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        values[name] = value
    if made:
        one = len(made) == 1
        warnings.append(
            f"no value given for {', '.join(made)}: the tests use "
            + (
                "a stand-in valid for its declaration"
                if one
                else "stand-ins valid for their declarations"
            )
            + f" ({', '.join(f'{k}={v}' for k, v in made.items())}); give "
            + ("it" if one else "them")
            + " with --param NAME=VALUE or --params FILE"
        )
    return values


def _expand(
    template: dict[str, Any],
    prefix: str,
    given: dict[str, Any],
    sections: dict[str, dict[str, Any]],
    warnings: list[str],
    *,
    local: dict[str, LocalType],
    chain: list[str],
    top: bool = False,
    stand_ins: bool = False,
) -> dict[str, dict[str, Any]]:
    """Add the fragment's resources, conditions and mappings to `sections` under `prefix`;
    return its outputs (Value, and Description and Condition where declared)."""
    cycle = condition_cycle(_section(template, "Conditions"))
    if cycle is not None:
        raise CfngenError(
            f"{chain[-1]}: {circle_text(cycle)}: CloudFormation rejects the template",
            "run `cfngen validate` for where",
            exit_code=ExitCode.FAILED,
        )
    declared = _section(template, "Parameters")
    values = _parameter_values(
        declared, given, warnings, top=top, where=chain[-1], stand_ins=stand_ins
    )
    for name, value in values.items():
        ptype = str((declared.get(name) or {}).get("Type", ""))
        if ptype.startswith(_SSM_TYPES) and isinstance(value, str):
            # CloudFormation resolves the path when the stack deploys: it stays a parameter of
            # the template that uses the module, with the value as its default.
            sections["Parameters"][prefix + name] = {"Type": ptype, "Default": value}
            values[name] = {"Ref": prefix + name}
    resources = _section(template, "Resources")
    names = Names(
        prefix,
        params=values,
        resources=set(resources),
        conditions=set(_section(template, "Conditions")),
        mappings=set(_section(template, "Mappings")),
    )
    # Modules used here first: their outputs are what `!GetAtt Nested.Output` means.
    for name, resource in resources.items():
        rtype = resource.get("Type") if isinstance(resource, dict) else None
        found = local.get(rtype) if isinstance(rtype, str) else None
        if not (isinstance(rtype, str) and rtype.endswith(MODULE_SUFFIX)):
            continue
        if found is None or found.fragment() is None:
            warnings.append(
                f"{chain[-1]}: resource {name} uses the module {rtype}, which is not available "
                "locally: left as it is"
            )
            continue
        if rtype in chain or len(chain) >= MAX_DEPTH:
            raise CfngenError(
                f"cannot expand {' -> '.join([*chain, rtype])}: modules nest at most "
                f"{MAX_DEPTH} levels deep and never include themselves",
                "run `cfngen validate` for the details",
            )
        nested = _load(found)
        properties = names.rewrite(resource.get("Properties") or {})
        before = set(sections["Resources"])
        outputs = _expand(
            nested,
            prefix + name,
            properties,
            sections,
            warnings,
            local=local,
            chain=[*chain, rtype],
        )
        names.nested[name] = {key: body["Value"] for key, body in outputs.items()}
        names.expanded[name] = [r for r in sections["Resources"] if r not in before]
    for name, body in _section(template, "Conditions").items():
        sections["Conditions"][prefix + name] = names.rewrite(body)
    for name, body in _section(template, "Mappings").items():
        sections["Mappings"][prefix + name] = copy.deepcopy(body)
    for name, resource in resources.items():
        if name in names.nested:
            continue
        rendered: dict[str, Any] = {}
        for key, value in resource.items():
            if key == "DependsOn":
                rendered[key] = names.depends_on(value)
            elif key == "Condition" and isinstance(value, str):
                rendered[key] = names.condition(value)
            elif key == "Type":
                rendered[key] = value
            else:
                rendered[key] = names.rewrite(value)
        sections["Resources"][prefix + name] = rendered
    return {
        name: _output(output, names)
        for name, output in _section(template, "Outputs").items()
        if isinstance(output, dict)
    }


def _output(output: dict[str, Any], names: Names) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if "Description" in output:
        body["Description"] = names.rewrite(output["Description"])
    body["Value"] = names.rewrite(output.get("Value"))
    if isinstance(output.get("Condition"), str):
        body["Condition"] = names.condition(output["Condition"])
    return body


def _section(template: dict[str, Any], name: str) -> dict[str, Any]:
    """A section of the fragment as a mapping ({} when absent or not one: validate says so)."""
    value = template.get(name)
    return value if isinstance(value, dict) else {}


def _load(found: LocalType) -> dict[str, Any]:
    path = found.fragment()
    assert path is not None
    decoded = decode(fragment_text(path))
    if not isinstance(decoded.template, dict):
        raise CfngenError(
            f"{path}: the fragment of {found.type_name} cannot be read",
            "run `cfngen validate` in its project",
        )
    return dict(plain(decoded.template))
