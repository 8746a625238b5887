"""What `cfngen test` sends a Lambda hook: one request per target operation the LambdaHook
names (TargetOperations), action its TargetFilters allow and target name, with the inputs of
`lambda-hook-inputs.json` beside the template:

    {"AWS::S3::Bucket": {"compliant": {...properties...}, "noncompliant": {...}}}

Without the file (or a type in it), a target name is sent with no properties. STACK and
CHANGE_SET requests carry a template made of those resources (JSON, one of the two forms
CloudFormation passes on), compliant or not. A target name with a wildcard has no type to send:
it needs a name in the inputs.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._errors import CfngenError
from cfngen._kinds.lambda_hook._requests import Target, invocation_point

if TYPE_CHECKING:
    from cfngen._kinds.lambda_hook._function import Found

INPUTS_FILE = "lambda-hook-inputs.json"
#: The type sent when the hook filters on no target name (it sees every resource).
STAND_IN_TYPE = "AWS::S3::Bucket"


@dataclass
class Case:
    target: Target
    #: Whether the inputs are the compliant ones (the verdict tests' expectation).
    compliant: bool = True
    #: A request given as it is (`cfngen invoke` with a request file), else built from target.
    event: dict[str, Any] | None = None

    @property
    def label(self) -> str:
        return f"{self.target.label} ({'compliant' if self.compliant else 'noncompliant'})"


def load_inputs(template: Path) -> dict[str, dict[str, Any]]:
    path = template.parent / INPUTS_FILE
    if not path.is_file():
        return {}
    from cfngen import _schema

    hint = f'{INPUTS_FILE} maps type names to {{"compliant": {{...}}, "noncompliant": {{...}}}}'
    data = _schema.load_object(path, hint)
    for name, entry in data.items():
        if not isinstance(entry, dict) or not all(isinstance(v, dict) for v in entry.values()):
            raise CfngenError(f"{path}: {name!r} is not an object of property objects", hint)
        unknown = set(entry) - {"compliant", "noncompliant"}
        if unknown:
            raise CfngenError(f"{path}: {name}: unknown key {sorted(unknown)[0]!r}", hint)
    return data


def _logical_id(type_name: str) -> str:
    words = re.split(r"[^A-Za-z0-9]+", type_name.rsplit("::", maxsplit=1)[-1])
    return "".join(w[:1].upper() + w[1:] for w in words) or "Resource"


def cases(found: Found) -> tuple[list[Case], list[str]]:
    """Every request `cfngen test` sends, and what the user should know about the choice."""
    hook = found.hook
    inputs = load_inputs(found.template)
    notes: list[str] = []
    names = [n for n in hook.target_names if "*" not in n and "?" not in n]
    wild = [n for n in hook.target_names if n not in names]
    for pattern in wild:
        matched = [t for t in inputs if fnmatch.fnmatchcase(t, pattern)]
        names += [t for t in matched if t not in names]
        if not matched:
            notes.append(
                f"target name {pattern} is a pattern and no type of {INPUTS_FILE} matches it: "
                "nothing is sent for it"
            )
    if not hook.target_names:
        names = list(inputs) or [STAND_IN_TYPE]
        if not inputs:
            notes.append(
                f"{hook.logical_id} filters on no target name: {STAND_IN_TYPE} stands for "
                f"every resource (name types in {INPUTS_FILE})"
            )
    if not hook.target_operations:
        notes.append(f"{hook.logical_id} targets no operation: nothing is sent")
    plan: list[Case] = []
    for compliant in (True, False):
        key = "compliant" if compliant else "noncompliant"
        chosen = {n: inputs.get(n, {}).get(key) for n in names}
        given = {n: p for n, p in chosen.items() if p is not None}
        if not compliant and not given:
            continue
        properties = {n: (p if p is not None else {}) for n, p in chosen.items()}
        if not compliant:
            properties = given
        plan += _cases_of(hook.target_operations, hook.actions, properties, compliant)
    return plan, notes


def _cases_of(
    operations: list[str],
    actions: list[str],
    properties: Mapping[str, dict[str, Any]],
    compliant: bool,
) -> list[Case]:
    resources = {_logical_id(n): (n, dict(p)) for n, p in properties.items()}
    template = json.dumps(
        {"Resources": {lid: {"Type": t, "Properties": p} for lid, (t, p) in resources.items()}}
    )
    found: list[Case] = []
    for operation in operations:
        if operation in ("RESOURCE", "CLOUD_CONTROL"):
            for name, props in properties.items():
                for action in actions:
                    if action == "DELETE" and not compliant:
                        continue  # a delete carries no proposed properties to judge
                    point = f"{action}_PRE_PROVISION"
                    target = Target(operation, point, name, _logical_id(name), dict(props))
                    found.append(Case(target, compliant))
        elif operation == "STACK":
            for action in actions:
                if action == "DELETE" and not compliant:
                    continue  # a delete's payload holds no template
                target = Target(
                    operation,
                    f"{action}_PRE_PROVISION",
                    template=template,
                    previous_template=template,
                )
                found.append(Case(target, compliant))
        elif operation == "CHANGE_SET":
            target = Target(
                operation, "CREATE_PRE_PROVISION", template=template, resources=resources
            )
            found.append(Case(target, compliant))
    return found


def invoke_case(found: Found, action: str, request_file: Path | None) -> Case:
    """`cfngen invoke ACTION [REQUEST_FILE]`: ACTION an invocation point; the file a request as
    CloudFormation sends it (sent as it is, a clientRequestToken added when it has none, so
    that the answer can be checked), or a resource's properties (a RESOURCE request of the
    hook's first target name); without it, the first compliant inputs."""
    point = invocation_point(action)
    hook = found.hook
    type_name = next((n for n in hook.target_names if "*" not in n and "?" not in n), STAND_IN_TYPE)
    inputs = load_inputs(found.template)
    properties = (inputs.get(type_name) or {}).get("compliant") or {}
    if request_file is not None:
        from cfngen import _schema

        given = _schema.load_object(
            request_file, "a Lambda hook request, or a resource's properties, as a JSON object"
        )
        if isinstance(given.get("requestData"), dict):
            return _as_sent(given, point)
        properties = given
    target = Target("RESOURCE", point, type_name, _logical_id(type_name), properties)
    return Case(target)


def _as_sent(given: dict[str, Any], point: str) -> Case:
    import uuid

    event = dict(given)
    event.setdefault("clientRequestToken", str(uuid.uuid4()))
    event.setdefault("actionInvocationPoint", point)
    event.setdefault("requestContext", {"invocation": 1, "callbackContext": None})
    data = event["requestData"]
    target_type = str(data.get("targetType") or "RESOURCE")
    operation = target_type if target_type in ("STACK", "CHANGE_SET") else "RESOURCE"
    if target_type == "RESOURCE" and not event.get("stackId"):
        operation = "CLOUD_CONTROL"
    target = Target(operation, str(event["actionInvocationPoint"]), str(data.get("targetName", "")))
    return Case(target, event=event)
