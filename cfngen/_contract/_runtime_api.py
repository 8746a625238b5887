"""A local Lambda runtime for handlers that run out of process: the Lambda Runtime API on
loopback, and the one runtime process of a run that speaks it.

Lambda starts a runtime once per container; the runtime asks `GET
/2018-06-01/runtime/invocation/next` for an event, runs the handler and posts
`/invocation/{id}/response` or `/invocation/{id}/error` (`/init/error` when the handler does
not load). This module serves those routes on 127.0.0.1 and starts the runtime a language
names (`cfngen._languages.Launch`: cfngen's Node harness, later a Go `bootstrap` as it is),
once per run. The Runtime API rather than a private pipe protocol: it costs the same, and it
is the one every Lambda runtime already speaks.

The runner's worker processes are forks of this one; they hand an event in through a second
loopback route (`POST /invoke` of the control server) and wait for the answer. Everything
else stays here, in the process that started the runtime: the queue (one invocation at a
time, as in one Lambda container), the output the runtime prints (each invocation gets the
lines printed while it ran), and the time limit: an invocation past its limit gets the
runtime killed, and the next one starts a new runtime, as Lambda replaces a container that
timed out. A runtime listens on a server of its own, so a killed one can never take an event
meant for the next.
"""

from __future__ import annotations

import collections
import contextlib
import os
import select
import signal
import subprocess
import threading
import time
import uuid
from typing import Any

from cfngen._contract._observed import listening
from cfngen._contract._runtime_routes import Server, control_routes, runtime_routes
from cfngen._errors import CfngenError, ExitCode
from cfngen._languages import Launch

#: Seconds past an invocation's limit before its runtime is killed: the worker gives up at the
#: limit itself, and its next call must not find the old runtime still busy.
GRACE = 0.5
#: Seconds a runtime may take to load the handler module and ask for its first event.
START_LIMIT = 60.0


class _Pending:
    def __init__(self, event: bytes, limit: float) -> None:
        self.id = str(uuid.uuid4())
        self.event = event
        self.limit = limit
        self.runtime: _Runtime | None = None
        self.handed = 0.0
        self.output_from = 0
        self.done = threading.Event()
        self.result: dict[str, Any] = {}
        #: The AWS calls the endpoint saw while it ran (_observed.py).
        self.calls: list[tuple[str, str]] = []


class _Runtime:
    """One runtime process, with the Runtime API server only it talks to."""

    def __init__(self, api: RuntimeApi) -> None:
        self.api = api
        self.server = Server(("127.0.0.1", 0), runtime_routes(api, self))
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        self.lines: list[str] = []
        self._partial = b""
        self._lock = threading.Lock()
        self.ready = threading.Event()
        self.init_error: dict[str, Any] | None = None
        self.handed: dict[str, _Pending] = {}
        port = self.server.server_address[1]
        env = {**api.env, "AWS_LAMBDA_RUNTIME_API": f"127.0.0.1:{port}"}
        main = threading.current_thread() is threading.main_thread()
        self.process = subprocess.Popen(
            api.launch.argv,
            cwd=api.launch.cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            close_fds=True,
            # Dies with cfngen, even on SIGKILL (prctl fires when the starting thread ends,
            # so only from the main thread; a runtime started later exits on its own when
            # the Runtime API goes away).
            preexec_fn=_die_with_parent if main else None,  # noqa: PLW1509
        )
        assert self.process.stdout is not None
        self._fd = self.process.stdout.fileno()
        os.set_blocking(self._fd, False)
        threading.Thread(target=self._read_output, daemon=True).start()

    def _read_output(self) -> None:
        while True:
            with contextlib.suppress(OSError, ValueError):
                select.select([self._fd], [], [], 0.1)
            with self._lock:
                if not self._drain():
                    return

    def _drain(self) -> bool:
        """Read what the runtime printed so far (lock held); False at its end."""
        while True:
            try:
                chunk = os.read(self._fd, 65536)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not chunk:
                if self._partial:
                    self.lines.append(self._partial.decode("utf-8", "replace"))
                    self._partial = b""
                return False
            *whole, self._partial = (self._partial + chunk).split(b"\n")
            self.lines.extend(line.decode("utf-8", "replace") for line in whole)

    def output(self) -> list[str]:
        """Every line printed so far, up to this moment (what a runtime writes before it posts
        an answer is in the pipe by then: its writes to a pipe are synchronous)."""
        with self._lock:
            self._drain()
            return list(self.lines)

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def how_it_ended(self) -> str:
        code = self.process.poll()
        if code is None:
            return "it is still running"
        if code < 0:
            with contextlib.suppress(ValueError):
                return f"killed by {signal.Signals(-code).name}"
        return f"exit code {code}"

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
        self.server.shutdown()
        self.server.server_close()
        with contextlib.suppress(OSError):
            self.process.stdout.close()  # type: ignore[union-attr]


