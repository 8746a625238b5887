"""`cfngen validate` for a Lambda hook project: each `AWS::CloudFormation::LambdaHook` of the
template against the resource's schema as cfn-lint bundles it, the function its LambdaFunction
names, and its target filters.

Errors are what CloudFormation refuses (a property the schema rejects, a required one missing)
or what leaves nothing to run (LambdaFunction names no function of the template); warnings are
what works but does not do what it says (target names with no resource operation to filter, a
target name no type matches, a function Timeout past the 30 seconds CloudFormation waits, an
execution role CloudFormation's hooks cannot assume).
"""

from __future__ import annotations

import copy
import fnmatch
import functools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cfngen._cfn_template import decode, plain, position
from cfngen._diagnostics import Diagnostic
from cfngen._errors import CfngenError
from cfngen._kinds.lambda_hook._declared import LAMBDA_HOOK_TYPE, LambdaHook, lambda_hooks
from cfngen._kinds.lambda_hook._rules import WAIT_SECONDS
from cfngen._validate._file_report import FileReport

#: The principal CloudFormation's hooks assume an execution role as.
HOOKS_PRINCIPAL = "hooks.cloudformation.amazonaws.com"
#: The schema's Alias pattern, `^(?!(?i)aws)...`, puts a flag where Python's re refuses one.
_ALIAS = re.compile(r"^[A-Za-z0-9]{2,64}::[A-Za-z0-9]{2,64}::[A-Za-z0-9]{2,64}$")
_RESOURCE_OPERATIONS = ("RESOURCE", "CLOUD_CONTROL")

Position = tuple[int | None, int | None]


def check_file(path: Path, *, strict: bool, display: str | None = None) -> FileReport:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CfngenError(f"{path}: cannot read it: {exc}", "pass a readable file") from None
    return check_text(text, path=path, strict=strict, display=display)


def check_text(
    text: str, *, path: Path | None, strict: bool, display: str | None = None
) -> FileReport:
    report = FileReport(display or (str(path) if path else "<text>"), strict=strict)
    add = report.diagnostics.append
    decoded = decode(text)
    if not isinstance(decoded.template, dict):
        line, column, first = decoded.errors[0] if decoded.errors else (1, 1, "not a template")
        add(
            Diagnostic(
                "error",
                "",
                f"cannot read the template: {first}",
                "fix its syntax",
                line,
                column,
                code="cfngen/lambda-hook-template-unreadable",
            )
        )
        return report
    document: dict[str, Any] = plain(decoded.template)
    hooks = lambda_hooks(document)
    if not hooks:
        add(
            Diagnostic(
                "error",
                "/Resources",
                f"the template declares no {LAMBDA_HOOK_TYPE}",
                "add one whose LambdaFunction is a function of this template",
                code="cfngen/lambda-hook-none",
            )
        )
        return report
    resources = decoded.template.get("Resources") or {}
    for name, hook in hooks.items():
        node = resources.get(name)
        at: Position = position(node) or (None, None)
        node_properties = node.get("Properties") if isinstance(node, dict) else None
        props = node_properties if isinstance(node_properties, dict) else {}

        def where(key: str, props: Mapping[str, Any] = props, at: Position = at) -> Position:
            return position(props.get(key)) or at

        _check_properties(report, name, hook.properties, props, at)
        _check_function(report, document, name, hook, where("LambdaFunction"))
        _check_targets(report, name, hook, where("TargetFilters"), where("TargetOperations"))
        _check_role(report, document, name, hook.properties.get("ExecutionRole"), where)
    return report


def _is_intrinsic(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and len(value) == 1
        and next(iter(value)).startswith(("Fn::", "Ref", "Condition"))
    )


