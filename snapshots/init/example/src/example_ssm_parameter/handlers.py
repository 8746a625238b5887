"""The handlers CloudFormation calls to manage Example::SSM::Parameter resources: String
parameters in AWS Systems Manager (SSM) Parameter Store.

This is cfngen's working example (`cfngen init --example`); it passes every contract test
of `cfngen test`. The file is yours: change it into your own resource type. models.py and
cfngen_runtime.py beside it are derived from the schema and callback-context.json by
`cfngen generate`; do not edit them.

CloudFormation calls one handler per request and passes it a boto3 session made from the
caller's credentials. A handler returns a ProgressEvent: SUCCESS with the resource's
model, FAILED with an error code (raise one of `exceptions.*` to return one), or
IN_PROGRESS to be called again after `callbackDelaySeconds` with the `callbackContext` it
returned.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from typing import Any

from botocore.exceptions import ClientError, ParamValidationError
from cloudformation_cli_python_lib import (
    Action,
    OperationStatus,
    ProgressEvent,
    SessionProxy,
    exceptions,
)

from .cfngen_runtime import Resource
from .models import (
    CallbackContext,
    ResourceHandlerRequest,
    ResourceModel,
    TypeConfigurationModel,
)

# Log through this logger: CloudFormation sends its output to CloudWatch Logs.
LOG = logging.getLogger(__name__)
TYPE_NAME = "Example::SSM::Parameter"

#: Seconds CloudFormation waits before calling create again to check the new parameter.
STABILIZE_DELAY_SECONDS = 2
#: Checks before create gives up on a parameter that never becomes readable.
STABILIZE_ATTEMPTS = 10
#: Parameters per LIST page (SSM's DescribeParameters allows 1 to 50).
PAGE_SIZE = 10

resource = Resource(TYPE_NAME, ResourceModel, TypeConfigurationModel)
test_entrypoint = resource.test_entrypoint


# --------------------------------------------------------------------------- SSM


def _ssm(session: SessionProxy | None) -> Any:
    if session is None:
        raise exceptions.InvalidCredentials("CloudFormation passed no credentials")
    return session.client("ssm")


@contextmanager
def _ssm_errors(name: str | None) -> Iterator[None]:
    """Turn SSM's errors into the handler contract's error codes."""
    try:
        yield
    except ParamValidationError as error:
        raise exceptions.InvalidRequest(str(error)) from error
    except ClientError as error:
        code = error.response.get("Error", {}).get("Code", "")
        message = error.response.get("Error", {}).get("Message", str(error))
        if code in ("ParameterNotFound", "InvalidResourceId"):
            raise exceptions.NotFound(TYPE_NAME, str(name)) from error
        if code == "ParameterAlreadyExists":
            raise exceptions.AlreadyExists(TYPE_NAME, str(name)) from error
        if code in ("ValidationException", "ParameterPatternMismatchException"):
            raise exceptions.InvalidRequest(message) from error
        if code in ("ThrottlingException", "TooManyUpdates"):
            raise exceptions.Throttling(message) from error
        if code == "AccessDeniedException":
            raise exceptions.AccessDenied(message) from error
        if code == "ParameterLimitExceeded":
            raise exceptions.ServiceLimitExceeded(message) from error
        raise exceptions.GeneralServiceException(f"{code}: {message}") from error


def _tag_list(tags: Mapping[str, str] | None) -> list[dict[str, str]]:
    return [{"Key": key, "Value": value} for key, value in sorted((tags or {}).items())]


def _read(ssm: Any, name: str | None) -> ResourceModel:
    """The parameter as a model: what CloudFormation shows as the resource's state."""
    if not name:
        raise exceptions.NotFound(TYPE_NAME, str(name))
    with _ssm_errors(name):
        parameter = ssm.get_parameter(Name=name)["Parameter"]
        tagged = ssm.list_tags_for_resource(ResourceType="Parameter", ResourceId=name)
    if parameter.get("Type") != "String":
        # A SecureString or StringList of the same name is not one of ours.
        raise exceptions.NotFound(TYPE_NAME, name)
    return ResourceModel(
        Name=parameter["Name"],
        Value=parameter["Value"],
        Tags={tag["Key"]: tag["Value"] for tag in tagged["TagList"]},
        Arn=parameter.get("ARN"),
        Version=parameter["Version"],
    )


def _success(model: ResourceModel | None = None) -> ProgressEvent:
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


def _check_again(model: ResourceModel, context: CallbackContext) -> ProgressEvent:
    """IN_PROGRESS: CloudFormation calls the same handler again, after the delay, with
    this context (typed in callback-context.json) as its callback_context."""
    return ProgressEvent(
        status=OperationStatus.IN_PROGRESS,
        resourceModel=model,
        callbackContext=context._serialize(),
        callbackDelaySeconds=STABILIZE_DELAY_SECONDS,
    )


