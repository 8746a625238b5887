"""What running handlers produced, whatever the kind: an InvokeResult per `cfngen invoke`, a
TestResult per contract test and a SuiteResult per `cfngen test`, with their renderings."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from cfngen._contract._call import Invocation
from cfngen._contract._calls import in_test
from cfngen._contract._entrypoint import HandlerCrash
from cfngen._contract._loop import Outcome
from cfngen._render import Paint, Style, plain

if TYPE_CHECKING:
    from cfngen._contract._target import Target

Status = Literal["passed", "failed", "skipped"]


class Failed(Exception):
    """A contract test found a violation (its message says which rule)."""


class Skipped(Exception):
    """A contract test does not apply (its message says why)."""


#: One list per contract test running (`run_test`): the handler crashes its failure
#: messages show (`report_crash`).
_reported: list[list[HandlerCrash]] = []


def report_crash(crash: HandlerCrash) -> None:
    """Note that the failure message being written shows `crash`: the test's cause, which
    `cfngen test` prints once for every test it failed, and where CI formats point."""
    if _reported:
        _reported[-1].append(crash)


def run_test(name: str, body: Callable[[], None], warnings: list[str] | None = None) -> TestResult:
    """One contract test of any kind, timed: Failed and Skipped become its outcome. `warnings`
    is the list the body fills with what CloudFormation accepts but the user should know: the
    result keeps it, whatever the outcome."""
    started = time.perf_counter()
    outcome: Status = "passed"
    message: str | None = None
    reported: list[HandlerCrash] = []
    _reported.append(reported)
    try:
        with in_test(name):
            body()
    except Failed as exc:
        outcome, message = "failed", str(exc)
    except Skipped as exc:
        outcome, message = "skipped", str(exc)
    finally:
        _reported.remove(reported)
    result = TestResult(name, outcome, message, time.perf_counter() - started)
    result.warnings = list(dict.fromkeys(warnings or []))
    if outcome == "failed" and reported:
        result.cause, result.location = reported[-1].cause, reported[-1].location
    return result


_OUTCOME_STYLE: dict[str, Style] = {"passed": "ok", "failed": "error", "skipped": "warning"}


@dataclass
class InvokeResult:
    """`cfngen invoke`: one action carried to its end, and what the user should know."""

    outcome: Outcome
    #: The one line that says how it ended ("CREATE succeeded", "... FAILED NonCompliant").
    verdict: str
    succeeded: bool
    warnings: list[str] = field(default_factory=list)
    #: Each run's own result when the request file held several (a hook's inputs file maps
    #: several targets); `outcome` is then the last one's.
    parts: list[InvokeResult] = field(default_factory=list)

    @classmethod
    def of_several(cls, parts: list[InvokeResult], warnings: list[str]) -> InvokeResult:
        failed = [part for part in parts if not part.succeeded]
        verdict = "; ".join(part.verdict for part in parts)
        return cls(parts[-1].outcome, verdict, not failed, warnings, parts)

    @property
    def verdicts(self) -> list[tuple[str, bool]]:
        """Each run's verdict line and whether it succeeded."""
        runs = self.parts or [self]
        return [(run.verdict, run.succeeded) for run in runs]

    def as_json(self) -> dict[str, Any]:
        """`cfngen invoke --format json`: the final response as a JSON object, every call, and
        the verdict; with several runs, each under `runs`."""
        if self.parts:
            return {
                "succeeded": self.succeeded,
                "runs": [part.as_json() for part in self.parts],
                "warnings": self.warnings,
            }
        outcome = self.outcome
        return {
            "action": outcome.action,
            "succeeded": self.succeeded,
            "verdict": self.verdict,
            "response": outcome.response if outcome.invocations else None,
            "invocations": [_invocation_json(call) for call in outcome.invocations],
            "warnings": self.warnings,
        }


def _invocation_json(call: Invocation) -> dict[str, Any]:
    crash = call.crash
    return {
        "number": call.number,
        "status": call.status,
        "seconds": round(call.seconds, 3),
        "timed_out": call.timed_out,
        "not_called": call.not_called,
        "response": call.response,
        "output": call.output,
        "crash": None if crash is None else {"error": crash.headline, "frames": crash.frames},
    }


@dataclass
class TestResult:
    __test__ = False  # not a pytest test class

    name: str
    outcome: Status
    message: str | None
    seconds: float
    #: A failure's cause in one line when a handler crash caused it (tests with the same
    #: cause are told once), and where it happened: path relative to the project, line.
    cause: str | None = None
    location: tuple[str, int] | None = None
    #: What the test saw that CloudFormation accepts but the user should know; a warning never
    #: fails a test.
    warnings: list[str] = field(default_factory=list)
    #: Properties that differed from the input until a propertyTransform alternative put
    #: them in sync, one object each (action, pointer, key, alternative, expression, scope,
    #: result, by: "equal" or "pattern").
    transforms: list[dict[str, Any]] = field(default_factory=list)
    #: The stable code of the failure (`cfngen/permission-missing`), where the test gives one.
    code: str | None = None
    #: The stable code of each warning that has one, keyed by the warning.
    warning_codes: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "outcome": self.outcome,
            "message": self.message,
            "code": self.code,
            "seconds": round(self.seconds, 3),
            "warnings": self.warnings,
            "transforms": self.transforms,
            "warning_codes": self.warning_codes,
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
    #: IAM actions handlers called that no handler declares: the schema file (relative to the
    #: project) -> the pointer of a handler's permissions -> the actions to add there
    #: (`cfngen test --fix-permissions`).
    missing_permissions: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    #: Where the handlers' AWS calls went (None: no handler was imported).
    target: Target | None = None

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
            "target": None if self.target is None else self.target.as_json(),
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


def render_transforms(result: TestResult, paint: Paint = plain) -> str:
    """`cfngen test -v`: under a test's line, each property a transform put in sync."""
    lines = []
    for note in result.transforms:
        how = "equal" if note["by"] == "equal" else "matches it as a pattern"
        lines.append(
            paint(
                f"        IN_SYNC {note['action']} {note['pointer']}: alternative "
                f"{note['alternative']} of propertyTransform {note['key']} "
                f"({note['expression']}) on the {note['scope']} gives "
                f"{json.dumps(note['result'])}, {how}",
                "dim",
            )
        )
    return "".join(line + "\n" for line in lines)


def render_summary(result: SuiteResult, paint: Paint = plain) -> str:
    lines: list[str] = []
    failed = [test for test in result.tests if test.outcome == "failed"]
    # One cause, told once: a create that crashes fails most tests with the same block.
    told: dict[str, TestResult] = {}
    for test in failed:
        lines.append(paint(f"FAILED {test.name}", "error"))
        message = (test.message or "").splitlines()
        first = told.get(test.cause or "") or told.get(test.message or "")
        if first is None:
            lines.extend("  " + line for line in message)
            for key in (test.cause, test.message):
                if key:
                    told.setdefault(key, test)
        elif first.message == test.message:
            lines.append(f"  {message[0]}" if message else "")
            lines.append(paint(f"  same failure as {first.name} (above)", "dim"))
        else:
            lines.extend(f"  {line}" for line in message[:1])
            lines.append(paint(f"  same cause as {first.name}: the handler {test.cause}", "dim"))
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
