"""The re-invocation loop: one action carried from its first call to a final answer.

While a handler answers IN_PROGRESS it is called again with the callbackContext it returned,
after its callbackDelaySeconds. Offline (moto) that wait is simulated: the wall clock moves on
and nothing is slept (cfngen/_simulated_time.py; the per-call time limits stay real), so a
create that needs twenty 30-second callbacks is tested in milliseconds; against real AWS
(`--profile`) the wait is slept, up to `max_delay`. Each call gets a Lambda context whose
remaining time follows that clock. Whatever the protocol, the loop stops on a hung call, a
call refused because its handler hung earlier, or a guard: IN_PROGRESS past the handler's
timeoutInMinutes (in simulated time), `max_reinvoke` IN_PROGRESS answers in a row without a
delay, `max_invocations` calls in all.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from cfngen._contract._call import Invocation, call_once
from cfngen._contract._entrypoint import Entrypoint, HandlerCrash
from cfngen._contract._settings import DEFAULT_MAX_DELAY
from cfngen._simulated_time import (
    DEFAULT_MAX_INVOCATIONS,
    DEFAULT_MAX_REINVOKE,
    CallbackClock,
    LambdaContext,
    LoopGuard,
)


class Exchange(Protocol):
    """One action of one protocol, carried across calls by the runner's loop."""

    #: What the calls are shown as: "CREATE", "CREATE_PRE_PROVISION AWS::S3::Bucket".
    label: str
    #: Seconds one call may take.
    limit: float
    #: The handler's timeoutInMinutes when the action may wait across callbacks (None: its
    #: kind declares no timeout): IN_PROGRESS past it, in simulated time, stops the loop.
    timeout_minutes: float | None
    #: Whether an IN_PROGRESS answer is called again (a resource's READ and LIST are not).
    waits: bool

    def event(self, number: int, callback_context: Mapping[str, Any] | None) -> dict[str, Any]:
        """The event of call `number` (from 1), with the previous call's callbackContext."""
        ...

    def answer(self, invocation: Invocation, returned: Any) -> dict[str, Any] | None:
        """The handler's answer to one call: its return value (resources, hooks) or what it
        sent elsewhere (a custom resource's PUT)."""
        ...

    def advance(self, response: Mapping[str, Any]) -> None:
        """Take what an IN_PROGRESS answer carries into the next call (e.g. its model)."""
        ...


@dataclass
class Policy:
    """When the loop calls again, and how long it waits in between."""

    max_reinvoke: int = DEFAULT_MAX_REINVOKE
    max_invocations: int = DEFAULT_MAX_INVOCATIONS
    #: Real seconds slept at most per callbackDelaySeconds, when time is real.
    max_delay: float = DEFAULT_MAX_DELAY
    #: Simulated time (offline, against moto): waits move the wall clock, nothing is slept.
    simulated: bool = True
    sleep: Callable[[float], None] = field(default=time.sleep)


@dataclass
class Outcome:
    """One action carried to its end: the first call and every re-invocation."""

    action: str
    invocations: list[Invocation]
    #: Why the loop stopped before a final status: a time limit or too many re-invocations.
    guard: str | None = None
    #: The guard is about IN_PROGRESS that would not end (not a time limit).
    endless: bool = False
    #: The guard is the handler's timeoutInMinutes: it should have answered NotStabilized.
    past_timeout: bool = False

    @property
    def last(self) -> Invocation:
        return self.invocations[-1]

    @property
    def response(self) -> dict[str, Any]:
        return self.last.response or {}

    @property
    def status(self) -> str | None:
        return None if self.guard else self.last.status

    @property
    def error_code(self) -> str | None:
        code = self.response.get("errorCode")
        return code if isinstance(code, str) else None

    @property
    def message(self) -> Any:
        return self.response.get("message")

    @property
    def crash(self) -> HandlerCrash | None:
        return next((i.crash for i in reversed(self.invocations) if i.crash), None)

    @property
    def timed_out(self) -> bool:
        return any(i.timed_out or i.not_called for i in self.invocations)

    @property
    def output(self) -> list[str]:
        return [line for invocation in self.invocations for line in invocation.output]


