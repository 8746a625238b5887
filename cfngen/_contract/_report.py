"""Text and JSON renderings of handler calls and contract test results (the CLI prints them)."""

from __future__ import annotations

import json
from collections.abc import Callable

from cfngen._contract._handlers import Invocation, Outcome
from cfngen._contract._suite import SuiteResult, TestResult

Paint = Callable[[str, str], str]


def _plain(text: str, _style: str) -> str:
    return text


_STATUS_STYLE = {"SUCCESS": "ok", "FAILED": "error", "IN_PROGRESS": "warning"}
_OUTCOME_STYLE = {"passed": "ok", "failed": "error", "skipped": "warning"}


def render_invocation(invocation: Invocation, paint: Paint = _plain) -> str:
    """One handler call: header, the handler's own output, the crash, the progress event."""
    head = f"{invocation.action} #{invocation.number}"
    if invocation.not_called:
        return f"{paint(head, 'bold')}: not called: {invocation.not_called}\n"
    if invocation.timed_out:
        status = paint(f"no answer within {invocation.limit:g} s", "error")
    else:
        raw = invocation.status or "no status"
        status = paint(raw, _STATUS_STYLE.get(raw, "error"))
    lines = [f"{paint(head, 'bold')} -> {status} ({invocation.seconds:.2f} s)"]
    lines.extend(f"  | {line}" for line in invocation.output)
    if invocation.crash is not None:
        lines.append(paint(f"  handler raised {invocation.crash.headline}", "error"))
        lines.extend(invocation.crash.frames)
    if invocation.response is not None:
        text = json.dumps(invocation.response, indent=2, sort_keys=True, default=str)
        lines.extend("  " + line for line in text.splitlines())
    return "\n".join(lines) + "\n"


def render_wait(seconds: float, asked: float, paint: Paint = _plain) -> str:
    capped = "" if seconds >= asked else f", capped from callbackDelaySeconds {asked:g}"
    return paint(f"  re-invoking in {seconds:g} s{capped}", "dim") + "\n"


def render_outcome(outcome: Outcome) -> str:
    """The verdict line of `cfngen invoke`."""
    action = outcome.action
    if outcome.guard is not None:
        return f"{action} did not finish: {outcome.guard}"
    response = outcome.response
    if outcome.status == "SUCCESS":
        return f"{action} succeeded"
    if outcome.status == "FAILED":
        code = response.get("errorCode") or "no errorCode"
        message = response.get("message")
        return f"{action} failed: {code}" + (f": {message}" if message else "")
    return f"{action} returned {outcome.status!r}"


def render_progress(result: TestResult, paint: Paint = _plain) -> str:
    word = paint(result.outcome.upper().ljust(7), _OUTCOME_STYLE[result.outcome])
    reason = ""
    if result.outcome == "skipped" and result.message:
        reason = paint(f"  ({result.message})", "dim")
    return f"{word} {result.name} {paint(f'{result.seconds:.2f} s', 'dim')}{reason}\n"


def render_summary(result: SuiteResult, paint: Paint = _plain) -> str:
    lines: list[str] = []
    failed = [test for test in result.tests if test.outcome == "failed"]
    for test in failed:
        lines.append(paint(f"FAILED {test.name}", "error"))
        lines.extend("  " + line for line in (test.message or "").splitlines())
        lines.append("")
    counts = ", ".join(
        f"{result.count(outcome)} {outcome}" for outcome in ("passed", "failed", "skipped")
    )
    style = "error" if failed else "ok"
    lines.append(paint(f"{counts} in {result.seconds:.2f} s", style))
    return "\n".join(lines) + "\n"


def render_json(result: SuiteResult) -> str:
    return json.dumps(result.as_json(), indent=2) + "\n"
