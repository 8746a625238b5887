"""Text for `cfngen invoke` on a hook: each call as it happens, then one verdict line."""

from __future__ import annotations

import json

from cfngen._kinds.hook._protocol import Answer, Run
from cfngen._render import Paint, Style, plain

_STYLE: dict[str, Style] = {"SUCCESS": "ok", "FAILED": "error", "IN_PROGRESS": "warning"}


def render_answer(answer: Answer, number: int, paint: Paint = plain) -> str:
    point = str(answer.event.get("actionInvocationPoint"))
    target = str((answer.event.get("requestData") or {}).get("targetName"))
    head = paint(f"{point} {target} #{number}", "bold")
    if answer.not_called:
        return f"{head}: not called: {answer.not_called}\n"
    if answer.timed_out:
        status = paint(f"no answer within {answer.limit:g} s", "error")
    else:
        raw = answer.status or "no hookStatus"
        status = paint(raw, _STYLE.get(raw, "error"))
    lines = [f"{head} -> {status} ({answer.seconds:.2f} s)"]
    lines.extend(f"  | {line}" for line in answer.output)
    if answer.crash is not None:
        lines.append(paint(f"  handler raised {answer.crash.headline}", "error"))
        lines.extend(answer.crash.frames)
    if answer.response is not None:
        text = json.dumps(answer.response, indent=2, sort_keys=True, default=str)
        lines.extend("  " + line for line in text.splitlines())
    return "\n".join(lines) + "\n"


def render_verdict(run: Run) -> str:
    what = f"{run.point} {run.target.name}"
    if run.guard is not None:
        return f"{what} did not finish: {run.guard}"
    if run.status == "SUCCESS":
        return f"{what}: SUCCESS (compliant)"
    if run.status == "FAILED":
        code = run.error_code or "no errorCode"
        message = run.message
        return f"{what}: FAILED {code}" + (f": {message}" if message else "")
    return f"{what} answered {run.status!r}"