#: Makes one call: (event, call number, Lambda context) -> (the invocation, the return value).
Call = Callable[[dict[str, Any], int, Any], tuple[Invocation, Any]]


def entrypoint_call(
    entrypoint: Entrypoint, *, label: str, handler: str, limit: float, status_key: str
) -> Call:
    """The `call` of `carry` that calls the imported entrypoint (see _call.call_once)."""

    def call(event: dict[str, Any], number: int, context: Any) -> tuple[Invocation, Any]:
        return call_once(
            entrypoint,
            event,
            label=label,
            handler=handler,
            number=number,
            limit=limit,
            context=context,
            status_key=status_key,
        )

    return call


def carry(
    exchange: Exchange,
    *,
    call: Call,
    status_key: str,
    in_progress: str | None,
    policy: Policy,
    on_invocation: Callable[[Invocation], None] | None = None,
    on_wait: Callable[[float, float, bool], None] | None = None,
    on_call: Callable[[str, int], None] | None = None,
    clock: CallbackClock | None = None,
) -> Outcome:
    """Call, then call again while `in_progress` with the callbackContext it returned.

    `call` makes one call (`entrypoint_call`, or a stand-in in tests). `clock`: an entered
    CallbackClock shared by the actions of one test, so that simulated time only moves on
    (a READ after a 40-minute CREATE sees the time the CREATE ended); None: one of its own.
    """
    with contextlib.ExitStack() as stack:
        if clock is None:
            clock = stack.enter_context(
                CallbackClock(
                    simulated=policy.simulated, max_delay=policy.max_delay, sleep=policy.sleep
                )
            )
        clock.max_delay = policy.max_delay
        return _loop(
            exchange,
            call=call,
            clock=clock,
            status_key=status_key,
            in_progress=in_progress,
            policy=policy,
            on_invocation=on_invocation,
            on_wait=on_wait,
            on_call=on_call,
        )


def _loop(
    exchange: Exchange,
    *,
    call: Call,
    clock: CallbackClock,
    status_key: str,
    in_progress: str | None,
    policy: Policy,
    on_invocation: Callable[[Invocation], None] | None,
    on_wait: Callable[[float, float, bool], None] | None,
    on_call: Callable[[str, int], None] | None,
) -> Outcome:
    label = exchange.label
    invocations: list[Invocation] = []
    guard = LoopGuard(
        label,
        exchange.timeout_minutes,
        started=clock.now(),
        max_reinvoke=policy.max_reinvoke,
        max_invocations=policy.max_invocations,
    )
    context: Mapping[str, Any] | None = None
    while True:
        number = len(invocations) + 1
        event = exchange.event(number, context)
        if on_call is not None:
            on_call(label, number)
        elapsed = clock.now() - guard.started
        invocation, returned = call(event, number, LambdaContext(exchange.limit, clock.now))
        invocation.elapsed = elapsed
        if not invocation.not_called and not invocation.timed_out:
            invocation.response = exchange.answer(invocation, returned)
        invocations.append(invocation)
        if on_invocation is not None:
            on_invocation(invocation)
        if invocation.not_called:
            return Outcome(label, invocations, guard=invocation.not_called)
        if invocation.timed_out:
            return Outcome(
                label,
                invocations,
                guard=f"{label} did not return within its {exchange.limit:g} s limit",
            )
        response = invocation.response or {}
        if in_progress is None or response.get(status_key) != in_progress:
            return Outcome(label, invocations)
        if not exchange.waits:
            return Outcome(label, invocations)
        stop = guard.after(response, clock.now())
        if stop is not None:
            return Outcome(
                label,
                invocations,
                guard=stop,
                endless=guard.stopped_by != "timeout",
                past_timeout=guard.stopped_by == "timeout",
            )
        delay = response.get("callbackDelaySeconds") or 0
        if isinstance(delay, (int, float)) and delay > 0:
            if on_wait is not None:  # before a real wait, so that the user knows why
                real = 0.0 if clock.simulated else min(float(delay), max(clock.max_delay, 0.0))
                on_wait(real, float(delay), clock.simulated)
            clock.wait(float(delay))
        found = response.get("callbackContext")
        context = found if isinstance(found, Mapping) else None
        exchange.advance(response)
