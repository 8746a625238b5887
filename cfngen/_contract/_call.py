"""One call of a handler entrypoint, under a time limit, with its output captured.

The entrypoint runs in a worker thread so that a hung handler cannot hang cfngen: after its
limit the thread is asked to stop (and its process, a child per test, ends with it). A handler
that outlived its limit is not called again in the run: every later call would only wait again.
"""

from __future__ import annotations

import copy
import ctypes
import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cfngen._contract._capture import Sink, abandon, set_sink
from cfngen._contract._entrypoint import Entrypoint, HandlerCrash
from cfngen._render import Paint, Style, plain


@dataclass
class Invocation:
    """One call of the entrypoint, as the runner saw it."""

    #: What the call is shown as: "CREATE", "CREATE_PRE_PROVISION AWS::S3::Bucket".
    action: str
    number: int
    #: The event sent, without the caller's credentials.
    request: dict[str, Any]
    response: dict[str, Any] | None
    seconds: float
    limit: float
    output: list[str] = field(default_factory=list)
    crash: HandlerCrash | None = None
    timed_out: bool = False
    #: Set when the call was refused because an earlier call of its handler hung.
    not_called: str | None = None
    #: The response field holding the status ("status", "hookStatus").
    status_key: str = "status"
    #: Seconds of simulated time since the action's first call, when it was made.
    elapsed: float = 0.0

    @property
    def status(self) -> str | None:
        if self.response is None:
            return None
        status = self.response.get(self.status_key)
        return status if isinstance(status, str) else None

    def render(self, paint: Paint = plain) -> str:
        """The call as `cfngen invoke` prints it (a protocol whose calls show more, as a
        custom resource's made-up request and every response it PUT, overrides this)."""
        return render_invocation(self, paint)


class HandlerTimeout(BaseException):
    """Raised inside a handler thread that outlived its time limit (see _stop_thread)."""


def call_once(
    entrypoint: Entrypoint,
    event: dict[str, Any],
    *,
    label: str,
    handler: str,
    number: int,
    limit: float,
    context: Any = None,
    status_key: str = "status",
) -> tuple[Invocation, Any]:
    """Call the entrypoint once, in a worker thread, for at most `limit` seconds.

    `handler` names the handler the event goes to (an action, an invocation point). Returns
    the invocation (its `response` is the return value as JSON, or a FAILED InternalFailure
    when the entrypoint itself raised) and the raw return value.
    """
    shown = without_credentials(event)
    key = entrypoint.handler_key(handler)
    if key in entrypoint.hung:
        refused = Invocation(label, number, shown, None, 0.0, limit, status_key=status_key)
        refused.not_called = entrypoint.hung[key]
        return refused, None

    sink = Sink()
    box: dict[str, Any] = {}
    function = entrypoint.function

    def work() -> None:
        # HandlerTimeout may arrive anywhere in an abandoned thread: it must end it quietly.
        try:
            set_sink(sink)
            try:
                box["response"] = function(event, context)
            except HandlerTimeout:
                pass
            except BaseException as exc:  # the entrypoint itself failed: report, don't die
                box["error"] = exc
            finally:
                set_sink(None)
        except HandlerTimeout:
            pass

    worker = threading.Thread(target=work, name=f"cfngen-{handler.lower()}", daemon=True)
    started = time.perf_counter()
    worker.start()
    worker.join(limit)
    seconds = time.perf_counter() - started
    invocation = Invocation(
        label, number, shown, None, seconds, limit, sink.lines, status_key=status_key
    )
    if worker.is_alive():
        _stop_thread(worker)
        invocation.timed_out = True
        entrypoint.hung[key] = f"it outlived its {limit:g} s limit in an earlier call"
        return invocation, None
    if "error" in box:
        invocation.crash = entrypoint.crash(box["error"])
        invocation.response = {
            status_key: "FAILED",
            "errorCode": "InternalFailure",
            "message": f"the entrypoint raised {invocation.crash.headline}",
        }
    else:
        invocation.response = json_response(box.get("response"), status_key)
    if sink.crash is not None:
        invocation.crash = entrypoint.crash(sink.crash)
    return invocation, box.get("response")


def json_response(value: Any, status_key: str = "status") -> dict[str, Any] | None:
    """The entrypoint's answer as JSON data; anything else is reported as it is."""
    if isinstance(value, Mapping):
        try:
            loaded = json.loads(json.dumps(value, default=str))
        except (TypeError, ValueError):
            return {status_key: None, "message": f"not JSON: {value!r}"}
        return loaded if isinstance(loaded, dict) else None
    return {
        status_key: None,
        "message": f"the entrypoint returned {type(value).__name__}, not a dict",
    }


def without_credentials(event: Mapping[str, Any]) -> dict[str, Any]:
    """The event for people to read: requestData.callerCredentials redacted."""
    shown = copy.deepcopy(dict(event))
    request_data = shown.get("requestData")
    if isinstance(request_data, dict) and "callerCredentials" in request_data:
        request_data["callerCredentials"] = "<redacted>"
    return shown


def _stop_thread(thread: threading.Thread) -> None:
    """Ask a runaway handler thread to stop; Python offers no way to force it.

    The HandlerTimeout exception is raised in the thread at its next Python instruction, so a
    handler looping or polling stops at once; one blocked inside C code (a long socket read,
    time.sleep) stops when that call returns. Until then it is a daemon thread whose output is
    discarded and which dies with its process.
    """
    if thread.ident is None:
        return
    abandon(thread)
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread.ident), ctypes.py_object(HandlerTimeout)
    )


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
        lines.append(paint(f"  handler {invocation.crash.account}", "error"))
        lines.extend(invocation.crash.frames)
    if invocation.response is not None:
        text = json.dumps(invocation.response, indent=2, sort_keys=True, default=str)
        lines.extend("  " + line for line in text.splitlines())
    return "\n".join(lines) + "\n"
