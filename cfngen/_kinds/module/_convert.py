"""`cfngen init --artifact-type module --from-template FILE`: an existing CloudFormation template
turned into a module's fragment.

What a module cannot contain is listed with its line (exit 1); with `--drop-forbidden` it is
removed and each removal is reported: the Transform section, Export in outputs, resources of a
forbidden type, properties built with Fn::Transform; an Fn::ImportValue becomes a Ref to a new
String parameter (the template that uses the module passes the imported value).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen._cfn_template import decode, plain
from cfngen._errors import CfngenError, ExitCode
from cfngen._kinds.module import _checks


@dataclass
class Converted:
    text: str
    #: What was removed or changed, one sentence each.
    removed: list[str] = field(default_factory=list)


def convert(path: Path, *, fmt: str, drop: bool) -> Converted:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CfngenError(
            f"{path}: cannot read it: {exc}", "pass a CloudFormation template"
        ) from None
    decoded = decode(text)
    if not isinstance(decoded.template, dict) or "Resources" not in decoded.template:
        decoded.errors = decoded.errors or [(1, 1, "it has no Resources section")]
        decoded.template = None
    if decoded.template is None:
        line, column, message = decoded.errors[0]
        raise CfngenError(
            f"{path}:{line}:{column}: not a CloudFormation template: {message}",
            "pass a JSON or YAML CloudFormation template",
        )
    findings = [
        d for d in _checks.check(decoded.template, text, root=None) if d.severity == "error"
    ]
    template = plain(decoded.template)
    removed: list[str] = []
    if findings and not drop:
        listed = "; ".join(f"{path}:{d.line}:{d.column}: {d.message}" for d in findings)
        raise CfngenError(
            f"the template holds {len(findings)} construct(s) a module cannot contain: {listed}",
            "remove them, or pass --drop-forbidden to have cfngen remove them",
            exit_code=ExitCode.FAILED,
        )
    if drop:
        removed = _drop(template)
        left = [
            d
            for d in _checks.check(template, _dump(template, "json"), root=None)
            if d.severity == "error"
        ]
        if left:
            raise CfngenError(
                f"{path}: after removing what a module cannot contain, the template is still "
                f"not a module: {'; '.join(d.message for d in left)}",
                "fix the template by hand, then run init again",
                exit_code=ExitCode.FAILED,
            )
    return Converted(text=_dump(template, fmt), removed=removed)


def _dump(template: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(template, indent=4) + "\n"
    import yaml

    return str(yaml.safe_dump(template, sort_keys=False, allow_unicode=True, width=100))


def _drop(template: dict[str, Any]) -> list[str]:
    removed: list[str] = []
    for key in ("Transform", "transform"):
        if key in template:
            removed.append(f"removed the {key} section ({json.dumps(template.pop(key))})")
    outputs = template.get("Outputs")
    for name, output in outputs.items() if isinstance(outputs, dict) else []:
        if isinstance(output, dict) and output.pop("Export", None) is not None:
            removed.append(f"removed the Export of output {name}")
    found = template.get("Resources")
    resources: dict[str, Any] = found if isinstance(found, dict) else {}
    for name in list(resources):
        rtype = resources[name].get("Type") if isinstance(resources[name], dict) else None
        if rtype in _checks.FORBIDDEN_TYPES or str(rtype).startswith("AWS::Serverless::"):
            del resources[name]
            why = _checks.FORBIDDEN_TYPES.get(str(rtype), "it needs a transform")
            removed.append(f"removed resource {name} ({rtype}): {why}")
    existing = template.get("Parameters")
    taken = dict(existing) if isinstance(existing, dict) else {}
    new: dict[str, Any] = {}
    _rewrite(template, "", taken, new, removed)
    if new:
        if isinstance(existing, dict):
            existing.update(new)
        else:
            reordered = {k: v for k, v in template.items() if k != "Resources"}
            reordered["Parameters"] = new
            reordered.update({k: v for k, v in template.items() if k == "Resources"})
            template.clear()
            template.update(reordered)
    return removed


def _parameter_name(export: Any, taken: dict[str, Any]) -> str:
    words = re.findall(r"[A-Za-z0-9]+", export if isinstance(export, str) else "")
    name = ("Imported" + "".join(w[:1].upper() + w[1:] for w in words))[:60]
    candidate, number = name, 1
    while candidate in taken:
        number += 1
        candidate = f"{name}{number}"
    return candidate


def _import(
    value: Any, where: str, taken: dict[str, Any], new: dict[str, Any], removed: list[str]
) -> Any:
    """`value` with an Fn::ImportValue replaced by a Ref to a new parameter (else None)."""
    if not (isinstance(value, dict) and set(value) == {"Fn::ImportValue"}):
        return None
    export = value["Fn::ImportValue"]
    name = _parameter_name(export, taken)
    taken[name] = new[name] = {
        "Type": "String",
        "Description": f"The value the template imported as {json.dumps(export)}",
    }
    removed.append(
        f"{where}: replaced Fn::ImportValue {json.dumps(export)} with the new parameter {name}"
    )
    return {"Ref": name}


def _rewrite(
    node: Any, pointer: str, taken: dict[str, Any], new: dict[str, Any], removed: list[str]
) -> None:
    if isinstance(node, dict):
        for key in list(node):
            value, child = node[key], f"{pointer}/{key}"
            if isinstance(value, dict) and "Fn::Transform" in value:
                del node[key]
                removed.append(f"removed {child}: it was made by Fn::Transform")
                continue
            replaced = _import(value, child, taken, new, removed)
            if replaced is not None:
                node[key] = replaced
            else:
                _rewrite(value, child, taken, new, removed)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            child = f"{pointer}/{index}"
            replaced = _import(value, child, taken, new, removed)
            if replaced is not None:
                node[index] = replaced
            else:
                _rewrite(value, child, taken, new, removed)
