"""Time for a re-invocation loop: simulated against moto, real against AWS (issue 13, item 3).

The contract runner's loop (cfngen/_contract/_loop.py) uses all three.

- `CallbackClock`: between two calls of an IN_PROGRESS handler CloudFormation waits
  `callbackDelaySeconds`. Against moto nothing is gained by waiting, so the wall clock moves
  instead: time-machine shifts `time.time()` and `datetime.now()` in every thread (moto's
  time-based state transitions and the handlers' deadlines follow), while `time.monotonic()`
  and `time.sleep()` stay real, and so do the per-call 60/30 s limits. With `--profile`
  (real AWS) time is real: the wait is slept, capped at `max_delay`.
- `LambdaContext`: the context the entrypoint gets; its remaining time follows that clock.
- `LoopGuard`: when a loop of IN_PROGRESS answers must stop, and the rule that says so:
  past the handler's `timeoutInMinutes` in (simulated) time, `max_reinvoke` IN_PROGRESS answers
  in a row without a delay, or `max_invocations` calls of one action in all.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

#: IN_PROGRESS answers in a row without a callbackDelaySeconds (`--max-reinvoke`).
DEFAULT_MAX_REINVOKE = 100
#: Calls of one action in all, whatever their delays: a 36-hour timeout with 1-second delays
#: would otherwise take minutes even in simulated time.
DEFAULT_MAX_INVOCATIONS = 1000


class CallbackClock:
    """The wall clock of a re-invocation loop; use it as a context manager around the loop."""

    def __init__(
        self,
        *,
        simulated: bool,
        max_delay: float = 5.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.simulated = simulated
        self.max_delay = max_delay
        self._sleep = sleep
        self._traveller: Any = None
        self._travel: Any = None

    def __enter__(self) -> CallbackClock:
        if self.simulated:
            time_machine = _time_machine()
            # tick=True: time goes on while handlers run, as it does in Lambda
            self._travel = time_machine.travel(time.time(), tick=True)
            self._traveller = self._travel.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._travel is not None:
            self._travel.stop()
            self._travel = self._traveller = None

    def now(self) -> float:
        return time.time()

    def wait(self, seconds: float) -> float:
        """CloudFormation's callback delay; the real seconds it took."""
        if seconds <= 0:
            return 0.0
        if self._traveller is not None:
            self._traveller.shift(seconds)
            return 0.0
        real = min(seconds, max(self.max_delay, 0.0))
        if real > 0:
            self._sleep(real)
        return real


class LambdaContext:
    """What a Lambda function gets as its context, with `limit` seconds to run from now."""

    function_name = "cfngen-local"
    memory_limit_in_mb = 256

    def __init__(self, limit: float, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._end = clock() + limit

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._end - self._clock()) * 1000))


@dataclass
class LoopGuard:
    """Counts the answers of one action's calls and says when the loop must stop."""

    action: str
    #: The handler's timeoutInMinutes (None: the action never waits, as read and list).
    timeout_minutes: float | None
    started: float
    max_reinvoke: int = DEFAULT_MAX_REINVOKE
    max_invocations: int = DEFAULT_MAX_INVOCATIONS
    calls: int = field(default=0, init=False)
    undelayed: int = field(default=0, init=False)
    #: Which guard stopped the loop: "timeout", "reinvoke" or "invocations" (None: none yet).
    stopped_by: str | None = field(default=None, init=False)

    def after(self, response: Mapping[str, Any], now: float) -> str | None:
        """Call after every IN_PROGRESS answer, at (simulated) time `now`: None to call again
        after its delay, else why the loop stops."""
        self.calls += 1
        delay = response.get("callbackDelaySeconds") or 0
        delay = float(delay) if isinstance(delay, (int, float)) else 0.0
        self.undelayed = self.undelayed + 1 if delay <= 0 else 0
        if self.timeout_minutes is not None:
            elapsed = now - self.started
            if elapsed + delay > self.timeout_minutes * 60:
                self.stopped_by = "timeout"
                return (
                    f"{self.action} was still IN_PROGRESS {_duration(elapsed)} after it "
                    f"started and asked to be called again after {delay:g} s, past its "
                    f"timeoutInMinutes ({self.timeout_minutes:g}): by then a handler must answer "
                    "FAILED with NotStabilized"
                )
        if self.undelayed > self.max_reinvoke:
            self.stopped_by = "reinvoke"
            return (
                f"{self.action} answered IN_PROGRESS {self.undelayed} times in a row without a "
                f"callbackDelaySeconds (at most {self.max_reinvoke}, --max-reinvoke)"
            )
        if self.calls >= self.max_invocations:
            self.stopped_by = "invocations"
            return (
                f"{self.action} was called {self.calls} times without finishing (at most "
                f"{self.max_invocations} calls per action, --max-invocations)"
            )
        return None


def _duration(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def _time_machine() -> Any:
    """time_machine, imported without pytest when no pytest runs: it imports pytest (and
    pluggy, pygments: 56 ms of a 1.5 s `cfngen test`) only to define a fixture cfngen never
    uses. A None in sys.modules makes that one import fail as if pytest were not installed."""
    import sys

    if "time_machine" in sys.modules or "pytest" in sys.modules:
        import time_machine

        return time_machine
    sys.modules["pytest"] = None  # type: ignore[assignment]
    try:
        import time_machine
    finally:
        if sys.modules.get("pytest", 0) is None:
            del sys.modules["pytest"]
    return time_machine
