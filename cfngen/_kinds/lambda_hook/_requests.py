"""The requests CloudFormation sends a Lambda hook's function, one builder per target operation.

The shapes are those of AWS's guide, "Create Lambda functions to evaluate resources for Lambda
Hooks" (docs.aws.amazon.com/cloudformation-cli/latest/hooks-userguide/
lambda-hooks-create-lambda-function.html):

- RESOURCE: `requestData.targetModel` holds `resourceProperties` (empty on a delete) and
  `previousResourceProperties` (empty on a create); targetName and targetType are the type.
- CLOUD_CONTROL: a resource operation made through Cloud Control API: no stackId, no
  changeSetId, targetType `RESOURCE`, a constructed targetLogicalId.
- STACK: no targetModel but a `payload` URL (a presigned S3 URL in AWS) to a JSON document
  `{"template", "previousTemplate"}` (both empty on a delete); targetLogicalId the stack name.
- CHANGE_SET: a `payload` URL to `{"template", "changedResources": [...]}`, each change's
  before/afterContext a JSON string whose numbers and booleans are strings; targetLogicalId the
  change set's ARN.

Every request carries the `clientRequestToken` the answer must echo (the guide's examples read
it at the top level) and `requestContext.invocation`, the attempt (1 to 3).
"""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

TARGET_OPERATIONS = ("RESOURCE", "STACK", "CHANGE_SET", "CLOUD_CONTROL")
ACTIONS = ("CREATE", "UPDATE", "DELETE")
INVOCATION_POINTS = tuple(f"{action}_PRE_PROVISION" for action in ACTIONS)
#: What users may type for an invocation point (`cfngen invoke preCreate`), as for a hook.
POINT_ALIASES = {"preCreate": "CREATE_PRE_PROVISION", "preUpdate": "UPDATE_PRE_PROVISION"}
POINT_ALIASES["preDelete"] = "DELETE_PRE_PROVISION"

ACCOUNT_ID = "123456789012"
STACK_NAME = "cfngen-test"
HOOK_VERSION = "00000001"
#: Publishes a payload document and returns the URL the function fetches it from.
Publish = Callable[[Mapping[str, Any]], str]


def stack_id(region: str) -> str:
    return (
        f"arn:aws:cloudformation:{region}:{ACCOUNT_ID}:stack/{STACK_NAME}/"
        "6f1d2c3b-4a5e-11ef-8b7c-0a1b2c3d4e5f"
    )


def change_set_id(region: str) -> str:
    return (
        f"arn:aws:cloudformation:{region}:{ACCOUNT_ID}:changeSet/cfngen-change-set/"
        "7a2e3d4c-5b6f-11ef-9c8d-0a1b2c3d4e5f"
    )


@dataclass(frozen=True)
class Hook:
    """What a request says about the hook: its type name (the LambdaHook's Alias) and the
    function it invokes."""

    type_name: str
    function_arn: str


@dataclass
class Target:
    """What one request is about: a target operation at an invocation point, and its data."""

    operation: str
    point: str
    #: The resource type (RESOURCE, CLOUD_CONTROL) and its logical id.
    type_name: str = ""
    logical_id: str = ""
    properties: dict[str, Any] = field(default_factory=dict)
    previous: dict[str, Any] = field(default_factory=dict)
    #: STACK and CHANGE_SET: the template (text) of the operation and the one before it.
    template: str = ""
    previous_template: str = ""
    #: CHANGE_SET: logical id -> (type, properties) of each resource the change set creates.
    resources: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)

    @property
    def action(self) -> str:
        return self.point.split("_", 1)[0]

    @property
    def label(self) -> str:
        """How its calls are shown: "RESOURCE AWS::S3::Bucket CREATE_PRE_PROVISION"."""
        what = f" {self.type_name}" if self.type_name else ""
        return f"{self.operation}{what} {self.point}"

    @property
    def message_limit(self) -> int:
        """The characters of `message` CloudFormation keeps (the guide: 1,024 for Cloud
        Control API, 4,096 otherwise)."""
        return 1024 if self.operation == "CLOUD_CONTROL" else 4096


