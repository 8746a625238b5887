"""Text renderings of handler calls (`cfngen invoke` prints them as they happen)."""

from __future__ import annotations

import json

from cfngen._contract._call import Invocation
from cfngen._render import Paint, Style, plain

_STATUS_STYLE: dict[str, Style] = {"SUCCESS": "ok", "FAILED": "error", "IN_PROGRESS": "warning"}


def render_invocation(invocation: Invocation, paint: Paint = plain) -> str:
    """One handler call: header, the handler's own output, the crash, the progress event."""
    head = f"{invocation.action} #{invocation.number}"
    if invocation.not_called:
        return f"{paint(head, 'bold')}: not called: {invocation.not_called}\n"
    if invocation.timed_out:
        status = paint(f"no answer within {invocation.limit:g} s", "error")
    else:
        raw = invocation.status or f"no {invocation.status_key}"
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


def render_wait(seconds: float, asked: float, simulated: bool, paint: Paint = plain) -> str:
    if simulated:
        text = f"  re-invoking after callbackDelaySeconds {asked:g} (simulated time, not slept)"
    else:
        capped = "" if seconds >= asked else f", capped from callbackDelaySeconds {asked:g}"
        text = f"  re-invoking in {seconds:g} s{capped}"
    return paint(text, "dim") + "\n"
