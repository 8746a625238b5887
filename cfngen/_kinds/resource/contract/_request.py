"""The resource protocol's requests: request files for `cfngen invoke` (the JSON that
`cfn invoke` reads), the Lambda event CloudFormation sends, one action as an `Exchange`."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._errors import CfngenError
from cfngen._kinds.resource._view import ResourceSchema
from cfngen._kinds.resource.contract import _exports

if TYPE_CHECKING:
    from cfngen._contract._call import Invocation
    from cfngen._contract._runner import Runner
    from cfngen._contract._sandbox import Sandbox
    from cfngen._project import Project

_OBJECT_FIELDS = {
    "desiredResourceState": "desired",
    "previousResourceState": "previous",
    "typeConfiguration": "type_configuration",
    "desiredResourceTags": "desired_tags",
    "previousResourceTags": "previous_tags",
    "systemTags": "system_tags",
    "previousSystemTags": "previous_system_tags",
}
_STRING_FIELDS = {
    "logicalResourceIdentifier": "logical_id",
    "nextToken": "next_token",
    "clientRequestToken": "client_request_token",
}


@dataclass
class Request:
    """What a handler is asked: the fields of a `cfn invoke` request file."""

    desired: dict[str, Any] | None = None
    previous: dict[str, Any] | None = None
    logical_id: str = "MyResource"
    type_configuration: dict[str, Any] | None = None
    next_token: str | None = None
    desired_tags: dict[str, Any] | None = None
    previous_tags: dict[str, Any] | None = None
    system_tags: dict[str, Any] | None = None
    previous_system_tags: dict[str, Any] | None = None
    client_request_token: str | None = None


EXAMPLE = (
    '{"desiredResourceState": {...}, "previousResourceState": null, '
    '"logicalResourceIdentifier": "MyResource"}'
)


def _model_path(at: tuple[str, ...]) -> tuple[str, ...] | None:
    """The model path of a value in the request: its resource states hold models, and so
    does the whole of a bare properties document (whose keys are no request field)."""
    if len(at) >= 2 and at[0] in ("desiredResourceState", "previousResourceState"):
        return at[1:]
    if at and at[0] not in _OBJECT_FIELDS and at[0] not in _STRING_FIELDS:
        return at
    return None


def _bare_properties(data: Mapping[str, Any], info: ResourceSchema | None) -> bool:
    """Whether `data` is a model's properties (an inputs/ file, what a user has at hand)
    rather than a request: no key is a request field, and some are the schema's properties."""
    if any(key in _OBJECT_FIELDS or key in _STRING_FIELDS for key in data):
        return False
    properties = info.schema.get("properties") if info is not None else None
    return isinstance(properties, dict) and any(key in properties for key in data)


def load_request(
    path: Path, info: ResourceSchema | None = None, exports: Mapping[str, Any] | None = None
) -> tuple[Request, list[str]]:
    """The request in `path`, and warnings about keys cfngen does not read and about
    `{{Export}}` placeholders no value was given for (`exports`: name -> value)."""
    placeholders = _exports.Exports(exports or {})
    data = _exports.load(
        path,
        f"a request file looks like {EXAMPLE}",
        placeholders,
        info=info,
        model_path=_model_path,
    )
    request = Request()
    warnings: list[str] = []
    if _bare_properties(data, info):
        # The inputs/ files hold a model's properties; `cfn invoke` would refuse them.
        warnings.append(
            f"{path}: holds the resource's properties, not a request: sent as desiredResourceState"
        )
        data = {"desiredResourceState": data}
    for key, value in data.items():
        if key in _OBJECT_FIELDS:
            if value is not None and not isinstance(value, dict):
                raise CfngenError(
                    f"{path}: {key} must be a JSON object or null, not {type(value).__name__}",
                    f"a request file looks like {EXAMPLE}",
                )
            setattr(request, _OBJECT_FIELDS[key], value)
        elif key in _STRING_FIELDS:
            if value is None:
                continue
            if not isinstance(value, str):
                raise CfngenError(
                    f"{path}: {key} must be a string, not {type(value).__name__}",
                    f"a request file looks like {EXAMPLE}",
                )
            setattr(request, _STRING_FIELDS[key], value)
        else:
            known = ", ".join(sorted([*_OBJECT_FIELDS, *_STRING_FIELDS]))
            warnings.append(f"{path}: ignored unknown key {key!r} (cfngen reads {known})")
    if "desiredResourceState" not in data:
        warnings.append(f"{path}: no desiredResourceState; the handler gets an empty model")
    return request, warnings + placeholders.notes()


