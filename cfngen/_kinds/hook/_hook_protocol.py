"""The hook protocol as plain functions: the request CloudFormation sends a hook's Lambda
function, and what its answers mean.

Nothing here runs a handler: `carry` takes a `call` collaborator (cfngen/_contract's runner,
which imports the project's entrypoint, enforces the time limit and captures output), so the
protocol is tested with plain functions standing in for hooks.

The request is the one CloudFormation sends (`HookInvocationRequest` of
cloudformation-cli-python-lib 2.1.20; a real one is the python plugin's ENTRYPOINT_PAYLOAD):
caller credentials as a JSON string, `hookModel` (the type configuration), the target in
`requestData`. A resource target's properties travel in `targetModel`; a STACK or CHANGE_SET
target's document travels as `payload`, a URL the library downloads (`payload_url`).
"""

from __future__ import annotations

import copy
import functools
import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cfngen._contract._call import Invocation
from cfngen._contract._loop import Call, Outcome, Policy
from cfngen._contract._loop import carry as run_loop
from cfngen._contract._protocol import lib_error_codes, lib_statuses
from cfngen._kinds.hook import HOOK_HANDLERS, INVOCATION_POINTS

#: The field of a hook's answer holding its status.
STATUS_KEY = "hookStatus"

#: The invocation points, and their names in hook schemas, test names and input files.
POINTS = INVOCATION_POINTS
HANDLER_OF = dict(zip(POINTS, HOOK_HANDLERS, strict=True))
FILE_PART = dict(zip(POINTS, ("pre_create", "pre_update", "pre_delete"), strict=True))
_ALIASES = {
    **{p.lower(): p for p in POINTS},
    **{h.lower(): p for p, h in HANDLER_OF.items()},
    **{f: p for p, f in FILE_PART.items()},
}

FINAL = ("SUCCESS", "FAILED", "CHANGE_SET_SUCCESS_SKIP_STACK_HOOK")
#: Codes that describe a resource's own life, which a hook never has: a hook that answers one
#: has copied a resource handler.
RESOURCE_ONLY_CODES = frozenset({"NotUpdatable", "AlreadyExists", "NotStabilized"})


@functools.cache
def known_error_codes() -> frozenset[str]:
    """Every error code the registry knows (cloudformation-cli-python-lib's HandlerErrorCode)."""
    return lib_error_codes()


@functools.cache
def hook_error_codes() -> frozenset[str]:
    """The error codes a hook may answer."""
    return known_error_codes() - RESOURCE_ONLY_CODES - {"Unknown"}


SPECIAL_TARGETS = ("STACK", "CHANGE_SET")


def point_name(text: str) -> str | None:
    """CREATE_PRE_PROVISION for CREATE_PRE_PROVISION, preCreate, pre_create; else None."""
    return _ALIASES.get(text.strip().lower())


# --------------------------------------------------------------------------- requests


@dataclass(frozen=True)
class Target:
    """What one request is about: a type name (or STACK, CHANGE_SET) and its document.

    For a resource: {"resourceProperties": {...}, "previousResourceProperties": {...}}; for
    STACK: {"template": ..., "previousTemplate": ...}; for CHANGE_SET: {"template": ...,
    "changedResources": [...]}, as `cfn test` inputs hold them.
    """

    name: str
    document: Mapping[str, Any]
    #: The target's logical id in the template (guard rules name resources by it).
    logical_id: str = "MyResource"

    @property
    def special(self) -> bool:
        return self.name in SPECIAL_TARGETS


@dataclass
class Context:
    """Where the hook runs: the hook's type, the account, and how to publish a payload."""

    type_name: str
    account_id: str = "123456789012"
    region: str = "us-east-1"
    #: As CloudFormation sends them (accessKeyId, secretAccessKey, sessionToken).
    credentials: Mapping[str, str] = field(default_factory=dict)
    #: The hook's type configuration (`hookModel`), or None.
    type_configuration: Mapping[str, Any] | None = None
    #: Publishes a STACK or CHANGE_SET document and returns the URL the hook downloads it from.
    payload_url: Callable[[Mapping[str, Any]], str] | None = None

    @property
    def stack_id(self) -> str:
        return (
            f"arn:aws:cloudformation:{self.region}:{self.account_id}:stack/"
            f"cfngen-contract-test/{uuid.UUID(int=0)}"
        )


def payload_document(target: Target) -> dict[str, Any]:
    """A STACK or CHANGE_SET document as CloudFormation serves it: templates and resource
    contexts are text (JSON here), whatever the input file holds."""

    def text(value: Any) -> Any:
        return value if value is None or isinstance(value, str) else json.dumps(value)

    out = dict(target.document)
    for key in ("template", "previousTemplate"):
        if key in out:
            out[key] = text(out[key])
    changes = out.get("changedResources")
    if isinstance(changes, list):
        out["changedResources"] = [
            {
                **change,
                **{k: text(change[k]) for k in ("beforeContext", "afterContext") if k in change},
            }
            if isinstance(change, dict)
            else change
            for change in changes
        ]
    return out


