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


def run_test(name: str, body: Callable[[], None], warnings: list[str] | None = None) -> TestResult:
    """One contract test of any kind, timed: Failed and Skipped become its outcome. `warnings`
    is the list the body fills with what CloudFormation accepts but the user should know: the
    result keeps it, whatever the outcome."""
    started = time.perf_counter()
    outcome: Status = "passed"
    message: str | None = None
    try:
        body()
    except Failed as exc:
        outcome, message = "failed", str(exc)
    except Skipped as exc:
        outcome, message = "skipped", str(exc)
    seconds = time.perf_counter() - started
    return TestResult(name, outcome, message, seconds, list(dict.fromkeys(warnings or [])))


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
    #: What the test saw that CloudFormation accepts but the user should know; a warning never
    #: fails a test.
    warnings: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "outcome": self.outcome,
            "message": self.message,
            "seconds": round(self.seconds, 3),
            "warnings": self.warnings,
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

    def warnings(self) -> dict[str, list[str]]:
        """Each warning once, with the tests that got it, in the order first seen."""
        found: dict[str, list[str]] = {}
        for test in self.tests:
            for warning in test.warnings:
                found.setdefault(warning, []).append(test.name)
        return found

    def as_json(self) -> dict[str, Any]:
        return {
            "tests": [test.as_json() for test in self.tests],
            "passed": self.count("passed"),
            "failed": self.count("failed"),
            "skipped": self.count("skipped"),
            "warnings": len(self.warnings()),
        }


def render_progress(result: TestResult, paint: Paint = plain) -> str:
    word = paint(result.outcome.upper().ljust(7), _OUTCOME_STYLE[result.outcome])
    reason = ""
    if result.outcome == "skipped" and result.message:
        reason = paint(f"  ({result.message})", "dim")
    elif result.warnings:
        count = len(result.warnings)
        reason = paint(f"  ({count} warning{'s' if count > 1 else ''}, below)", "warning")
    return f"{word} {result.name} {paint(f'{result.seconds:.2f} s', 'dim')}{reason}\n"


def render_summary(result: SuiteResult, paint: Paint = plain) -> str:
    lines: list[str] = []
    failed = [test for test in result.tests if test.outcome == "failed"]
    for test in failed:
        lines.append(paint(f"FAILED {test.name}", "error"))
        lines.extend("  " + line for line in (test.message or "").splitlines())
        lines.append("")
    warnings = result.warnings()
    for warning, tests in warnings.items():
        # Once, however many tests saw it: the cause is one.
        lines.append(paint("WARNING ", "warning") + warning)
        lines.append(paint(f"  in {', '.join(tests)}", "dim"))
    if warnings:
        lines.append("")
    counts = ", ".join(
        f"{result.count(outcome)} {outcome}" for outcome in ("passed", "failed", "skipped")
    )
    if warnings:
        counts += f" ({len(warnings)} warning{'s' if len(warnings) > 1 else ''})"
    style: Style = "error" if failed else "ok"
    lines.append(paint(f"{counts} in {result.seconds:.2f} s", style))
    return "\n".join(lines) + "\n"


def render_json(result: SuiteResult) -> str:
    return json.dumps(result.as_json(), indent=2) + "\n"