# --------------------------------------------------------------------------- the protocol

MUTATING = ("CREATE", "UPDATE", "DELETE")
#: timeoutInMinutes when the schema gives none (the handler contract's default).
DEFAULT_TIMEOUT_MINUTES = 120


@dataclass(frozen=True)
class Limits:
    """Seconds a single handler call may take (the handler contract: 60 s and 30 s)."""

    mutating: float = 60.0
    read_list: float = 30.0

    @classmethod
    def enforce(cls, seconds: float | None) -> Limits:
        """`--enforce-timeout S`: read and list get S seconds, the others 2S (as `cfn test`)."""
        if seconds is None:
            return cls()
        return cls(mutating=2 * seconds, read_list=seconds)

    def for_action(self, action: str) -> float:
        return self.mutating if action in MUTATING else self.read_list


def lambda_event(
    action: str,
    request: Request,
    *,
    type_name: str,
    sandbox: Sandbox,
    bearer_token: str,
    callback_context: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The event CloudFormation sends the handler's Lambda function.

    No providerLogGroupName: with one, the runtime library ships logs to CloudWatch.
    """
    request_data: dict[str, Any] = {
        "callerCredentials": sandbox.credentials.as_request(),
        # Always sent, as CloudFormation does: the runtime library cannot read a request
        # without it (AttributeError inside its request parser).
        "resourceProperties": request.desired if request.desired is not None else {},
        "previousResourceProperties": request.previous,
        "logicalResourceId": request.logical_id,
        "typeConfiguration": request.type_configuration,
        "stackTags": request.desired_tags,
        "previousStackTags": request.previous_tags,
        "systemTags": request.system_tags,
        "previousSystemTags": request.previous_system_tags,
    }
    event: dict[str, Any] = {
        "awsAccountId": sandbox.account_id,
        "bearerToken": bearer_token,
        "region": sandbox.region,
        "action": action,
        "resourceType": type_name,
        "resourceTypeVersion": "00000001",
        "stackId": (
            f"arn:aws:cloudformation:{sandbox.region}:{sandbox.account_id}:stack/"
            f"cfngen-local/{uuid.UUID(int=0)}"
        ),
        "requestData": {k: v for k, v in request_data.items() if v is not None},
        "callbackContext": dict(callback_context) if callback_context else None,
        "nextToken": request.next_token,
    }
    # The runtime library edits the dicts it is given while it builds models: send copies.
    return copy.deepcopy({k: v for k, v in event.items() if v is not None})


class ResourceExchange:
    """One resource action (an `Exchange`): the same request and bearer token on every call,
    the model of an IN_PROGRESS answer sent as the next call's desired state."""

    def __init__(
        self,
        runner: Runner[Project],
        action: str,
        request: Request,
        *,
        limits: Limits,
        timeout_minutes: float | None = None,
    ) -> None:
        self.label = action
        self.limit = limits.for_action(action)
        self.waits = action in MUTATING
        # Only create, update and delete wait across callbacks, up to the schema's timeout.
        timeout = timeout_minutes or DEFAULT_TIMEOUT_MINUTES
        self.timeout_minutes: float | None = timeout if self.waits else None
        self._request = copy.deepcopy(request)
        self._token = request.client_request_token or str(uuid.uuid4())
        self._type_name = str(runner.project.type_name)
        self._sandbox = runner.sandbox

    def event(self, number: int, callback_context: Mapping[str, Any] | None) -> dict[str, Any]:
        return lambda_event(
            self.label,
            self._request,
            type_name=self._type_name,
            sandbox=self._sandbox,
            bearer_token=self._token,
            callback_context=callback_context,
        )

    def answer(self, invocation: Invocation, returned: Any) -> dict[str, Any] | None:
        return invocation.response

    def advance(self, response: Mapping[str, Any]) -> None:
        if isinstance(response.get("resourceModel"), dict):
            self._request.desired = response["resourceModel"]
