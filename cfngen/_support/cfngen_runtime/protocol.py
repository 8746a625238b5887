"""Protocol fixes: cloudformation_cli_python_lib's `Resource` with two of its bugs fixed.

Same constructor, `.handler(Action.X)` decorator, `__call__` Lambda entrypoint and
`test_entrypoint`, but LIST handlers get the request's `nextToken` (the library leaves it out, so
LIST pagination never worked through it), and an exception raised by a handler is reported with
its type and message instead of an empty InternalFailure (the traceback stays in the log). Both
override private methods of the library: the range of its versions they are tested with is
`cfngen_runtime.CLOUDFORMATION_CLI_PYTHON_LIB`.

    from cfngen_runtime.protocol import Resource

    resource = Resource(TYPE_NAME, ResourceModel, TypeConfigurationModel)
    test_entrypoint = resource.test_entrypoint

    @resource.handler(Action.CREATE)
    def create_handler(session, request: ResourceHandlerRequest, callback_context):
        ...
"""

from __future__ import annotations

import json
import typing
from typing import Any

from cloudformation_cli_python_lib.exceptions import InternalFailure, _HandlerError
from cloudformation_cli_python_lib.interface import (
    Action,
    BaseResourceHandlerRequest,
    ProgressEvent,
)
from cloudformation_cli_python_lib.resource import Resource as _LibResource
from cloudformation_cli_python_lib.utils import HandlerRequest, KitchenSinkEncoder

__all__ = ["Resource"]


class Resource(_LibResource):
    """cloudformation_cli_python_lib's Resource with the request's nextToken and useful errors."""

    def _cast_resource_request(
        self, request: HandlerRequest
    ) -> BaseResourceHandlerRequest:
        modelled = super()._cast_resource_request(request)
        # The library leaves out the top-level nextToken, so LIST pagination never worked.
        modelled.nextToken = request.nextToken
        return modelled

    def _invoke_handler(
        self,
        session: Any,
        request: BaseResourceHandlerRequest,
        action: Action,
        callback_context: typing.MutableMapping[str, Any],
    ) -> ProgressEvent:
        try:
            progress = super()._invoke_handler(
                session, request, action, callback_context
            )
            # Checked here: once the library serialises it, a failure is an empty InternalFailure.
            json.dumps(progress._serialize(), cls=KitchenSinkEncoder)
        except _HandlerError:
            raise
        except Exception as error:
            # The library answers an empty InternalFailure ("Uninitialized" in test_entrypoint);
            # the chained traceback still reaches the log.
            message = f"{type(error).__name__}: {error}".rstrip(": ")
            raise InternalFailure(message) from error
        return progress
