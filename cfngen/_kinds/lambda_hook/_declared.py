"""What a template declares for a Lambda hook: its `AWS::CloudFormation::LambdaHook` resources,
what each targets, and the Lambda function of the template its `LambdaFunction` names.

`LambdaFunction` takes an ARN, a partial ARN, a name, a version or an alias (the resource's
schema in cfn-lint): `!GetAtt F.Arn`, `!Ref F` (a function's Ref is its name), `!Sub
"${F.Arn}"`, a Ref to an `AWS::Lambda::Version` or `AWS::Lambda::Alias` of F, or a literal
ARN or name that ends in F's FunctionName.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen._kinds.lambda_hook._requests import ACTIONS, TARGET_OPERATIONS

LAMBDA_HOOK_TYPE = "AWS::CloudFormation::LambdaHook"
FUNCTION_TYPES = ("AWS::Serverless::Function", "AWS::Lambda::Function")
_VERSION_TYPES = ("AWS::Lambda::Version", "AWS::Lambda::Alias")
#: Template files a Lambda hook project is looked for in, SAM's default names first.
TEMPLATE_NAMES = ("template.yaml", "template.yml", "template.json")
_TEMPLATE_SUFFIXES = (".yaml", ".yml", ".json", ".template")
_MAX_TEMPLATE_BYTES = 1 << 20


@dataclass
class LambdaHook:
    """One `AWS::CloudFormation::LambdaHook` of a template, read plainly."""

    logical_id: str
    properties: dict[str, Any]
    #: The logical id of the template's function that LambdaFunction names (None: none).
    function: str | None
    target_operations: list[str] = field(default_factory=list)
    #: TargetFilters: the actions (CREATE, UPDATE, DELETE) and target names it filters on.
    actions: list[str] = field(default_factory=lambda: list(ACTIONS))
    target_names: list[str] = field(default_factory=list)

    @property
    def alias(self) -> str:
        alias = self.properties.get("Alias")
        return alias if isinstance(alias, str) else "Private::Lambda::Hook"


def lambda_hooks(document: Mapping[str, Any]) -> dict[str, LambdaHook]:
    """Every LambdaHook of a template (plain data), by logical id, in the template's order."""
    resources = document.get("Resources")
    if not isinstance(resources, Mapping):
        return {}
    found: dict[str, LambdaHook] = {}
    for name, body in resources.items():
        if not isinstance(body, Mapping) or body.get("Type") != LAMBDA_HOOK_TYPE:
            continue
        properties = body.get("Properties")
        properties = dict(properties) if isinstance(properties, Mapping) else {}
        hook = LambdaHook(
            str(name), properties, function_named(properties.get("LambdaFunction"), resources)
        )
        operations = properties.get("TargetOperations")
        if isinstance(operations, list):
            hook.target_operations = [o for o in operations if o in TARGET_OPERATIONS]
        _read_filters(hook, properties.get("TargetFilters"))
        found[str(name)] = hook
    return found


def _read_filters(hook: LambdaHook, filters: Any) -> None:
    if not isinstance(filters, Mapping):
        return
    targets = filters.get("Targets")
    if isinstance(targets, list):  # the long form: each target its own (name, action)
        pairs = [t for t in targets if isinstance(t, Mapping)]
        hook.target_names = _unique(str(t.get("TargetName")) for t in pairs if t.get("TargetName"))
        hook.actions = _unique(str(t["Action"]) for t in pairs if t.get("Action") in ACTIONS)
        return
    names = filters.get("TargetNames")
    if isinstance(names, list):
        hook.target_names = _unique(str(n) for n in names if isinstance(n, str))
    actions = filters.get("Actions")
    if isinstance(actions, list):
        hook.actions = [a for a in ACTIONS if a in actions]


def _unique(values: Any) -> list[str]:
    return list(dict.fromkeys(values))


def function_named(value: Any, resources: Mapping[str, Any]) -> str | None:
    """The logical id of the template's Lambda function `value` names, or None."""
    candidates: list[str] = []
    if isinstance(value, Mapping) and len(value) == 1:
        ((fn, arg),) = value.items()
        if fn == "Fn::GetAtt":
            target = arg[0] if isinstance(arg, list) and arg else str(arg).split(".")[0]
            candidates.append(str(target))
        elif fn == "Ref":
            candidates.append(str(arg))
        elif fn == "Fn::Sub":
            text = arg[0] if isinstance(arg, list) and arg else arg
            candidates += re.findall(r"\$\{([A-Za-z0-9]+)(?:\.[A-Za-z]+)?\}", str(text))
    elif isinstance(value, str):
        for logical_id, body in resources.items():
            properties = body.get("Properties") if isinstance(body, Mapping) else None
            name = properties.get("FunctionName") if isinstance(properties, Mapping) else None
            if isinstance(name, str) and re.search(
                rf"(^|:){re.escape(name)}(:[A-Za-z0-9$_-]+)?$", value
            ):
                candidates.append(str(logical_id))
    for candidate in candidates:
        body = resources.get(candidate)
        if not isinstance(body, Mapping):
            continue
        kind = body.get("Type")
        if kind in FUNCTION_TYPES:
            return candidate
        if kind in _VERSION_TYPES:  # a version or alias of a function: that function
            inner = dict(body.get("Properties") or {}).get("FunctionName")
            found = function_named(inner, resources)
            if found is not None:
                return found
    return None


# --------------------------------------------------------------------------- finding templates


def template_candidates(root: Path) -> list[Path]:
    """The files at the top of `root` that may be templates, SAM's default names first."""
    try:
        entries = sorted(p for p in root.iterdir() if p.suffix in _TEMPLATE_SUFFIXES)
    except OSError:
        return []
    named = [root / name for name in TEMPLATE_NAMES]
    return [p for p in named if p.is_file()] + [
        p for p in entries if p.name not in TEMPLATE_NAMES and p.is_file()
    ]


def declares_lambda_hook(path: Path) -> list[str]:
    """The logical ids of the LambdaHooks a template file declares ([] when it is no readable
    template). Cheap: a plain YAML read, no cfn-lint (the registry asks every kind)."""
    from cfngen._cfn_template import read_plain

    try:
        if not path.is_file() or path.stat().st_size > _MAX_TEMPLATE_BYTES:
            return []
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    if LAMBDA_HOOK_TYPE not in text:
        return []
    try:
        document = read_plain(text, as_json=path.suffix == ".json")
    except ValueError:
        return []
    return list(lambda_hooks(document)) if isinstance(document, Mapping) else []


def lambda_hook_template(root: Path) -> Path | None:
    """The first template at the top of `root` that declares a LambdaHook."""
    for path in template_candidates(root):
        if declares_lambda_hook(path):
            return path
    return None
