"""The custom resource and its function, as SAM finds them in the template.

The template is read with cfn-lint's decoder (YAML short forms become the long-form intrinsics);
the custom resource is the `Custom::*` / `AWS::CloudFormation::CustomResource` (`--resource`
when there are several); its function is the `AWS::Serverless::Function` or
`AWS::Lambda::Function` its ServiceToken names (`GetAtt F.Arn`, `Sub "${F.Arn}"`, `Ref F`, or
an ARN ending in the FunctionName), with SAM's `Globals.Function`; its code is loaded by
_code.py. Properties are resolved offline (_intrinsics.py), with the parameter values given.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError
from cfngen._kinds._shared._intrinsics import _NO_VALUE, ACCOUNT_ID, STACK_NAME, _Resolver
from cfngen._kinds._shared._lambda import Function
from cfngen._kinds._shared._lambda_code import FUNCTION_TYPES, HINT, Declared, load_template

__all__ = ["FUNCTION_TYPES", "Resource", "find_resource", "find_template", "load_template"]

TEMPLATE_NAMES = ("template.yaml", "template.yml", "template.json")


def find_template(root: Path, given: Path | None) -> Path:
    """`given` (relative to `root`), else the first template at the top of `root` that
    declares a custom resource (SAM's default names first)."""
    if given is not None:
        path = given if given.is_absolute() else root / given
        if not path.is_file():
            raise CfngenError(f"{given}: no such template", "pass --template FILE")
        return path
    from cfngen._kinds.custom_resource._detect import custom_resource_template

    found = custom_resource_template(root)
    if found is not None:
        return found
    for name in TEMPLATE_NAMES:  # it will say it declares no custom resource
        if (root / name).is_file():
            return root / name
    raise CfngenError(
        f"{root}: no template.yaml, template.yml or template.json",
        "pass --template FILE",
    )


@dataclass
class Resource:
    logical_id: str
    type: str
    properties: dict[str, Any]
    service_timeout: int | None
    function: Function
    template: Path
    warnings: list[str] = field(default_factory=list)
    #: Every custom type the template declares (its files are per type when there are several).
    types: frozenset[str] = frozenset()


def find_resource(
    root: Path,
    *,
    template: Path | None = None,
    resource: str | None = None,
    handler: str | None = None,
    region: str = "us-east-1",
    parameters: Mapping[str, Any] | None = None,
) -> Resource:
    from cfngen._kinds._shared import _lambda_code as _code
    from cfngen._kinds._shared._reach import Reach
    from cfngen._kinds.custom_resource import CUSTOM_TYPE_NAME
    from cfngen._kinds.custom_resource._detect import is_custom_resource_type

    path = find_template(root, template)
    document = load_template(path)
    resources = document.get("Resources")
    if not isinstance(resources, dict):
        raise CfngenError(f"{path}: has no Resources", "add the custom resource")
    customs = {
        name: body
        for name, body in resources.items()
        if isinstance(body, dict) and is_custom_resource_type(body.get("Type"))
    }
    if resource is not None:
        if resource not in customs:
            raise CfngenError(
                f"{path}: no custom resource {resource}",
                f"use one of {', '.join(sorted(customs)) or '(none)'}",
            )
        chosen = resource
    elif len(customs) == 1:
        (chosen,) = customs
    elif not customs:
        raise CfngenError(
            f"{path}: declares no Custom:: or AWS::CloudFormation::CustomResource resource",
            "add one, or pass --template",
        )
    else:
        raise CfngenError(
            f"{path}: declares {len(customs)} custom resources ({', '.join(sorted(customs))})",
            "pick one with --resource LOGICAL_ID",
        )
    body = customs[chosen]
    raw = body.get("Properties") or {}
    if not isinstance(raw, dict):
        raise CfngenError(f"{path}: {chosen}.Properties is not a mapping", "fix the template")
    token = raw.get("ServiceToken")
    raw = {k: v for k, v in raw.items() if k not in ("ServiceToken", "ServiceTimeout")}
    warnings: list[str] = []
    kind = str(body["Type"])
    if kind.startswith("Custom::") and not CUSTOM_TYPE_NAME.match(kind):
        warnings.append(
            f"{chosen}'s type {kind!r} is not a name CloudFormation accepts (Custom:: then 1 to "
            "60 letters, digits, _, @ or -): tested anyway; `cfngen validate` shows where"
        )
    resolver = _Resolver(
        document, region, warnings, _declared_parameters(path, document, parameters)
    )
    properties = {
        key: value
        for key, value in ((k, resolver.stringify(resolver.resolve(v))) for k, v in raw.items())
        if value is not _NO_VALUE
    }
    timeout = (body.get("Properties") or {}).get("ServiceTimeout")
    service_timeout = (
        int(timeout) if isinstance(timeout, (int, str)) and str(timeout).isdigit() else None
    )
    reach = Reach(root)
    if handler is not None:
        try:
            declared: Declared | None = _declared(path, document, chosen, token)
        except CfngenError:
            declared = None  # --handler stands for a function the template does not hold
        function, note = _code.from_flag(root, handler, path, declared, reach)
        warnings.append(note)
    else:
        declared = _declared(path, document, chosen, token)
        function = _code.from_template(path, declared, resolver, reach)
    warnings.extend(reach.notes)
    properties["ServiceToken"] = (
        f"arn:aws:lambda:{region}:{ACCOUNT_ID}:function:{STACK_NAME}-{function.logical_id}"
    )
    types = frozenset(str(b["Type"]) for b in customs.values())
    return Resource(
        chosen, kind, properties, service_timeout, function, path, warnings, types=types
    )


def _declared_parameters(
    path: Path, document: Mapping[str, Any], given: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The parameter values given, each one the template declares."""
    declared = document.get("Parameters")
    names = sorted(declared) if isinstance(declared, dict) else []
    for name in given or {}:
        if name not in names:
            raise CfngenError(
                f"--param {name}: {path} declares no parameter {name}",
                f"its parameters are {', '.join(names)}" if names else "it declares none",
            )
    return dict(given or {})


def _declared(path: Path, document: Mapping[str, Any], custom: str, token: Any) -> Declared:
    """The function the custom resource's ServiceToken names, as the template declares it."""
    resources = document.get("Resources") or {}
    name = _token_target(token, resources)
    if name is None:
        raise CfngenError(
            f"{path}: {custom}'s ServiceToken names no function of this template", HINT
        )
    body = resources[name]
    kind = body.get("Type")
    topic: str | None = None
    if kind == "AWS::SNS::Topic":
        topic, name = name, _subscriber(name, resources)
        if name is None:
            raise CfngenError(
                f"{path}: {custom}'s ServiceToken names the SNS topic {topic}, which no Lambda "
                "function of this template subscribes to",
                HINT,
            )
        body = resources[name]
        kind = body.get("Type")
    if kind not in FUNCTION_TYPES:
        raise CfngenError(
            f"{path}: {custom}'s ServiceToken names {name}, a {kind}, not a Lambda function", HINT
        )
    properties = dict(body.get("Properties") or {})
    if kind == "AWS::Serverless::Function":
        globals_ = (document.get("Globals") or {}).get("Function") or {}
        properties = {**globals_, **properties}
    declared = Declared(name, kind, properties, resources, topic)
    declared.handler  # noqa: B018  # no Handler: refused before anything runs
    return declared


def _subscriber(topic: str, resources: Mapping[str, Any]) -> str | None:
    """The Lambda function subscribed to the topic: through the topic's Subscription list, an
    AWS::SNS::Subscription, or a SAM function's SNS event."""

    def function_of(endpoint: Any) -> str | None:
        found = _token_target(endpoint, resources)
        body = resources.get(found) if found else None
        return found if isinstance(body, dict) and body.get("Type") in FUNCTION_TYPES else None

    def is_topic(value: Any) -> bool:
        return bool(value in ({"Ref": topic}, topic))

    for name, body in resources.items():
        if not isinstance(body, dict):
            continue
        properties = body.get("Properties") or {}
        kind = body.get("Type")
        if name == topic:
            for item in properties.get("Subscription") or []:
                if isinstance(item, dict) and str(item.get("Protocol")).lower() == "lambda":
                    found = function_of(item.get("Endpoint"))
                    if found:
                        return found
        elif kind == "AWS::SNS::Subscription" and is_topic(properties.get("TopicArn")):
            found = function_of(properties.get("Endpoint"))
            if found:
                return found
        elif kind == "AWS::Serverless::Function":
            for event in (properties.get("Events") or {}).values():
                if (
                    isinstance(event, dict)
                    and event.get("Type") == "SNS"
                    and is_topic((event.get("Properties") or {}).get("Topic"))
                ):
                    return str(name)
    return None


def _token_target(token: Any, resources: Mapping[str, Any]) -> str | None:
    """The logical id of the function a ServiceToken names."""
    candidates: list[str] = []
    if isinstance(token, dict) and len(token) == 1:
        ((fn, arg),) = token.items()
        if fn == "Fn::GetAtt":
            target = arg[0] if isinstance(arg, list) and arg else str(arg).split(".")[0]
            candidates.append(str(target))
        elif fn == "Ref":
            candidates.append(str(arg))
        elif fn == "Fn::Sub":
            text = arg[0] if isinstance(arg, list) and arg else arg
            candidates += re.findall(r"\$\{([A-Za-z0-9]+)(?:\.[A-Za-z]+)?\}", str(text))
    elif isinstance(token, str):
        for logical_id, body in resources.items():
            properties = body.get("Properties") if isinstance(body, dict) else None
            function_name = properties.get("FunctionName") if isinstance(properties, dict) else None
            if isinstance(function_name, str) and token.endswith(f":function:{function_name}"):
                candidates.append(logical_id)
    for candidate in candidates:
        body = resources.get(candidate)
        if isinstance(body, dict) and body.get("Type") in FUNCTION_TYPES:
            return candidate
    return candidates[0] if candidates and candidates[0] in resources else None
