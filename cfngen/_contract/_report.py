"""The wait between handler calls, as `cfngen invoke` prints it (each call renders itself:
`Invocation.render`)."""

from __future__ import annotations

from cfngen._render import Paint, plain


def render_wait(seconds: float, asked: float, simulated: bool, paint: Paint = plain) -> str:
    if simulated:
        text = f"  re-invoking after callbackDelaySeconds {asked:g} (simulated time, not slept)"
    else:
        capped = "" if seconds >= asked else f", capped from callbackDelaySeconds {asked:g}"
        text = f"  re-invoking in {seconds:g} s{capped}"
    return paint(text, "dim") + "\n"
