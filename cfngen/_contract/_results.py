"""What running handlers produced, whatever the kind: an InvokeResult per `cfngen invoke`, a
TestResult per contract test and a SuiteResult per `cfngen test`, with their renderings."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from cfngen._contract._loop import Outcome
from cfngen._render import Paint, Style, plain

Status = Literal["passed", "failed", "skipped"]


class Failed(Exception):
    """A contract test found a violation (its message says which rule)."""


class Skipped(Exception):
    """A contract test does not apply (its message says why)."""


def run_test(name: str, body: Callable[[], None]) -> TestResult:
    """One contract test of any kind, timed: Failed and Skipped become its outcome."""
    started = time.perf_counter()
    outcome: Status = "passed"
    message: str | None = None
    try:
        body()
    except Failed as exc:
        outcome, message = "failed", str(exc)
    except Skipped as exc:
        outcome, message = "skipped", str(exc)
    return TestResult(name, outcome, message, time.perf_counter() - started)


_OUTCOME_STYLE: dict[str, Style] = {"passed": "ok", "failed": "error", "skipped": "warning"}


@dataclass
class InvokeResult:
    """`cfngen invoke`: one action carried to its end, and what the user should know."""

    outcome: Outcome
    #: The one line that says how it ended ("CREATE succeeded", "... FAILED NonCompliant").
    verdict: str
    succeeded: bool
    warnings: list[str] = field(default_factory=list)


@dataclass
class TestResult:
    __test__ = False  # not a pytest test class

    name: str
    outcome: Status
    message: str | None
    seconds: float

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "outcome": self.outcome,
            "message": self.message,
            "seconds": round(self.seconds, 3),
        }


@dataclass
class SuiteResult:
    """`cfngen test`: every test's result. With `needs_a_test`, a run in which every test was
    skipped fails: it proved nothing (a hook with no inputs)."""

    tests: list[TestResult] = field(default_factory=list)
    #: Things the user should know that are not test results (ignored files, unchecked rules).
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    needs_a_test: bool = False

    @property
    def ran(self) -> bool:
        return self.count("passed") + self.count("failed") > 0

    def count(self, outcome: Status) -> int:
        return sum(1 for test in self.tests if test.outcome == outcome)

    @property
    def ok(self) -> bool:
        return self.count("failed") == 0 and (self.ran or not self.needs_a_test)

    def as_json(self) -> dict[str, Any]:
        return {
            "tests": [test.as_json() for test in self.tests],
            "passed": self.count("passed"),
            "failed": self.count("failed"),
            "skipped": self.count("skipped"),
        }


def render_progress(result: TestResult, paint: Paint = plain) -> str:
    word = paint(result.outcome.upper().ljust(7), _OUTCOME_STYLE[result.outcome])
    reason = ""
    if result.outcome == "skipped" and result.message:
        reason = paint(f"  ({result.message})", "dim")
    return f"{word} {result.name} {paint(f'{result.seconds:.2f} s', 'dim')}{reason}\n"


def render_summary(result: SuiteResult, paint: Paint = plain) -> str:
    lines: list[str] = []
    failed = [test for test in result.tests if test.outcome == "failed"]
    for test in failed:
        lines.append(paint(f"FAILED {test.name}", "error"))
        lines.extend("  " + line for line in (test.message or "").splitlines())
        lines.append("")
    counts = ", ".join(
        f"{result.count(outcome)} {outcome}" for outcome in ("passed", "failed", "skipped")
    )
    style: Style = "error" if failed else "ok"
    lines.append(paint(f"{counts} in {result.seconds:.2f} s", style))
    return "\n".join(lines) + "\n"


def render_json(result: SuiteResult) -> str:
    return json.dumps(result.as_json(), indent=2) + "\n"
