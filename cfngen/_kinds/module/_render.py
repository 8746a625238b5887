"""A module rendered as CloudFormation expands it into the template that uses it.

CloudFormation replaces a resource `MyModule: {Type: Org::Svc::Name::MODULE, Properties: {...}}`
by the fragment's resources, each logical id prefixed with `MyModule`; the Properties are the
fragment's parameters (defaults otherwise); conditions and mappings are prefixed too, and every
Ref, Fn::GetAtt, Fn::Sub, Fn::If, Fn::FindInMap, DependsOn and Condition that names them follows.
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

from cfngen._errors import CfngenError
from cfngen._kinds._parameters import parse_params
from cfngen._kinds.module._fragment import MODULE_SUFFIX, decode, plain
from cfngen._kinds.module._local import LocalType, local_types
from cfngen._kinds.module._nesting import MAX_DEPTH

__all__ = ["DEFAULT_LOGICAL_ID", "Rendered", "parse_params", "render"]

DEFAULT_LOGICAL_ID = "Module"
_LOGICAL_ID = re.compile(r"^[A-Za-z0-9]{1,255}$")
#: Parameter types whose value is a Systems Manager parameter's name, resolved at deploy time.
_SSM_TYPES = ("AWS::SSM::Parameter::Value<", "AWS::SSM::Parameter::Name")
_SUB_VARIABLE = re.compile(r"\$\{(?!!)([^}]+)\}")


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
) -> Rendered:
    """The consumer template that uses the (plain) fragment `template` as `logical_id`."""
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
    )
    for name, section in sections.items():
        if section:
            out.template[name] = section
    if outputs:
        out.template["Outputs"] = {
            f"{logical_id}{name}": {"Value": value} for name, value in outputs.items()
        }
    return out


def _parameter_values(
    declared: dict[str, Any], given: dict[str, Any], *, top: bool, where: str
) -> dict[str, Any]:
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise CfngenError(
            f"{where}: no parameter named {', '.join(unknown)}",
            f"the module's parameters: {', '.join(declared) or 'none'}",
        )
    values: dict[str, Any] = {}
    for name, raw in declared.items():
        param = raw if isinstance(raw, dict) else {}
        if name in given:
            value = given[name]
        elif "Default" in param:
            value = param["Default"]
        else:
            flag = f"--param {name}=VALUE" if top else f"{name} in the module's Properties"
            raise CfngenError(
                f"{where}: parameter {name} has no value and no default", f"give it: {flag}"
            )
        ptype = str(param.get("Type", "String"))
        if (ptype.startswith("List<") or ptype == "CommaDelimitedList") and isinstance(value, str):
            value = [item.strip() for item in value.split(",")]
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        values[name] = value
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
) -> dict[str, Any]:
    """Add the fragment's resources, conditions and mappings to `sections` under `prefix`;
    return its outputs' values."""
    declared = _section(template, "Parameters")
    values = _parameter_values(declared, given, top=top, where=chain[-1])
    for name, value in values.items():
        ptype = str((declared.get(name) or {}).get("Type", ""))
        if ptype.startswith(_SSM_TYPES) and isinstance(value, str):
            # CloudFormation resolves the path when the stack deploys: it stays a parameter of
            # the template that uses the module, with the value as its default.
            sections["Parameters"][prefix + name] = {"Type": ptype, "Default": value}
            values[name] = {"Ref": prefix + name}
    resources = _section(template, "Resources")
    names = _Names(
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
        names.nested[name] = _expand(
            nested,
            prefix + name,
            properties,
            sections,
            warnings,
            local=local,
            chain=[*chain, rtype],
        )
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
        name: names.rewrite(output.get("Value"))
        for name, output in _section(template, "Outputs").items()
        if isinstance(output, dict)
    }


def _section(template: dict[str, Any], name: str) -> dict[str, Any]:
    """A section of the fragment as a mapping ({} when absent or not one: validate says so)."""
    value = template.get(name)
    return value if isinstance(value, dict) else {}


def _load(found: LocalType) -> dict[str, Any]:
    path = found.fragment()
    assert path is not None
    decoded = decode(path.read_text(encoding="utf-8"))
    if not isinstance(decoded.template, dict):
        raise CfngenError(
            f"{path}: the fragment of {found.type_name} cannot be read",
            "run `cfngen validate` in its project",
        )
    return dict(plain(decoded.template))


