"""Steps: a handler as a list of steps (`Call`, `Waiter`) that run one after the other,
across as many invocations as they need.

A handler cannot simply loop until AWS is ready: create, update and delete must answer within 60
seconds, so a longer wait means answering IN_PROGRESS with a callback context and a delay, and
CloudFormation calls the handler again, maybe in another container. `Steps` does that
bookkeeping; its progress is kept in the callback context under the key "cfngen" (`STATE_KEY`),
as plain JSON. A create that calls, waits, tags and waits again:

    from cfngen_runtime.clients import client
    from cfngen_runtime.steps import Call, Steps, Waiter
    from .models import TIMEOUT_MINUTES

    @resource.handler(Action.CREATE)
    def create_handler(session, request, callback_context):
        model = request.desiredResourceState
        dax = client(session, "dax")

        def status():
            cluster = dax.describe_clusters(ClusterNames=[model.Name])["Clusters"][0]
            return cluster, cluster["Status"]

        return Steps(
            Call("create", lambda: dax.create_cluster(ClusterName=model.Name, ...)),
            Waiter(status, pending=["creating"], target=["available"], name="up"),
            Call("tag", lambda: dax.tag_resource(ResourceName=..., Tags=...)),
            Waiter(status, pending=["modifying"], target=["available"], name="tagged"),
        ).run(callback_context, model, timeout_minutes=TIMEOUT_MINUTES["create"])

Needs only the standard library, botocore and cloudformation-cli-python-lib; runs on Python 3.8
and newer.
"""

from __future__ import annotations

import json
import logging
import math
from typing import Any, Mapping

from cloudformation_cli_python_lib import exceptions
from cloudformation_cli_python_lib.interface import (
    HandlerErrorCode,
    OperationStatus,
    ProgressEvent,
)

from . import STATE_KEY
from .clients import _message, error_code
from .waiters import Budget, Call, Clock, Step, Waiter, _Done, _Progress

__all__ = ["STATE_KEY", "Call", "Steps", "Waiter"]

LOG = logging.getLogger(__name__)
_Code = HandlerErrorCode

#: The handler contract's timeout for a handler without `timeoutInMinutes`.
DEFAULT_TIMEOUT_MINUTES = 120
#: Steps give up this long before the handler's timeout (at most half of it), so that
#: CloudFormation gets their NotStabilized message rather than its own timeout.
DEADLINE_MARGIN_SECONDS = 60.0


class Steps:
    """A handler as steps that run in order, across as many invocations as they need.

    `run` goes as far as one invocation's `Budget` allows. A step that must wait longer
    makes the handler answer IN_PROGRESS with the right `callbackDelaySeconds` and its
    progress in the callback context (under `STATE_KEY`); CloudFormation's next call
    carries on where it stopped. After the last step the answer is SUCCESS with
    `model`. It never waits past the handler's `timeout_minutes` (models.py's
    TIMEOUT_MINUTES has the schema's): then the answer is FAILED NotStabilized.
    `timeout_minutes=None` never answers IN_PROGRESS. Errors end it with their code.

    `callback_context` is what the handler was given (a dict) or your CallbackContext
    from models.py; your own keys or fields are kept.

        return Steps(
            Call("create", create),
            Waiter.until_found(read, name="readable"),
            Call("tag", tag),
        ).run(callback_context, model, timeout_minutes=TIMEOUT_MINUTES["create"])
    """

    def __init__(self, *steps: Step) -> None:
        names = [step.name for step in steps]
        if len(set(names)) != len(names):
            raise ValueError(f"give every step its own name: {names}")
        self.steps = steps

    def run(
        self,
        callback_context: Any,
        model: Any = None,
        *,
        timeout_minutes: float | None = DEFAULT_TIMEOUT_MINUTES,
        budget: Budget | None = None,
        clock: Clock | None = None,
        service: str | None = None,
    ) -> ProgressEvent:
        clock = clock or (budget.clock if budget else Clock())
        budget = budget or Budget(clock=clock)
        state = _load_state(callback_context)
        if "deadline" not in state and timeout_minutes:
            seconds = float(timeout_minutes) * 60
            state["deadline"] = (
                clock.time() + seconds - min(DEADLINE_MARGIN_SECONDS, seconds / 2)
            )
        names = [step.name for step in self.steps]
        name = state.get("step", names[0] if names else None)
        if name not in names and name is not None:
            message = f"the callback context names step {name!r}, which is gone"
            return ProgressEvent.failed(_Code.InternalFailure, message)
        index = names.index(name) if name is not None else 0
        while index < len(self.steps):
            step = self.steps[index]
            state["step"] = step.name
            progress: _Progress = state.setdefault("progress", {})
            started = clock.monotonic()
            try:
                outcome = step.attempt(progress, clock, service)
            except exceptions._HandlerError as error:
                return error.to_progress_event()
            except Exception as error:
                return _failed(step, error, service)
            if isinstance(outcome, ProgressEvent):
                return outcome
            if isinstance(outcome, _Done):
                index += 1
                state.pop("progress", None)
                continue
            wait, now, deadline = outcome.wait, clock.time(), state.get("deadline")
            if isinstance(deadline, (int, float)) and now + wait > deadline:
                if now >= deadline:
                    if outcome.error is not None:
                        return _failed(step, outcome.error, service)
                    limit = f" ({timeout_minutes:g} minutes)" if timeout_minutes else ""
                    message = (
                        f"{step.name} did not finish within the handler's timeout"
                        f"{limit}: {outcome.note}"
                    )
                    return ProgressEvent.failed(_Code.NotStabilized, message)
                wait = deadline - now  # one last look at the deadline
            if budget.allows(wait, clock.monotonic() - started):
                LOG.info("%s: %s; again in %.1f s", step.name, outcome.note, wait)
                clock.sleep(wait)
                continue
            if timeout_minutes is None:
                if outcome.error is not None:
                    return _failed(step, outcome.error, service)
                message = f"{step.name} did not finish in one call: {outcome.note}"
                return ProgressEvent.failed(_Code.NotStabilized, message)
            delay = max(1, math.ceil(wait))
            LOG.info("%s: %s; calling back in %d s", step.name, outcome.note, delay)
            return ProgressEvent(
                status=OperationStatus.IN_PROGRESS,
                resourceModel=model,
                callbackContext=_save_state(callback_context, state),
                callbackDelaySeconds=delay,
            )
        return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


def _failed(step: Step, error: BaseException, service: str | None) -> ProgressEvent:
    return ProgressEvent.failed(
        error_code(error, service), f"{step.name}: {_message(error)}"
    )


def _load_state(context: Any) -> dict[str, Any]:
    if context is None:
        return {}
    if isinstance(context, Mapping):
        raw = context.get(STATE_KEY)
    elif STATE_KEY in getattr(type(context), "__dataclass_fields__", {}):
        raw = getattr(context, STATE_KEY)
    else:
        raise TypeError(
            f"{type(context).__name__} has no field {STATE_KEY!r}: run `cfngen "
            "generate` to add it, or pass the handler's callback_context dict"
        )
    # a copy, through JSON: what CloudFormation would give the next call
    return json.loads(json.dumps(raw)) if isinstance(raw, Mapping) else {}


def _save_state(context: Any, state: dict[str, Any]) -> dict[str, Any]:
    if context is None or isinstance(context, Mapping):
        saved = dict(context or {})
        saved[STATE_KEY] = state
        return saved
    setattr(context, STATE_KEY, state)
    return dict(context._serialize())
