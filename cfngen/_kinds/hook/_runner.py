"""A hook project's entrypoint, imported into this process and called like Lambda calls it.

`HookRunner.call(event)` is the `call` collaborator of `_protocol.carry`: it runs the
entrypoint (`pkg.handlers.hook`, the library's Hook or a subclass such as cfn-guard-rs-hook's
GuardHook) in a worker thread for at most the time limit, and returns what happened: the
answer, the handler's own output, the exception that escaped a handler function with its
frames in the project's files. A handler that outlived its limit is not called again in the
run: every later call of it would only wait as long again.

It builds on the resource runner's import, crash recording and thread stopping
(cfngen/_contract/_handlers.py) until the contract runner knows no protocol (seam stage 3).
"""

from __future__ import annotations

import contextlib
import inspect
import threading
import time
from collections.abc import Iterator
from typing import Any

from cfngen._contract._capture import Sink, set_sink
from cfngen._contract._handlers import (
    Handlers,
    HandlerTimeout,
    _json_response,
    _stop_thread,
)
from cfngen._contract._sandbox import Sandbox
from cfngen._kinds.hook._protocol import Answer, Crash
from cfngen._project import Project

#: The official tool's limit for one hook invocation (HookClient's timeout_in_seconds, 60 s);
#: the hooks user guide gives no shorter one.
DEFAULT_LIMIT = 60.0


class HookRunner(Handlers):
    """The project's hook entrypoint, imported once, called inside a Sandbox."""

    def __init__(self, project: Project, sandbox: Sandbox, *, limit: float = DEFAULT_LIMIT):
        super().__init__(project, sandbox)
        self.limit = limit
        self._stalled: dict[int, str] = {}

    @property
    def hook(self) -> Any:
        return self._entrypoint

    def _handler_key(self, point: str) -> int | None:
        """Which handler function a point runs (one function may serve every point)."""
        handlers = getattr(self._entrypoint, "_handlers", None)
        if not isinstance(handlers, dict):
            return None
        for key, function in handlers.items():
            if str(getattr(key, "value", key)) == point:
                return id(inspect.unwrap(function))
        return None

    def call(self, event: dict[str, Any]) -> Answer:
        from cfngen._kinds.hook._protocol import shown

        point = str(event.get("actionInvocationPoint"))
        key = self._handler_key(point)
        if key is not None and key in self._stalled:
            return Answer(shown(event), None, limit=self.limit, not_called=self._stalled[key])
        sink = Sink()
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                set_sink(sink)
                try:
                    box["response"] = self._entrypoint(event, None)
                except HandlerTimeout:
                    pass
                except BaseException as exc:  # the entrypoint itself failed: report it
                    box["error"] = exc
                finally:
                    set_sink(None)
            except HandlerTimeout:
                pass

        worker = threading.Thread(target=work, name=f"cfngen-{point.lower()}", daemon=True)
        started = time.perf_counter()
        worker.start()
        worker.join(self.limit)
        seconds = time.perf_counter() - started
        answer = Answer(shown(event), None, seconds, self.limit, sink.lines)
        if worker.is_alive():
            _stop_thread(worker)
            answer.timed_out = True
            if key is not None:
                self._stalled[key] = (
                    f"its handler outlived its {self.limit:g} s limit in an earlier call"
                )
            return answer
        if "error" in box:
            answer.crash = self.crash(box["error"])
            answer.response = {
                "hookStatus": "FAILED",
                "errorCode": "InternalFailure",
                "message": f"the entrypoint raised {answer.crash.headline}",
            }
        else:
            answer.response = _json_response(box.get("response"))
        if sink.crash is not None:
            answer.crash = self.crash(sink.crash)
        return answer

    def crash(self, exc: BaseException) -> Crash:
        found = self._crash(exc)
        return Crash(found.type, found.message, found.frames)


@contextlib.contextmanager
def one_session_per_credentials() -> Iterator[None]:
    """The hook entrypoint builds a boto3 session for every call (~25 ms, most of a test run);
    offline the credentials never change, so one session per set of them is the same to a
    handler (the resource runner does the same for Resource)."""
    import cloudformation_cli_python_lib.hook as lib_hook

    namespace = vars(lib_hook)
    original = namespace["_get_boto_session"]
    sessions: dict[tuple[Any, ...], Any] = {}

    def get_session(credentials: Any, region: str | None = None) -> Any:
        if credentials is None:
            return None
        key = (
            credentials.accessKeyId,
            credentials.secretAccessKey,
            credentials.sessionToken,
            region,
        )
        if key not in sessions:
            sessions[key] = original(credentials, region)
        return sessions[key]

    namespace["_get_boto_session"] = get_session
    try:
        yield
    finally:
        namespace["_get_boto_session"] = original
