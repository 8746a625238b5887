"""The handlers CloudFormation calls to manage Acme::Svc::Widget resources.

This file is yours: `cfngen init` wrote it once and `cfngen upgrade` merges template changes
into it. models.py and the runtime library cfngen_runtime/ beside it are written by
`cfngen generate`; do not edit them. cfngen_runtime has what calling AWS takes: boto3
clients with retries pinned, AWS errors as the contract's error codes (`.clients`), and
steps that wait across callbacks (IN_PROGRESS) until the service is ready (`.steps`).

Each stub already returns what the handler contract requires: create and update return the
whole model with its primary identifier, delete returns no model, read and list never return
IN_PROGRESS, and a Widget that does not exist is NotFound. Replace the TODOs with
calls to the service's API. Each stub starts with a `# STUB:` line: `cfngen test` fails the
tests that need a handler still marked so, without calling it, until you implement the
handler and delete that line.
"""

from __future__ import annotations

import logging
from collections.abc import MutableMapping
from typing import Any

from cloudformation_cli_python_lib import (
    Action,
    HandlerErrorCode,
    OperationStatus,
    ProgressEvent,
    SessionProxy,
    identifier_utils,
)

from .cfngen_runtime.protocol import Resource
from .models import ResourceHandlerRequest, ResourceModel, TypeConfigurationModel

# Log through this logger: CloudFormation sends its output to CloudWatch Logs.
LOG = logging.getLogger(__name__)
TYPE_NAME = "Acme::Svc::Widget"

resource = Resource(TYPE_NAME, ResourceModel, TypeConfigurationModel)
test_entrypoint = resource.test_entrypoint


def _not_found(model: ResourceModel | None) -> ProgressEvent:
    identifier = model.Id if model is not None else None
    return ProgressEvent.failed(
        HandlerErrorCode.NotFound, f"{TYPE_NAME} {identifier} was not found"
    )


@resource.handler(Action.CREATE)
def create_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: MutableMapping[str, Any],
) -> ProgressEvent:
    """Create the Widget; return it with its identifier and readOnly values."""
    # STUB: not implemented. Replace the TODOs below, then delete this line.
    model = request.desiredResourceState
    if model is None:
        return ProgressEvent.failed(
            HandlerErrorCode.InvalidRequest, "the request has no resource properties"
        )
    # TODO: create it through the service's API, for example with
    #     api = client(session, "svc")  # from .cfngen_runtime.clients
    # Return HandlerErrorCode.AlreadyExists when it exists already (aws_errors of
    # .cfngen_runtime.clients maps AWS errors to such codes). When it takes a while to become ready, let steps
    # wait for it across callbacks, and return what they answer:
    #     return Steps(
    #         Call("create", lambda: api.create_...(...)),
    #         Waiter(status, pending=["CREATING"], target=["ACTIVE"]),
    #     ).run(callback_context, model, timeout_minutes=TIMEOUT_MINUTES["create"])
    model.Id = identifier_utils.generate_resource_identifier(
        stack_id_or_name=request.stackId,
        logical_resource_id=request.logicalResourceIdentifier,
        client_request_token=request.clientRequestToken,
        max_length=255,
    )
    model.Arn = _arn(request, model.Id)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


def _arn(request: ResourceHandlerRequest, identifier: str) -> str:
    # TODO: use the ARN the service reports, if it has one.
    partition = request.awsPartition or "aws"
    location = f"{request.region}:{request.awsAccountId}"
    return f"arn:{partition}:svc:{location}:widget/{identifier}"


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: MutableMapping[str, Any],
) -> ProgressEvent:
    """Return the Widget as it is now, readOnly values included."""
    # STUB: not implemented. Replace the TODOs below, then delete this line.
    model = request.desiredResourceState
    if model is None or not model.Id:
        return _not_found(model)
    # TODO: describe it through the service's API by model.Id; return _not_found(model)
    # when it does not exist, otherwise copy every property it reports onto the model.
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: MutableMapping[str, Any],
) -> ProgressEvent:
    """Delete the Widget; a successful delete returns no model."""
    # STUB: not implemented. Replace the TODOs below, then delete this line.
    model = request.desiredResourceState
    if model is None or not model.Id:
        return _not_found(model)
    # TODO: delete it through the service's API by model.Id; return _not_found(model)
    # when it is already gone.
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=None)
