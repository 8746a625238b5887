"""How names in a module's fragment follow it into the template that uses it: every Ref,
Fn::GetAtt (both forms), Fn::Sub (`${!Literal}` kept), Fn::If, Condition, Fn::FindInMap and
DependsOn that names something the module declares gets the module's logical id as a prefix;
a parameter becomes its value, and an expanded module's output its value (_render.py)."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

_SUB_VARIABLE = re.compile(r"\$\{(?!!)([^}]+)\}")


@dataclass
class Names:
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