def _holds_intrinsic(value: Any) -> bool:
    if _is_intrinsic(value):
        return True
    if isinstance(value, dict):
        return any(_holds_intrinsic(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_intrinsic(v) for v in value)
    return False


@functools.cache
def _schema() -> dict[str, Any] | None:
    """The LambdaHook resource's schema as cfn-lint bundles it, its Alias pattern dropped
    (checked by `_ALIAS` instead)."""
    from cfngen._kinds._shared._targets import bundled_schema

    found = bundled_schema(LAMBDA_HOOK_TYPE)
    if found is None:
        return None
    schema = copy.deepcopy(found)
    schema.get("properties", {}).get("Alias", {}).pop("pattern", None)
    return schema


def _node_at(node: Any, path: list[Any], fallback: Position) -> Position:
    """Where the decoded node at `path` (keys and indexes) starts, else its nearest parent."""
    found = position(node) or fallback
    for step in path:
        in_mapping = isinstance(node, dict) and step in node
        in_list = isinstance(node, list) and isinstance(step, int) and step < len(node)
        if not (in_mapping or in_list):
            break
        node = node[step]
        found = position(node) or found
    return found


def _check_properties(
    report: FileReport,
    name: str,
    properties: Mapping[str, Any],
    nodes: Mapping[str, Any],
    at: Position,
) -> None:
    import jsonschema

    schema = _schema()
    base = f"/Resources/{name}/Properties"
    if schema is not None:
        validator = jsonschema.Draft7Validator(schema)
        said: set[tuple[str, str]] = set()
        for error in sorted(validator.iter_errors(dict(properties)), key=lambda e: list(e.path)):
            about_keys = error.validator in ("required", "additionalProperties")
            if not about_keys and _holds_intrinsic(error.instance):
                continue  # a value the stack resolves: nothing to say offline
            path = "/".join(str(p) for p in error.absolute_path)
            for message, hint in _worded(error):
                if (path, message) in said:
                    continue  # jsonschema reports each missing key of one object once per key
                said.add((path, message))
                report.diagnostics.append(
                    Diagnostic(
                        "error",
                        base + (f"/{path}" if path else ""),
                        f"{name}: {path.replace('/', '.') or 'Properties'} {message}",
                        hint or f"see {LAMBDA_HOOK_TYPE} in the CloudFormation template reference",
                        *_node_at(nodes, list(error.absolute_path), at),
                        code="cfngen/lambda-hook-property",
                    )
                )
    alias = properties.get("Alias")
    if isinstance(alias, str) and (not _ALIAS.match(alias) or alias.lower().startswith("aws")):
        report.diagnostics.append(
            Diagnostic(
                "error",
                f"{base}/Alias",
                f"{name}: Alias {alias!r} is not a hook type name CloudFormation accepts",
                "three parts of 2 to 64 letters or digits, Org::Service::Hook, not starting "
                "with AWS",
                *_node_at(nodes, ["Alias"], at),
                code="cfngen/lambda-hook-property",
            )
        )


def _worded(error: Any) -> list[tuple[str, str | None]]:
    """What jsonschema found, in cfngen's one wording of a broken rule (cfngen/_schema/
    _wording.py): one sentence per missing or unknown key."""
    from cfngen._schema import _wording

    instance = error.instance
    if error.validator == "required" and isinstance(instance, dict):
        return [(_wording.missing_key(k), None) for k in error.validator_value if k not in instance]
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        known = error.schema.get("properties") or {}
        return [(_wording.unknown_key(k), None) for k in instance if k not in known]
    if error.validator == "oneOf":
        if list(error.path)[-1:] == ["TargetFilters"]:
            either = (
                "is either Actions/InvocationPoints/TargetNames lists or a Targets list of "
                "{TargetName, Action, InvocationPoint}, not both"
            )
            return [(either, None)]
        return [(_wording.no_alternative(None), None)]
    return [_wording.sentence(error.validator, error.validator_value, instance)]


def _check_function(
    report: FileReport, document: Mapping[str, Any], name: str, hook: LambdaHook, at: Position
) -> None:
    base = f"/Resources/{name}/Properties/LambdaFunction"
    if "LambdaFunction" not in hook.properties:
        return  # the schema says it is required
    if hook.function is None:
        report.diagnostics.append(
            Diagnostic(
                "error",
                base,
                f"{name}'s LambdaFunction names no Lambda function of this template: "
                "`cfngen test` has nothing to run",
                "use !GetAtt Function.Arn of the function in this template, or pass "
                "--handler FILE.py:FUNCTION to cfngen test",
                *at,
                code="cfngen/lambda-hook-function-missing",
            )
        )
        return
    body = (document.get("Resources") or {})[hook.function]
    properties = dict(body.get("Properties") or {})
    if body.get("Type") == "AWS::Serverless::Function":
        globals_ = (document.get("Globals") or {}).get("Function") or {}
        properties = {**globals_, **properties}
    runtime = properties.get("Runtime")
    if isinstance(runtime, str) and not runtime.startswith("python"):
        report.diagnostics.append(
            Diagnostic(
                "warning",
                base,
                f"{hook.function} runs on {runtime}: `cfngen test` runs Python functions only",
                "test it with its own tools; validate still checks the hook",
                *at,
                code="cfngen/lambda-hook-runtime-not-python",
            )
        )
    timeout = properties.get("Timeout", 3)
    number = isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
    if number and timeout > WAIT_SECONDS:
        report.diagnostics.append(
            Diagnostic(
                "warning",
                base,
                f"{hook.function}'s Timeout is {timeout:g} s, but CloudFormation waits "
                f"{WAIT_SECONDS:g} s for a hook's function",
                "answer IN_PROGRESS with a callbackContext instead of running longer, and "
                f"set Timeout to {WAIT_SECONDS:g} or less",
                *at,
                code="cfngen/lambda-hook-function-timeout",
            )
        )


def _check_targets(
    report: FileReport, name: str, hook: LambdaHook, filters_at: Position, ops_at: Position
) -> None:
    base = f"/Resources/{name}/Properties"
    operations = hook.properties.get("TargetOperations")
    if isinstance(operations, list) and not operations:
        report.diagnostics.append(
            Diagnostic(
                "warning",
                f"{base}/TargetOperations",
                f"{name} targets no operation: the hook never runs",
                "list RESOURCE, STACK, CHANGE_SET or CLOUD_CONTROL",
                *ops_at,
                code="cfngen/lambda-hook-no-target-operations",
            )
        )
    if not hook.target_names or not isinstance(operations, list):
        return
    if not any(op in _RESOURCE_OPERATIONS for op in operations):
        report.diagnostics.append(
            Diagnostic(
                "warning",
                f"{base}/TargetFilters",
                f"{name} filters on target names, but targets no RESOURCE or CLOUD_CONTROL "
                "operation: stack and change set operations have no target name to match",
                "add RESOURCE to TargetOperations, or drop the TargetNames",
                *filters_at,
                code="cfngen/lambda-hook-target-names-unused",
            )
        )
    from cfngen._kinds._shared._targets import bundled_types

    known = bundled_types()
    for target in hook.target_names:
        if any(fnmatch.fnmatchcase(t, target) for t in known) if _wild(target) else target in known:
            continue
        report.diagnostics.append(
            Diagnostic(
                "warning",
                f"{base}/TargetFilters",
                f"{name}: target name {target!r} matches no resource type cfn-lint knows",
                "check its spelling (a private or third-party type is fine)",
                *filters_at,
                code="cfngen/lambda-hook-target-name-unknown",
            )
        )


def _wild(name: str) -> bool:
    return "*" in name or "?" in name


def _check_role(
    report: FileReport, document: Mapping[str, Any], name: str, role: Any, where: Any
) -> None:
    """An execution role of this template must trust CloudFormation's hooks."""
    target = None
    if isinstance(role, dict) and "Fn::GetAtt" in role:
        arg = role["Fn::GetAtt"]
        target = arg[0] if isinstance(arg, list) and arg else str(arg).split(".")[0]
    body = (document.get("Resources") or {}).get(target) if target else None
    if not (isinstance(body, dict) and body.get("Type") == "AWS::IAM::Role"):
        return
    trust = (body.get("Properties") or {}).get("AssumeRolePolicyDocument")
    if HOOKS_PRINCIPAL in str(trust) or _holds_intrinsic(trust):
        return
    line, column = where("ExecutionRole")
    report.diagnostics.append(
        Diagnostic(
            "warning",
            f"/Resources/{name}/Properties/ExecutionRole",
            f"{name}'s ExecutionRole {target} does not trust {HOOKS_PRINCIPAL}: the hook cannot "
            "assume it to invoke the function",
            f"allow sts:AssumeRole to the service principal {HOOKS_PRINCIPAL}",
            line,
            column,
            code="cfngen/lambda-hook-execution-role-trust",
        )
    )
