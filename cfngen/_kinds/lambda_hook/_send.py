"""One request of a Lambda hook carried to its end in cfngen/_contract's runner: sent again
while the function answers IN_PROGRESS (three invocations at most, as CloudFormation invokes
it), each invocation timed on the run's clock (`time.sleep` moves the simulated clock offline),
every attempt recorded for the rules of _rules.py; and all the requests of a test run sent in
one unit of work, where the payload server and the simulated sleep are opened.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

from cfngen._kinds.lambda_hook._function import (
    DEFAULT_LIMIT,
    Found,
    as_lambda_calls,
    simulated_sleep,
)
from cfngen._kinds.lambda_hook._requests import Hook, Target, again, request
from cfngen._kinds.lambda_hook._rules import MAX_INVOCATIONS, Answered, Attempt
from cfngen._kinds.lambda_hook._targets import Case

if TYPE_CHECKING:
    from cfngen._contract._call import Invocation
    from cfngen._contract._runner import Runner
    from cfngen._kind import Project


class _Call:
    """One request carried by the runner's loop (its `Exchange`): the same request again while
    the function answers IN_PROGRESS, each attempt recorded in `answered`."""

    waits = True
    timeout_minutes: float | None = None

    def __init__(self, event: dict[str, Any], target: Target, limit: float, seconds: list[float]):
        self.first = event
        self.label = target.label
        self.limit = limit
        self.answered = Answered(target)
        self._seconds = seconds
        self._sent: dict[str, Any] = event

    def event(self, number: int, callback_context: Any) -> dict[str, Any]:
        self._sent = self.first if number == 1 else again(self.first, number, callback_context)
        return self._sent

    def answer(self, invocation: Invocation, returned: Any) -> dict[str, Any] | None:
        seconds = self._seconds.pop() if self._seconds else invocation.seconds
        crash = invocation.crash
        response = json.loads(json.dumps(returned, default=str)) if returned is not None else None
        self.answered.attempts.append(
            Attempt(
                self._sent,
                response,
                seconds,
                error=None if crash is None else crash.headline,
            )
        )
        return invocation.response

    def advance(self, response: Any) -> None:
        pass


def send(runner: Runner[Project], found: Found, case: Case, publish: Any) -> Answered:
    region = runner.settings.region or "us-east-1"
    hook = Hook(found.hook.alias, _function_arn(found, region))
    event = case.event or request(hook, case.target, region=region, publish=publish)
    seconds: list[float] = []
    entrypoint = runner.entrypoint
    raw = getattr(entrypoint.function, "__wrapped_handler__", entrypoint.function)
    timed = as_lambda_calls(found, raw, region, seconds)
    timed.__wrapped_handler__ = raw  # type: ignore[attr-defined]
    entrypoint.function = timed
    limit = runner.settings.enforce_timeout or DEFAULT_LIMIT
    call = _Call(event, case.target, limit, seconds)
    outcome = runner.carry(call, handler=case.target.point)
    for invocation in outcome.invocations:
        if invocation.timed_out or invocation.not_called:
            stopped = Attempt(invocation.request, None, invocation.limit, timed_out=True)
            stopped.refused = invocation.not_called
            call.answered.attempts.append(stopped)
    return call.answered


def _function_arn(found: Found, region: str) -> str:
    from cfngen._kinds.lambda_hook._requests import ACCOUNT_ID, STACK_NAME

    name = f"{STACK_NAME}-{found.function.logical_id}"
    return f"arn:aws:lambda:{region}:{ACCOUNT_ID}:function:{name}"


def three_at_most(runner: Runner[Project]) -> None:
    """CloudFormation invokes the function up to three times for one request."""
    settings = runner.settings
    runner.settings = dataclasses.replace(
        settings, max_invocations=min(settings.max_invocations, MAX_INVOCATIONS)
    )


def sending(runner: Runner[Project], found: Found, plan: list[Case]) -> list[Answered]:
    """Every case sent, inside one unit of work (a worker process): the payload server and
    the simulated sleep are opened there, where the function runs."""
    from cfngen._kinds._shared._payload import PayloadServer

    wait = runner.clock().wait if runner.sandbox.simulated_time else None
    with PayloadServer() as server, simulated_sleep(wait):
        return [send(runner, found, case, server.publish) for case in plan]