def request(
    hook: Hook,
    target: Target,
    *,
    region: str,
    publish: Publish | None = None,
    token: str | None = None,
) -> dict[str, Any]:
    """The first request of `target` (`invocation` 1, no callbackContext); `publish` serves the
    STACK and CHANGE_SET payload documents."""
    cloud_control = target.operation == "CLOUD_CONTROL"
    event: dict[str, Any] = {
        "clientRequestToken": token or str(uuid.uuid4()),
        "awsAccountId": ACCOUNT_ID,
        "stackId": "" if cloud_control else stack_id(region),
        "changeSetId": change_set_id(region) if target.operation == "CHANGE_SET" else None,
        "hookTypeName": hook.type_name,
        "hookTypeVersion": HOOK_VERSION,
        "hookModel": {"LambdaFunction": hook.function_arn},
        "actionInvocationPoint": target.point,
        "requestData": _request_data(target, region, publish),
        "requestContext": {"invocation": 1, "callbackContext": None},
    }
    return event


def again(event: Mapping[str, Any], number: int, context: Any) -> dict[str, Any]:
    """The same request re-invoked: attempt `number`, with the callbackContext returned."""
    sent = copy.deepcopy(dict(event))
    sent["requestContext"] = {"invocation": number, "callbackContext": context}
    return sent


def _request_data(target: Target, region: str, publish: Publish | None) -> dict[str, Any]:
    operation = target.operation
    if operation in ("RESOURCE", "CLOUD_CONTROL"):
        create, delete = target.action == "CREATE", target.action == "DELETE"
        logical_id = target.logical_id or "MyResource"
        if operation == "CLOUD_CONTROL":
            # The guide: "a constructed value"; Cloud Control names no template resource.
            logical_id = f"CloudControl-{uuid.uuid5(uuid.NAMESPACE_OID, logical_id).hex[:12]}"
        return {
            "targetName": target.type_name,
            "targetType": "RESOURCE" if operation == "CLOUD_CONTROL" else target.type_name,
            "targetLogicalId": logical_id,
            "targetModel": {
                "resourceProperties": {} if delete else dict(target.properties),
                "previousResourceProperties": {}
                if create
                else dict(target.previous or target.properties),
            },
        }
    document = payload(target)
    if publish is None:
        raise ValueError(f"a {operation} request needs a URL to serve its payload from")
    return {
        "targetName": operation,
        "targetType": operation,
        "targetLogicalId": change_set_id(region) if operation == "CHANGE_SET" else STACK_NAME,
        "payload": publish(document),
    }


def payload(target: Target) -> dict[str, Any]:
    """The document a STACK or CHANGE_SET request's `payload` URL serves."""
    if target.operation == "STACK":
        if target.action == "DELETE":
            return {"template": "", "previousTemplate": ""}
        previous = target.previous_template if target.action == "UPDATE" else ""
        return {"template": target.template, "previousTemplate": previous}
    changes = [
        {
            "logicalResourceId": logical_id,
            "resourceType": kind,
            "action": "CREATE",
            "lineNumber": None,
            "beforeContext": None,
            "afterContext": json.dumps({"Properties": stringified(properties)}),
        }
        for logical_id, (kind, properties) in target.resources.items()
    ]
    return {"template": target.template, "changedResources": changes}


def stringified(value: Any) -> Any:
    """Numbers and booleans as strings, as a change set's before/afterContext has them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, dict):
        return {k: stringified(v) for k, v in value.items()}
    if isinstance(value, list):
        return [stringified(v) for v in value]
    return value


def invocation_point(text: str) -> str:
    """`CREATE_PRE_PROVISION`, `preCreate` or `create` as the invocation point."""
    given = text.strip()
    if given in POINT_ALIASES:
        return POINT_ALIASES[given]
    upper = given.upper()
    if upper in ACTIONS:
        return f"{upper}_PRE_PROVISION"
    if upper in INVOCATION_POINTS:
        return upper
    from cfngen._errors import CfngenError

    raise CfngenError(
        f"{text!r} is no invocation point of a Lambda hook",
        "use CREATE_PRE_PROVISION, UPDATE_PRE_PROVISION or DELETE_PRE_PROVISION "
        "(or preCreate, preUpdate, preDelete)",
    )
