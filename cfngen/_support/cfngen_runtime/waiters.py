"""Waiters: the steps a handler waits with (`Call`, `Waiter`, `Retry`), the time they read
(`Clock`) and how long one invocation may wait in-process (`Budget`).

- `Waiter`: Terraform's StateChangeConf (refresh, pending and target states, not-found checks,
  consecutive target occurrences, backoff). `Retry`: which errors of a `Call` mean "not yet"
  (eventual consistency), and for how long to try again.
- `Waiter.wait_here`, `retry_here`, `Budget`: waiting inside one invocation only, for hooks (they
  have no timeoutInMinutes) and for code outside `Steps` (cfngen_runtime.steps).

Needs only the standard library, botocore and cloudformation-cli-python-lib; runs on Python 3.8
and newer.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Sequence, Tuple, Union

from cloudformation_cli_python_lib import exceptions
from cloudformation_cli_python_lib.interface import (
    HandlerErrorCode,
    OperationStatus,
    ProgressEvent,
)

from .clients import RETRIABLE, _message, aws_error_code, error_code

__all__ = ["Budget", "Call", "Clock", "Retry", "Waiter", "retry_here"]

_Code = HandlerErrorCode

#: In-process waiting per invocation; a longer wait is a callback (IN_PROGRESS with
#: callbackDelaySeconds). Short waits are cheaper in-process, long ones cost nothing as
#: callbacks; the contract allows 60 s a call.
LOCAL_WAIT_SECONDS = 5.0
#: With a Lambda context: time kept free at the end of the invocation to answer.
SAFETY_MARGIN_SECONDS = 10.0
#: Terraform's StateChangeConf: 100 ms, doubled after every poll that did not see the
#: target (so 0.2 s, 0.4 s, ...), at most 10 s.
FIRST_INTERVAL_SECONDS = 0.1
MAX_INTERVAL_SECONDS = 10.0
#: Terraform's StateChangeConf: polls that may find nothing before it gives up, and how
#: often in a row the target state must be seen.
NOT_FOUND_CHECKS = 20
CONTINUOUS_TARGET_OCCURRENCE = 1
#: Terraform's PropagationTimeout: how long eventual-consistency errors are retried
#: (IAM changes take about two minutes to be seen everywhere).
PROPAGATION_TIMEOUT_SECONDS = 120.0

# --------------------------------------------------------------------------- time


class Clock:
    """Where the helpers read the time and sleep; tests pass a fake one.

    `time()` is the wall clock (deadlines are kept in the callback context, and the
    next call may run in another container); `monotonic()` measures one invocation.
    """

    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class Budget:
    """How long this invocation may still wait in-process, counted from its creation.

    At most `seconds`; with the Lambda context, also `SAFETY_MARGIN_SECONDS` short of
    the function's own timeout. `Budget(0)` never waits: every wait is a callback.

        Steps(...).run(callback_context, model, budget=Budget(20))
    """

    def __init__(
        self,
        seconds: float = LOCAL_WAIT_SECONDS,
        *,
        lambda_context: Any = None,
        clock: Clock | None = None,
    ) -> None:
        self.clock = clock or Clock()
        self.seconds = seconds
        self.lambda_context = lambda_context
        self.started = self.clock.monotonic()

    def remaining(self) -> float:
        left = self.seconds - (self.clock.monotonic() - self.started)
        if self.lambda_context is not None:
            in_lambda = self.lambda_context.get_remaining_time_in_millis() / 1000
            left = min(left, in_lambda - SAFETY_MARGIN_SECONDS)
        return max(0.0, left)

    def allows(self, wait: float, work: float = 0.0) -> bool:
        """Whether `wait` and then twice the `work` it follows still fit (the Java
        plugin's rule for waiting in-process)."""
        return wait + 2 * work + 0.1 <= self.remaining()


# --------------------------------------------------------------------------- steps


@dataclass(frozen=True)
class Retry:
    """Which errors of a `Call` mean "not yet", and how long to try it again.

    An error is retried when its AWS code is in `codes`, its text contains one of
    `messages`, it maps to NotFound and `not_found` is set (a new resource that is not
    visible yet), or its code is `RETRIABLE` and `retriable` is set. Attempts back off
    as `Waiter` polls do and stop `timeout` seconds after the first failure: then the
    error is the answer. When the invocation's budget runs out first, `Steps` answers
    IN_PROGRESS and the next call goes on counting.

        # a new IAM role takes a while before Lambda may assume it
        Call("create", create_function,
             retry=Retry(messages=["role defined for the function cannot be assumed"]))
    """

    codes: Sequence[str] = ()
    messages: Sequence[str] = ()
    not_found: bool = False
    retriable: bool = True
    timeout: float = PROPAGATION_TIMEOUT_SECONDS

    def matches(self, error: BaseException, code: HandlerErrorCode) -> bool:
        return (
            aws_error_code(error) in self.codes
            or any(text in str(error) for text in self.messages)
            or (self.not_found and code is _Code.NotFound)
            or (self.retriable and code in RETRIABLE)
        )


@dataclass(frozen=True)
class _Done:
    result: Any = None


@dataclass(frozen=True)
class _Again:
    wait: float
    note: str
    #: A Call's error that was retried: the answer if no time is left.
    error: BaseException | None = None


_Progress = Dict[str, Any]


def _count(progress: Mapping[str, Any], key: str) -> int:
    try:
        return int(progress.get(key, 0))
    except (TypeError, ValueError):
        return 0


def _backoff(
    doublings: int,
    min_interval: float = 0.0,
    max_interval: float = MAX_INTERVAL_SECONDS,
    poll_interval: float | None = None,
) -> float:
    if poll_interval:
        return float(poll_interval)
    wait = FIRST_INTERVAL_SECONDS * 2.0 ** min(doublings, 32)
    return min(max(wait, min_interval), max(max_interval, min_interval))


class Call:
    """A step that calls `function`; the next step runs once it has returned.

    Its result is ignored, except a ProgressEvent, which ends the handler with that
    event (SUCCESS with the model you read back, say). An error ends the handler with
    its code (`error_code`), unless `retry` says to try again.

        Call("create", lambda: ssm.put_parameter(Name=name, Value=value, Type="String"))
    """

    def __init__(
        self, name: str, function: Callable[[], Any], *, retry: Retry | None = None
    ) -> None:
        self.name = name
        self.function = function
        self.retry = retry

    def attempt(self, progress: _Progress, clock: Clock, service: str | None) -> Any:
        try:
            result = self.function()
        except exceptions._HandlerError:
            raise
        except Exception as error:
            retry = self.retry
            if retry is None or not retry.matches(error, error_code(error, service)):
                raise
            first = float(progress.setdefault("since", clock.time()))
            if clock.time() - first >= retry.timeout:
                raise
            attempts = progress["attempts"] = _count(progress, "attempts") + 1
            progress["last"] = _message(error)
            note = f"{_message(error)} (attempt {attempts})"
            return _Again(_backoff(attempts), note, error)
        return result if isinstance(result, ProgressEvent) else _Done(result)


Refresh = Callable[[], Tuple[Any, str]]


@dataclass(frozen=True)
class Waiter:
    """A step that waits for a state, as Terraform's StateChangeConf does.

    `refresh()` returns `(result, state)`; a result of None, or an error that maps to
    NotFound, means "not found". The wait is over when a `target` state has been seen
    `continuous_target_occurrence` times in a row or, with no `target`, once the thing
    is gone. NotStabilized ends it: a state in neither list (when `pending` is given),
    nothing found more than `not_found_checks` times in a row, the handler's timeout.
    A retriable error (throttling, 5xx) counts as one more pending poll. Polls start
    after `delay` seconds, then come 0.2, 0.4, ... seconds apart, within
    [`min_interval`, `max_interval`], or every `poll_interval` seconds.

        def status():
            db = rds.describe_db_instances(DBInstanceIdentifier=name)["DBInstances"][0]
            return db, db["DBInstanceStatus"]

        Waiter(status, pending=["creating", "backing-up"], target=["available"],
               poll_interval=30, name="available")
    """

    refresh: Refresh
    pending: Sequence[str] = ()
    target: Sequence[str] = ()
    delay: float = 0.0
    min_interval: float = 0.0
    max_interval: float = MAX_INTERVAL_SECONDS
    poll_interval: float | None = None
    not_found_checks: int = NOT_FOUND_CHECKS
    continuous_target_occurrence: int = CONTINUOUS_TARGET_OCCURRENCE
    name: str = "wait"

    @classmethod
    def until_found(cls, describe: Callable[[], Any], **options: Any) -> Waiter:
        """Wait until `describe()` stops failing with NotFound (a new thing is seen).

        Other options are the Waiter's; not found is counted by `not_found_checks`.

            Waiter.until_found(lambda: ssm.get_parameter(Name=name), name="readable")
        """
        return cls(_presence(describe), target=("exists",), **options)

    @classmethod
    def until_gone(cls, describe: Callable[[], Any], **options: Any) -> Waiter:
        """Wait until `describe()` fails with NotFound (a deleted thing is gone).

        Other options are the Waiter's.

            Waiter.until_gone(lambda: dax.describe_clusters(ClusterNames=[name]))
        """
        return cls(_presence(describe), pending=("exists",), **options)

    def attempt(self, progress: _Progress, clock: Clock, service: str | None) -> Any:
        if self.delay > 0 and not progress.get("delayed"):
            progress["delayed"] = True
            return _Again(self.delay, f"first poll after {self.delay:g} s")
        try:
            result, state = self.refresh()
        except exceptions._HandlerError:
            raise
        except Exception as error:
            code = error_code(error, service)
            if code in RETRIABLE:
                return self._next(progress, f"refresh failed: {_message(error)}")
            if code is not _Code.NotFound:
                raise
            result, state = None, ""
        seen = progress["last"] = "not found" if result is None else f"state {state!r}"
        if (result is None and not self.target) or (
            result is not None and state in self.target
        ):
            hits = progress["hits"] = _count(progress, "hits") + 1
            progress["missing"] = 0
            if hits >= self.continuous_target_occurrence:
                return _Done(result)
            return self._next(progress, f"{seen}, {hits} time(s) in a row")
        progress["hits"] = 0
        if result is None:
            missing = progress["missing"] = _count(progress, "missing") + 1
            if missing > self.not_found_checks:
                message = f"{self.name}: not found in {missing} checks in a row"
                return ProgressEvent.failed(_Code.NotStabilized, message)
            return self._next(progress, seen)
        progress["missing"] = 0
        if self.pending and state not in self.pending:
            expected = ", ".join(repr(s) for s in [*self.target, *self.pending])
            message = f"{self.name}: unexpected {seen} (expected {expected})"
            return ProgressEvent.failed(_Code.NotStabilized, message)
        return self._next(progress, seen)

    def _next(self, progress: _Progress, note: str) -> _Again:
        doublings = _count(progress, "backoff")
        if not _count(progress, "hits"):  # as Terraform: no doubling while it recurs
            doublings = progress["backoff"] = doublings + 1
        interval = _backoff(
            doublings, self.min_interval, self.max_interval, self.poll_interval
        )
        return _Again(interval, note)

    def wait_here(
        self,
        *,
        budget: Budget | None = None,
        clock: Clock | None = None,
        service: str | None = None,
    ) -> Any:
        """Wait in this invocation only: the last refresh result, or NotStabilized.

        For hooks (they have no timeoutInMinutes) and for code outside `Steps`.

            cluster = Waiter(status, target=["available"]).wait_here(budget=Budget(20))
        """
        return _in_process(self, budget, clock, service)


def _presence(describe: Callable[[], Any]) -> Refresh:
    def refresh() -> tuple[Any, str]:
        return describe(), "exists"

    return refresh


def retry_here(
    function: Callable[[], Any],
    retry: Retry | None = None,
    *,
    budget: Budget | None = None,
    clock: Clock | None = None,
    service: str | None = None,
) -> Any:
    """Call `function` until it succeeds, retrying as `retry` says, in this invocation.

    Returns its result; raises its last error once the retry timeout or the budget is
    used up. For hooks and for code outside `Steps`.

        role = retry_here(lambda: iam.get_role(RoleName=name), Retry(not_found=True))
    """
    step = Call("call", function, retry=retry or Retry())
    return _in_process(step, budget, clock, service)


Step = Union[Call, Waiter]


def _in_process(
    step: Step, budget: Budget | None, clock: Clock | None, service: str | None
) -> Any:
    clock = clock or (budget.clock if budget else Clock())
    budget = budget or Budget(clock=clock)
    progress: _Progress = {}
    while True:
        started = clock.monotonic()
        outcome = step.attempt(progress, clock, service)
        if isinstance(outcome, _Done):
            return outcome.result
        if isinstance(outcome, ProgressEvent):
            if outcome.status != OperationStatus.FAILED:
                return outcome
            raise exceptions.NotStabilized(outcome.message)
        if not budget.allows(outcome.wait, clock.monotonic() - started):
            if outcome.error is not None:
                raise outcome.error
            message = f"{step.name} did not finish in this invocation: {outcome.note}"
            raise exceptions.NotStabilized(message)
        clock.sleep(outcome.wait)