# --------------------------------------------------------------------------- handlers


@resource.handler(Action.CREATE)
def create_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: MutableMapping[str, Any],
) -> ProgressEvent:
    """Write the parameter, then report SUCCESS once it reads back (stabilisation)."""
    model = request.desiredResourceState
    if model is None or not model.Name:
        raise exceptions.InvalidRequest("Name is required")
    ssm = _ssm(session)
    context = CallbackContext._deserialize(callback_context)

    if not context.Created:
        LOG.info("creating parameter %s", model.Name)
        arguments: dict[str, Any] = {
            "Name": model.Name,
            "Value": model.Value,
            "Type": "String",
        }
        if model.Tags:
            arguments["Tags"] = _tag_list(model.Tags)
        with _ssm_errors(model.Name):
            # No Overwrite: an existing parameter is AlreadyExists, never taken over.
            ssm.put_parameter(**arguments)
        return _check_again(model, CallbackContext(Created=True, Attempts=0))

    attempts = (context.Attempts or 0) + 1
    try:
        current = _read(ssm, model.Name)
    except exceptions.NotFound:
        if attempts >= STABILIZE_ATTEMPTS:
            raise exceptions.NotStabilized(
                f"parameter {model.Name} was not readable after {attempts} checks"
            ) from None
        LOG.info("parameter %s is not readable yet (check %d)", model.Name, attempts)
        return _check_again(model, CallbackContext(Created=True, Attempts=attempts))
    LOG.info("parameter %s is ready (version %s)", model.Name, current.Version)
    return _success(current)


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: MutableMapping[str, Any],
) -> ProgressEvent:
    """The parameter as it is now; NotFound when it does not exist."""
    model = request.desiredResourceState
    return _success(_read(_ssm(session), model.Name if model else None))


@resource.handler(Action.UPDATE)
def update_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: MutableMapping[str, Any],
) -> ProgressEvent:
    """Change the value and the tags in place; never create a parameter."""
    model = request.desiredResourceState
    previous = request.previousResourceState
    if model is None or not model.Name:
        raise exceptions.InvalidRequest("Name is required")
    # Name is createOnly: CloudFormation replaces the resource rather than rename it.
    if previous is not None and previous.Name and previous.Name != model.Name:
        raise exceptions.NotUpdatable(
            f"Name is create-only: it cannot change from {previous.Name} to {model.Name}"
        )
    ssm = _ssm(session)
    current = _read(ssm, model.Name)  # NotFound when there is nothing to update

    LOG.info("updating parameter %s", model.Name)
    with _ssm_errors(model.Name):
        ssm.put_parameter(
            Name=model.Name, Value=model.Value, Type="String", Overwrite=True
        )
        wanted = dict(model.Tags or {})
        existing = current.Tags or {}
        stale = sorted(set(existing) - set(wanted))
        if stale:
            ssm.remove_tags_from_resource(
                ResourceType="Parameter", ResourceId=model.Name, TagKeys=stale
            )
        changed = {k: v for k, v in wanted.items() if existing.get(k) != v}
        if changed:
            ssm.add_tags_to_resource(
                ResourceType="Parameter", ResourceId=model.Name, Tags=_tag_list(changed)
            )
    return _success(_read(ssm, model.Name))


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: MutableMapping[str, Any],
) -> ProgressEvent:
    """Delete the parameter; NotFound when it is already gone."""
    model = request.desiredResourceState
    name = model.Name if model else None
    ssm = _ssm(session)
    _read(ssm, name)  # NotFound when it is already gone, or is not a String parameter
    LOG.info("deleting parameter %s", name)
    with _ssm_errors(name):
        ssm.delete_parameter(Name=name)
    # A delete that succeeds returns no model.
    return _success()


@resource.handler(Action.LIST)
def list_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: MutableMapping[str, Any],
) -> ProgressEvent:
    """One page of parameters (their primary identifier, Name) and the next page's token."""
    arguments: dict[str, Any] = {
        "MaxResults": PAGE_SIZE,
        "ParameterFilters": [{"Key": "Type", "Option": "Equals", "Values": ["String"]}],
    }
    if request.nextToken:
        arguments["NextToken"] = request.nextToken
    with _ssm_errors(None):
        page = _ssm(session).describe_parameters(**arguments)
    return ProgressEvent(
        status=OperationStatus.SUCCESS,
        resourceModels=[ResourceModel(Name=p["Name"]) for p in page["Parameters"]],
        # None on the last page: CloudFormation calls LIST again while there is one.
        nextToken=page.get("NextToken"),
    )
