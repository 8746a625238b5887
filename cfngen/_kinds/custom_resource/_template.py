"""The custom resource and its function, as SAM finds them in the template.

The template is read with cfn-lint's decoder (YAML short forms become the long-form intrinsics);
the custom resource is the `Custom::*` / `AWS::CloudFormation::CustomResource` (`--resource`
when there are several); its function is the `AWS::Serverless::Function` or
`AWS::Lambda::Function` its ServiceToken names (`GetAtt F.Arn`, `Sub "${F.Arn}"`, `Ref F`, or
an ARN ending in the FunctionName), with SAM's `Globals.Function`. Properties are resolved
offline (_intrinsics.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError
from cfngen._kinds.custom_resource._intrinsics import _NO_VALUE, ACCOUNT_ID, STACK_NAME, _Resolver
from cfngen._kinds.custom_resource._lambda import CFNRESPONSE, Function

TEMPLATE_NAMES = ("template.yaml", "template.yml", "template.json")
FUNCTION_TYPES = ("AWS::Serverless::Function", "AWS::Lambda::Function")
_CUSTOM = re.compile(r"^(Custom::[A-Za-z0-9_@-]{1,60}|AWS::CloudFormation::CustomResource)$")


def load_template(path: Path) -> dict[str, Any]:
    from cfnlint.decode import decode_str  # type: ignore[import-untyped]

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CfngenError(f"{path}: cannot read it: {exc}", "pass a readable template") from None
    template, matches = decode_str(text)
    if template is None or not isinstance(template, dict):
        first = matches[0].message if matches else "not a template"
        raise CfngenError(f"{path}: cannot read it: {first}", "fix the template")
    plain: dict[str, Any] = json.loads(json.dumps(template, default=str))
    return plain


def find_template(root: Path, given: Path | None) -> Path:
    if given is not None:
        path = given if given.is_absolute() else root / given
        if not path.is_file():
            raise CfngenError(f"{given}: no such template", "pass --template FILE")
        return path
    for name in TEMPLATE_NAMES:
        if (root / name).is_file():
            return root / name
    from cfngen._project import custom_resource_template

    found = custom_resource_template(root)
    if found is None:
        raise CfngenError(
            f"{root}: no template.yaml, template.yml or template.json",
            "pass --template FILE",
        )
    return found


@dataclass
class Resource:
    logical_id: str
    type: str
    properties: dict[str, Any]
    service_timeout: int | None
    function: Function
    template: Path
    warnings: list[str] = field(default_factory=list)


def find_resource(
    root: Path,
    *,
    template: Path | None = None,
    resource: str | None = None,
    handler: str | None = None,
    region: str = "us-east-1",
) -> Resource:
    path = find_template(root, template)
    document = load_template(path)
    resources = document.get("Resources")
    if not isinstance(resources, dict):
        raise CfngenError(f"{path}: has no Resources", "add the custom resource")
    customs = {
        name: body
        for name, body in resources.items()
        if isinstance(body, dict)
        and isinstance(body.get("Type"), str)
        and _CUSTOM.match(body["Type"])
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
    resolver = _Resolver(document, region, warnings)
    properties = {
        key: value
        for key, value in ((k, resolver.stringify(resolver.resolve(v))) for k, v in raw.items())
        if value is not _NO_VALUE
    }
    timeout = (body.get("Properties") or {}).get("ServiceTimeout")
    service_timeout = (
        int(timeout) if isinstance(timeout, (int, str)) and str(timeout).isdigit() else None
    )
    if handler is not None:
        function = _function_from_flag(root, handler)
    else:
        function = _function(path, document, chosen, token)
    properties["ServiceToken"] = (
        f"arn:aws:lambda:{region}:{ACCOUNT_ID}:function:{STACK_NAME}-{function.logical_id}"
    )
    return Resource(chosen, body["Type"], properties, service_timeout, function, path, warnings)


def _function_from_flag(root: Path, handler: str) -> Function:
    file, sep, attribute = handler.rpartition(":")
    if not sep or not file.endswith(".py") or not attribute.isidentifier():
        raise CfngenError(
            f"--handler {handler!r} is not FILE.py:FUNCTION", "e.g. --handler src/app.py:handler"
        )
    path = Path(file) if Path(file).is_absolute() else root / file
    if not path.is_file():
        raise CfngenError(f"--handler: {file} does not exist", "name the handler's file")
    return Function("Function", path.parent, path.stem, attribute)


def _function(path: Path, document: Mapping[str, Any], custom: str, token: Any) -> Function:
    resources = document.get("Resources") or {}
    name = _token_target(token, resources)
    hint = (
        "point its ServiceToken at a function in the template, or pass --handler FILE.py:FUNCTION"
    )
    if name is None:
        raise CfngenError(
            f"{path}: {custom}'s ServiceToken names no function of this template", hint
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
                hint,
            )
        body = resources[name]
        kind = body.get("Type")
    if kind not in FUNCTION_TYPES:
        raise CfngenError(
            f"{path}: {custom}'s ServiceToken names {name}, a {kind}, not a Lambda function", hint
        )
    properties = dict(body.get("Properties") or {})
    if kind == "AWS::Serverless::Function":
        globals_ = (document.get("Globals") or {}).get("Function") or {}
        properties = {**globals_, **properties}
    handler = properties.get("Handler")
    if not isinstance(handler, str) or "." not in handler:
        raise CfngenError(f"{path}: {name} has no Handler module.function", hint)
    module, _, attribute = handler.rpartition(".")
    module = module.replace("/", ".")
    inline: str | None = None
    code_dir: Path | None = None
    code = properties.get("Code")
    text = properties.get("InlineCode") if kind == FUNCTION_TYPES[0] else None
    if kind != FUNCTION_TYPES[0] and isinstance(code, dict):
        text = code.get("ZipFile")
    if isinstance(text, dict):  # Fn::Sub / Fn::Join around the code
        text = _Resolver(document, "us-east-1", []).resolve(text)
    if isinstance(text, str):
        inline = text
    elif kind == "AWS::Serverless::Function":
        code_uri = properties.get("CodeUri", ".")
        if not isinstance(code_uri, str) or code_uri.startswith("s3://"):
            raise CfngenError(f"{path}: {name}'s CodeUri is not a local folder", hint)
        code_dir = path.parent / code_uri
    elif isinstance(code, str) and not code.startswith("s3://"):
        code_dir = path.parent / code  # `aws cloudformation package` input
    else:
        raise CfngenError(f"{path}: {name}'s Code is in S3, not in this folder", hint)
    if inline is not None:
        from cfngen._files import scratch_folder

        folder = scratch_folder("cfngen-cr-inline-")
        (folder / f"{module.split('.')[0]}.py").write_text(inline, encoding="utf-8")
        (folder / "cfnresponse.py").write_text(CFNRESPONSE.read_text(encoding="utf-8"))
        code_dir = folder
    assert code_dir is not None
    if not code_dir.is_dir():
        raise CfngenError(f"{path}: {name}'s code folder {code_dir} does not exist", hint)
    timeout = properties.get("Timeout", 3)
    memory = properties.get("MemorySize", 128)
    return Function(
        name,
        code_dir,
        module,
        attribute,
        timeout=float(timeout)
        if isinstance(timeout, (int, float, str)) and str(timeout).replace(".", "", 1).isdigit()
        else 3.0,
        memory=int(memory) if isinstance(memory, int) else 128,
        runtime=properties.get("Runtime") if isinstance(properties.get("Runtime"), str) else None,
        inline=inline is not None,
        layers=_layers(path, resources, properties.get("Layers")),
        sns_topic=topic,
    )


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


def _layers(path: Path, resources: Mapping[str, Any], given: Any) -> tuple[Path, ...]:
    """The local folders of the layers a function names (`Ref` to an
    AWS::Serverless::LayerVersion with a local ContentUri); Python layers keep modules in
    `python/`."""
    out: list[Path] = []
    for item in given if isinstance(given, list) else []:
        target = item.get("Ref") if isinstance(item, dict) else None
        body = resources.get(target) if isinstance(target, str) else None
        if not isinstance(body, dict) or body.get("Type") != "AWS::Serverless::LayerVersion":
            continue
        content = (body.get("Properties") or {}).get("ContentUri")
        if isinstance(content, str) and not content.startswith("s3://"):
            folder = path.parent / content
            out.append(folder / "python" if (folder / "python").is_dir() else folder)
    return tuple(out)


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