def request(
    point: str,
    target: Target,
    context: Context,
    *,
    token: str,
    invocation: int = 1,
    callback_context: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The event CloudFormation sends the hook's Lambda function.

    No providerLogGroupName: with one, the library ships logs to CloudWatch.
    """
    data: dict[str, Any] = {
        "callerCredentials": json.dumps(dict(context.credentials)),
        "targetName": target.name,
        "targetType": target.name if target.special else "RESOURCE",
        "targetLogicalId": target.logical_id,
    }
    if target.special:
        if context.payload_url is None:
            raise ValueError("a STACK or CHANGE_SET target needs a payload URL")
        data["targetModel"] = {}
        data["payload"] = context.payload_url(payload_document(target))
    else:
        data["targetModel"] = copy.deepcopy(dict(target.document))
    event: dict[str, Any] = {
        "clientRequestToken": token,
        "awsAccountId": context.account_id,
        "stackId": context.stack_id,
        "hookTypeName": context.type_name,
        "hookTypeVersion": "00000001",
        "actionInvocationPoint": point,
        "requestData": data,
        "requestContext": {
            "invocation": invocation,
            "callbackContext": dict(callback_context) if callback_context else None,
        },
        "hookModel": copy.deepcopy(dict(context.type_configuration))
        if context.type_configuration
        else None,
    }
    if target.name == "CHANGE_SET":
        event["changeSetId"] = (
            f"arn:aws:cloudformation:{context.region}:{context.account_id}:changeSet/"
            f"cfngen-contract-test/{uuid.UUID(int=1)}"
        )
    return event


# --------------------------------------------------------------------------- answers


class HookExchange:
    """One invocation point for one target (an `Exchange`): the same token on every call,
    `requestContext` counting the calls and carrying the callbackContext."""

    timeout_minutes: float | None = (
        None  # a hook has no timeoutInMinutes: its waits stay within one call
    )
    waits = True

    def __init__(
        self, point: str, target: Target, context: Context, *, limit: float, token: str
    ) -> None:
        self.point = point
        self.target = target
        self.context = context
        self.label = f"{point} {target.name}"
        self.limit = limit
        self._token = token

    def event(self, number: int, callback_context: Mapping[str, Any] | None) -> dict[str, Any]:
        return request(
            self.point,
            self.target,
            self.context,
            token=self._token,
            invocation=number,
            callback_context=callback_context,
        )

    def answer(self, invocation: Invocation, returned: Any) -> dict[str, Any] | None:
        return invocation.response

    def advance(self, response: Mapping[str, Any]) -> None:
        pass


@dataclass
class Run(Outcome):
    """One invocation point carried to its end for one target: every call, in order."""

    point: str = ""
    target: Target = field(default_factory=lambda: Target("", {}))

    @property
    def answers(self) -> list[Invocation]:
        return self.invocations


def carry(
    call: Call,
    point: str,
    target: Target,
    context: Context,
    *,
    policy: Policy,
    limit: float = 60.0,
    token: str | None = None,
    on_answer: Callable[[Invocation], None] | None = None,
) -> Run:
    """Call, then call again while IN_PROGRESS with the callbackContext it returned (the
    runner's loop with the hook's requests; `call` makes one call)."""
    exchange = HookExchange(point, target, context, limit=limit, token=token or str(uuid.uuid4()))
    outcome = run_loop(
        exchange,
        call=call,
        status_key=STATUS_KEY,
        in_progress="IN_PROGRESS",
        policy=policy,
        on_invocation=on_answer,
    )
    return as_run(outcome, point, target)


def as_run(outcome: Outcome, point: str, target: Target) -> Run:
    return Run(
        outcome.action,
        outcome.invocations,
        outcome.guard,
        outcome.endless,
        point=point,
        target=target,
    )


# --------------------------------------------------------------------------- rules

R_SUCCESS = "a hook must answer SUCCESS, without an errorCode, to a compliant target"
R_FAILED = "a hook must answer FAILED to a non-compliant target"
R_ERROR_CODE = (
    "a FAILED answer must carry an errorCode a hook may return (NonCompliant, "
    "UnsupportedTarget, InvalidTypeConfiguration, HandlerInternalFailure, ...)"
)
R_MESSAGE = "a FAILED answer must carry a message saying why (a non-empty string)"
R_UNSUPPORTED = (
    "a hook must answer FAILED with UnsupportedTarget to a target its wildcards do not cover"
)
R_ENDS = "IN_PROGRESS must end: a hook must reach SUCCESS or FAILED"
R_TIME = "a hook must answer each invocation within its time limit"
R_NO_EXCEPTION = (
    "a handler must not raise: return FAILED with an errorCode (the library turns an "
    "exception into a bare InternalFailure)"
)
R_FINAL_DELAY = "a SUCCESS or FAILED answer must not ask for a callbackDelaySeconds"
R_SHAPE = "an answer is a hook progress event: hookStatus SUCCESS, FAILED or IN_PROGRESS"


def shape_problems(run: Run) -> list[str]:
    """What makes the answers no hook progress events at all."""
    problems = []
    statuses = lib_statuses(hook=True)
    for answer in run.answers:
        if answer.response is None:
            continue
        status = answer.response.get(STATUS_KEY)
        if status not in statuses:
            problems.append(f"hookStatus is {status!r}")
        elif status == "IN_PROGRESS" and answer.response.get("errorCode"):
            problems.append("an IN_PROGRESS answer carries an errorCode")
    return problems


def final_delay(run: Run) -> Any:
    """callbackDelaySeconds of a final answer when it asks for one, else None."""
    if run.status not in FINAL:
        return None
    delay = run.response.get("callbackDelaySeconds")
    return delay if isinstance(delay, (int, float)) and delay > 0 else None


def message_problem(run: Run) -> str | None:
    message = run.message
    if message is None or message == "":
        return "it has no message" if message is None else "its message is empty"
    if not isinstance(message, str):
        return f"its message is {type(message).__name__} {json.dumps(message)[:80]}, not a string"
    if not message.strip():
        return "its message is blank"
    return None


def error_code_problem(run: Run) -> str | None:
    code = run.error_code
    if not code:
        return "it has no errorCode"
    if code not in known_error_codes():
        return f"errorCode {code!r} is no error code CloudFormation knows"
    if code == "Unknown":
        return "errorCode 'Unknown' names no cause"
    if code in RESOURCE_ONLY_CODES:
        return f"errorCode {code!r} is a resource handler's, not a hook's"
    return None
