"""The handlers CloudFormation calls to manage Example::SSM::Parameter resources: String
parameters in AWS Systems Manager (SSM) Parameter Store.

This is cfngen's working example (`cfngen init --example`); it passes every contract test
of `cfngen test`. The file is yours: change it into your own resource type. models.py beside
it and the runtime library cfngen_runtime/ are written by `cfngen generate`; do not edit
them.

CloudFormation calls one handler per request and passes it a boto3 session made from the
caller's credentials. A handler returns a ProgressEvent: SUCCESS with the resource's
model, FAILED with an error code (raise one of `exceptions.*` to return one), or
IN_PROGRESS to be called again after `callbackDelaySeconds` with the `callbackContext` it
returned. cfngen_runtime.steps does the waiting for create: its `Steps` answer IN_PROGRESS
when a step must wait longer than one call may, and carry on in the next call.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, MutableMapping
from typing import Any

from cloudformation_cli_python_lib import (
    Action,
    OperationStatus,
    ProgressEvent,
    SessionProxy,
    exceptions,
)

from .cfngen_runtime.clients import aws_errors, client
from .cfngen_runtime.protocol import Resource
from .cfngen_runtime.steps import Call, Steps, Waiter
from .models import (
    TIMEOUT_MINUTES,
    CallbackContext,
    ResourceHandlerRequest,
    ResourceModel,
    TypeConfigurationModel,
)

# Log through this logger: CloudFormation sends its output to CloudWatch Logs.
LOG = logging.getLogger(__name__)
TYPE_NAME = "Example::SSM::Parameter"

#: Checks that may find a new parameter missing before create gives up (NotStabilized).
STABILIZE_ATTEMPTS = 10
#: Parameters per LIST page (SSM's DescribeParameters allows 1 to 50).
PAGE_SIZE = 10

resource = Resource(TYPE_NAME, ResourceModel, TypeConfigurationModel)
test_entrypoint = resource.test_entrypoint


# --------------------------------------------------------------------------- SSM


def _tag_list(tags: Mapping[str, str] | None) -> list[dict[str, str]]:
    return [{"Key": key, "Value": value} for key, value in sorted((tags or {}).items())]


def _read(ssm: Any, name: str | None) -> ResourceModel:
    """The parameter as a model: what CloudFormation shows as the resource's state."""
    if not name:
        raise exceptions.NotFound(TYPE_NAME, str(name))
    # aws_errors: SSM's errors as the contract's codes (ParameterNotFound: NotFound...)
    with aws_errors(TYPE_NAME, name):
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


# --------------------------------------------------------------------------- handlers


@resource.handler(Action.CREATE)
def create_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: MutableMapping[str, Any],
) -> ProgressEvent:
    """Write the parameter, wait until it reads back, tag it, and return it as it is.

    The steps run one after the other. When one has to wait longer than this call may,
    the handler answers IN_PROGRESS and CloudFormation calls it again, after the delay,
    with the callback context where the steps keep their progress (cfngen_runtime.steps).
    """
    model = request.desiredResourceState
    if model is None or not model.Name:
        raise exceptions.InvalidRequest("Name is required")
    name = model.Name
    ssm = client(session, "ssm")

    def put() -> None:
        LOG.info("creating parameter %s", name)
        # No Overwrite: an existing parameter is AlreadyExists, never taken over.
        ssm.put_parameter(Name=name, Value=model.Value, Type="String")

    def tag() -> None:
        if model.Tags:
            ssm.add_tags_to_resource(
                ResourceType="Parameter", ResourceId=name, Tags=_tag_list(model.Tags)
            )

    return Steps(
        Call("create", put),
        # SSM is eventually consistent: a new parameter may not read back at once.
        Waiter.until_found(
            lambda: ssm.get_parameter(Name=name),
            not_found_checks=STABILIZE_ATTEMPTS,
            name="readable",
        ),
        Call("tag", tag),
        Call("read", lambda: _success(_read(ssm, name))),
    ).run(
        CallbackContext._deserialize(callback_context),
        model,
        timeout_minutes=TIMEOUT_MINUTES["create"],
    )


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: MutableMapping[str, Any],
) -> ProgressEvent:
    """The parameter as it is now; NotFound when it does not exist."""
    model = request.desiredResourceState
    return _success(_read(client(session, "ssm"), model.Name if model else None))


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
    ssm = client(session, "ssm")
    current = _read(ssm, model.Name)  # NotFound when there is nothing to update

    LOG.info("updating parameter %s", model.Name)
    with aws_errors(TYPE_NAME, model.Name):
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
    ssm = client(session, "ssm")
    _read(ssm, name)  # NotFound when it is already gone, or is not a String parameter
    LOG.info("deleting parameter %s", name)
    with aws_errors(TYPE_NAME, name):
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
    with aws_errors(TYPE_NAME):
        page = client(session, "ssm").describe_parameters(**arguments)
    return ProgressEvent(
        status=OperationStatus.SUCCESS,
        resourceModels=[ResourceModel(Name=p["Name"]) for p in page["Parameters"]],
        # None on the last page: CloudFormation calls LIST again while there is one.
        nextToken=page.get("NextToken"),
    )
