"""The stack a custom resource or a Lambda hook is tested in, offline: its account, name and
pseudo parameters, and the template's intrinsic functions resolved from them and from parameter
defaults (whatever cannot be known offline becomes a placeholder, with a warning).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

ACCOUNT_ID = "123456789012"
STACK_NAME = "cfngen-test"
PSEUDO = {
    "AWS::AccountId": ACCOUNT_ID,
    "AWS::Partition": "aws",
    "AWS::StackName": STACK_NAME,
    "AWS::URLSuffix": "amazonaws.com",
    "AWS::NotificationARNs": "",
}


def stack_id(region: str) -> str:
    return (
        f"arn:aws:cloudformation:{region}:{ACCOUNT_ID}:stack/{STACK_NAME}/"
        "2c5d4e80-6d7a-11ef-9c1d-0a1b2c3d4e5f"
    )


_NO_VALUE = object()


class _Resolver:
    """Intrinsics resolved from the parameter values given (`--param`, `--params`: values or
    intrinsics of their own), else parameter defaults, and pseudo parameters; else a
    placeholder, with a warning."""

    def __init__(
        self,
        document: Mapping[str, Any],
        region: str,
        warnings: list[str],
        given: Mapping[str, Any] | None = None,
    ) -> None:
        parameters = document.get("Parameters") or {}
        self.document = document
        self.region = region
        self.given = dict(given or {})
        self.values: dict[str, Any] = {
            name: body["Default"]
            for name, body in parameters.items()
            if isinstance(body, dict) and "Default" in body
        }
        self.values.update(PSEUDO)
        self.values["AWS::Region"] = region
        self.values["AWS::StackId"] = stack_id(region)
        self.parameters = set(parameters)
        self.resources = set(document.get("Resources") or {})
        self.warnings = warnings
        for name, value in self.given.items():
            self.values[name] = self.resolve(value)

    def _placeholder(self, what: str) -> str:
        self.warnings.append(f"{what} cannot be resolved offline: a placeholder stands for it")
        return f"cfngen-placeholder-{re.sub(r'[^A-Za-z0-9]+', '-', what).strip('-')}"

    def ref(self, name: str) -> Any:
        if name == "AWS::NoValue":
            return _NO_VALUE
        if name in self.values:
            return self.values[name]
        return self._placeholder(f"Ref {name}")

    def resolve(self, value: Any) -> Any:
        if isinstance(value, list):
            return [v for v in (self.resolve(item) for item in value) if v is not _NO_VALUE]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            ((key, arg),) = value.items()
            if key == "Ref" and isinstance(arg, str):
                return self.ref(arg)
            if key == "Fn::Sub":
                return self._sub(arg)
            if key == "Fn::Join" and isinstance(arg, list) and len(arg) == 2:
                parts = self.resolve(arg[1])
                if isinstance(parts, list):
                    return str(arg[0]).join(self.stringify(p) for p in parts)
            if key == "Fn::Select" and isinstance(arg, list) and len(arg) == 2:
                items = self.resolve(arg[1])
                index = self.resolve(arg[0])
                if isinstance(items, list) and str(index).isdigit() and int(index) < len(items):
                    return items[int(index)]
            if key == "Fn::Split" and isinstance(arg, list) and len(arg) == 2:
                text = self.resolve(arg[1])
                if isinstance(text, str):
                    return text.split(str(arg[0]))
            if key.startswith("Fn::") or key == "Condition":
                return self._placeholder(key + " " + json.dumps(arg)[:60])
        return {
            k: v for k, v in ((k, self.resolve(v)) for k, v in value.items()) if v is not _NO_VALUE
        }

    def _sub(self, arg: Any) -> str:
        text, extra = (arg[0], arg[1]) if isinstance(arg, list) and len(arg) == 2 else (arg, {})
        variables = {k: self.resolve(v) for k, v in (extra or {}).items()}

        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            if name.startswith("!"):
                return "${" + name[1:] + "}"
            if name in variables:
                return str(self.stringify(variables[name]))
            if "." in name:
                return self._placeholder(f"GetAtt {name}")
            return str(self.stringify(self.ref(name)))

        return re.sub(r"\$\{([^}]+)\}", one, str(text))

    def stringify(self, value: Any) -> Any:
        """CloudFormation sends every scalar as a string."""
        if value is _NO_VALUE:
            return value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return str(value)
        if isinstance(value, list):
            return [self.stringify(v) for v in value]
        if isinstance(value, dict):
            return {k: self.stringify(v) for k, v in value.items()}
        return value