@dataclass
class _Names:
    prefix: str
    params: dict[str, Any]
    resources: set[str]
    conditions: set[str]
    mappings: set[str]
    #: Resources that are expanded modules -> their outputs' values.
    nested: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Resources that are expanded modules -> the logical ids of what they expanded into.
    expanded: dict[str, list[str]] = field(default_factory=dict)

    def depends_on(self, value: Any) -> Any:
        """DependsOn a resource follows its prefix; on an expanded module, on what it made."""
        names = value if isinstance(value, list) else [value]
        out: list[Any] = []
        for name in names:
            for found in (
                self.expanded.get(name, [self.resource(name)]) if isinstance(name, str) else [name]
            ):
                if found not in out:
                    out.append(found)
        return out if isinstance(value, list) or len(out) != 1 else out[0]

    def resource(self, name: Any) -> Any:
        return self.prefix + name if isinstance(name, str) and name in self.resources else name

    def condition(self, name: Any) -> Any:
        return self.prefix + name if isinstance(name, str) and name in self.conditions else name

    def rewrite(self, node: Any) -> Any:
        if isinstance(node, list):
            return [self.rewrite(item) for item in node]
        if not isinstance(node, dict):
            return node
        if len(node) == 1:
            [(key, value)] = node.items()
            handled = self._function(key, value)
            if handled is not _UNHANDLED:
                return handled
        return {key: self.rewrite(value) for key, value in node.items()}

    def _function(self, key: str, value: Any) -> Any:
        if key == "Ref" and isinstance(value, str):
            if value in self.params:
                return copy.deepcopy(self.params[value])
            return {"Ref": self.resource(value)}
        if key == "Fn::GetAtt":
            target, attribute = _getatt_parts(value)
            if target is None:
                return {key: self.rewrite(value)}
            if target in self.nested and attribute in self.nested[target]:
                return copy.deepcopy(self.nested[target][attribute])
            return {key: [self.resource(target), self.rewrite(attribute)]}
        if key == "Fn::Sub":
            return self._sub(value)
        if key == "Fn::If" and isinstance(value, list) and value:
            return {key: [self.condition(value[0]), *self.rewrite(value[1:])]}
        if key == "Condition" and isinstance(value, str):
            return {key: self.condition(value)}
        if key == "Fn::FindInMap" and isinstance(value, list) and value:
            first = value[0]
            name = (
                self.prefix + first if isinstance(first, str) and first in self.mappings else first
            )
            return {key: [self.rewrite(name), *self.rewrite(value[1:])]}
        return _UNHANDLED

    def _sub(self, value: Any) -> Any:
        if isinstance(value, str):
            text, variables = value, {}
        elif isinstance(value, list) and value and isinstance(value[0], str):
            text = value[0]
            variables = dict(value[1]) if len(value) > 1 and isinstance(value[1], dict) else {}
        else:
            return {"Fn::Sub": self.rewrite(value)}
        local = set(variables)
        extra: dict[str, Any] = {}

        def replace(match: re.Match[str]) -> str:
            inner = match.group(1).strip()
            head, dot, attribute = inner.partition(".")
            if inner in local:
                return match.group(0)
            if not dot and head in self.params:
                param = self.params[head]
                if isinstance(param, str):
                    return param.replace("${", "${!")
                extra[head] = copy.deepcopy(param)
                return match.group(0)
            if dot and head in self.nested and attribute in self.nested[head]:
                output = self.nested[head][attribute]
                if isinstance(output, str):
                    return output
                var = f"{head}{attribute}"
                extra[var] = copy.deepcopy(output)
                return "${" + var + "}"
            if head in self.resources:
                return "${" + self.prefix + inner + "}"
            return match.group(0)

        rendered = _SUB_VARIABLE.sub(replace, text)
        merged = {name: self.rewrite(v) for name, v in variables.items()}
        merged.update(extra)
        if not merged and "${" not in rendered.replace("${!", ""):
            # Nothing left to substitute: the plain string (which cfn-lint can check).
            return rendered.replace("${!", "${")
        return {"Fn::Sub": [rendered, merged] if merged else rendered}


_UNHANDLED = object()


def _getatt_parts(value: Any) -> tuple[str | None, Any]:
    if isinstance(value, str) and "." in value:
        target, _, attribute = value.partition(".")
        return target, attribute
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str):
        return value[0], value[1]
    return None, None