class RuntimeApi:
    """The runtime of one run, reached by worker processes at `url` (`invoke`)."""

    def __init__(self, launch: Launch, env: dict[str, str]) -> None:
        self.launch = launch
        self.env = env
        self.owner = os.getpid()
        self.cond = threading.Condition()
        self.queue: collections.deque[_Pending] = collections.deque()
        self.runtime: _Runtime | None = None
        self.starts = 0
        self.control = Server(("127.0.0.1", 0), control_routes(self))
        threading.Thread(target=self.control.serve_forever, args=(0.05,), daemon=True).start()
        self.url = f"http://127.0.0.1:{self.control.server_address[1]}/invoke"
        self._listening = contextlib.ExitStack()
        self._listening.enter_context(listening(self._observed))

    def _observed(self, service: str, operation: str) -> None:
        """A call the moto server saw: the running invocation's (one runs at a time)."""
        with self.cond:
            runtime = self.runtime
            for pending in list(runtime.handed.values()) if runtime is not None else ():
                pending.calls.append((service, operation))

    def start(self) -> list[str]:
        """Start the runtime and wait until it asks for its first event; what it printed
        while it loaded the handler. A CfngenError (exit 1) when the handler does not load."""
        with self.cond:
            runtime = self._running()
        deadline = time.monotonic() + START_LIMIT
        while not runtime.ready.wait(0.02):
            if runtime.init_error is not None or not runtime.alive:
                break
            if time.monotonic() > deadline:
                runtime.stop()
                raise CfngenError(
                    f"the runtime did not ask for an event within {START_LIMIT:g} s of starting "
                    f"({self.launch.handler})",
                    "run the built handler with node yourself to see where it stops",
                )
        if runtime.ready.is_set():
            return runtime.output()
        time.sleep(0.05)  # its last words, printed as it exited
        output = runtime.output()
        error = runtime.init_error or {}
        message = error.get("errorMessage") or f"the runtime ended ({runtime.how_it_ended()})"
        detail = [f"  | {line}" for line in output[-20:]]
        raise CfngenError(
            "\n".join(
                [f"loading {self.launch.handler} failed: {error.get('errorType', '')}: {message}"]
                + [f"  {line}" for line in error.get("stackTrace", [])[:8]]
                + detail
            ),
            "fix the error in the handler module and build it again",
            exit_code=ExitCode.FAILED,
        )

    def _running(self) -> _Runtime:
        """The runtime, started anew when there is none or it ended (lock held)."""
        if self.runtime is None or not self.runtime.alive:
            if self.runtime is not None:
                self.runtime.stop()
            self.runtime = _Runtime(self)
            self.starts += 1
        return self.runtime

    def invoke(self, event: bytes, limit: float) -> dict[str, Any]:
        """Run one event (in this process, for a worker's `POST /invoke`): the handler's
        `response`, or its `error`, or `timed_out`, or `ended` (how the runtime ended), with
        the `output` it printed meanwhile."""
        pending = _Pending(event, limit)
        with self.cond:
            self._running()
            self.queue.append(pending)
            self.cond.notify_all()
        queued = time.monotonic()
        while not pending.done.wait(0.02):
            with self.cond:
                runtime = pending.runtime
                if runtime is None:
                    current = self.runtime
                    if current is not None and current.init_error is not None:
                        # A new runtime could not load the handler (rebuilt broken meanwhile).
                        error = current.init_error.get("errorMessage", "")
                        self.queue.remove(pending)
                        self._finish(pending, ended=f"the handler no longer loads: {error}")
                    elif time.monotonic() > queued + limit + START_LIMIT:
                        self.queue.remove(pending)
                        self._finish(pending, timed_out=True)
                    elif current is None or not current.alive:
                        self._running()  # the one it was queued for ended: a new container
                    continue
                if not runtime.alive:
                    self._finish(pending, ended=runtime.how_it_ended())
                elif time.monotonic() > pending.handed + limit + GRACE:
                    runtime.stop()
                    self._finish(pending, timed_out=True)
        return pending.result

    def _finish(self, pending: _Pending, **result: Any) -> None:
        """Answer `pending` with `result` and what its runtime printed while it ran."""
        if pending.done.is_set():
            return
        runtime = pending.runtime
        if runtime is not None:
            runtime.handed.pop(pending.id, None)
            result["output"] = runtime.output()[pending.output_from :]
        result["calls"] = pending.calls
        pending.result = result
        pending.done.set()

    def next_event(self, runtime: _Runtime) -> _Pending | None:
        """The next event for `runtime` (its `GET /next`), waiting for one; None when the
        runtime was replaced or stopped meanwhile."""
        runtime.ready.set()
        with self.cond:
            while not self.queue:
                if self.runtime is not runtime or not runtime.alive:
                    return None
                self.cond.wait(0.5)
            if self.runtime is not runtime:
                return None
            pending = self.queue.popleft()
            pending.runtime = runtime
            pending.handed = time.monotonic()
            pending.output_from = len(runtime.output())
            runtime.handed[pending.id] = pending
            return pending

    def answered(self, runtime: _Runtime, request_id: str, **result: Any) -> bool:
        with self.cond:
            pending = runtime.handed.get(request_id)
            if pending is None:
                return False
            self._finish(pending, **result)
            return True

    def close(self) -> None:
        """Stop the runtime and both servers (only in the process that started them)."""
        if os.getpid() != self.owner:
            return
        with self.cond:
            runtime, self.runtime = self.runtime, None
            self.cond.notify_all()
        if runtime is not None:
            runtime.stop()
        self.control.shutdown()
        self.control.server_close()
        self._listening.close()


def _die_with_parent() -> None:
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
