"""Run one unit of handler work (a contract test, one invoked action) in a child process.

`os._exit` in a handler, a segfault in a native extension, a handler thread that never stops:
each ends the child, never cfngen. The child is a `fork` of the process that imported the
handlers inside the sandbox, so it starts with the module imported and never called and moto's
accounts empty, as a fresh Lambda container: nothing leaks from one test into the next. What
the child reports (messages while it works, then its result or the exception it raised) comes
back pickled through a pipe; when it ends without a result, `ChildExit` says how it ended. The
child dies with this process, even one killed by SIGKILL (cfngen/_lifetime.py).

Without `os.fork` (Windows) the work runs in this process instead.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import pickle
import signal
import struct
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from cfngen import _lifetime

T = TypeVar("T")
Send = Callable[[Any], None]


class ChildExit(Exception):
    """The child process ended before it reported a result."""

    def __init__(self, how: str) -> None:
        super().__init__(how)
        self.how = how


def can_fork() -> bool:
    return hasattr(os, "fork")


def isolated(work: Callable[[Send], T], on_message: Send, *, graceful: float | None = None) -> T:
    """`work(send)` in a child process; `send(obj)` there calls `on_message(obj)` here.

    Returns what `work` returned, raises what it raised (its class and message; not its
    traceback), or ChildExit when the child ended without saying either.

    With `graceful` (seconds), the child is cfngen's own code that cleans up after itself (a
    watch session's test run, which makes a sandbox and workers): Ctrl-C, SIGTERM and SIGHUP
    end it as they end cfngen, by KeyboardInterrupt, and when this process is interrupted the
    child gets SIGTERM and that long to finish before SIGKILL.
    """
    if not can_fork():
        return work(on_message)
    return start(work, graceful=graceful).result(on_message)


class Child(Generic[T]):
    """A child `start` forked: `result` waits for what its work returned, `end` ends it."""

    def __init__(self, pid: int, read_fd: int, graceful: float | None) -> None:
        self.pid = pid
        self._read_fd = read_fd
        self._graceful = graceful
        self._done = False

    def result(self, on_message: Send) -> T:
        """As `isolated` returns or raises, once the child is done."""
        self._done = True
        try:
            outcome = _receive(self._read_fd, on_message)
        except BaseException:  # Ctrl-C, or on_message failed: the child must not outlive us
            _end(self.pid, self._graceful)
            raise
        _, status = os.waitpid(self.pid, 0)
        if outcome is None:
            raise ChildExit(_how(status))
        kind, value = outcome
        if kind == "error":
            raise value
        return value  # type: ignore[no-any-return]

    def end(self, *, patience: float = 0.0, kill: bool = False) -> None:
        """End the child and reap it, unless `result` did: after waiting `patience` seconds
        for it to end by itself (one told to stop some other way), SIGTERM first when it is
        graceful (unless `kill`), then SIGKILL."""
        if self._done:
            return
        self._done = True
        os.close(self._read_fd)
        deadline = time.monotonic() + patience
        while time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(self.pid, os.WNOHANG)[0] == 0:
                    time.sleep(0.005)
                    continue
            return
        _end(self.pid, None if kill else self._graceful)


def start(work: Callable[[Send], T], *, graceful: float | None = None) -> Child[T]:
    """`work(send)` begun in a child process (see `isolated`), which needs `os.fork`."""
    # One fork at a time (threads fork workers at once, Runner.each): no other child inherits
    # this one's write end, which would keep its end-of-file from coming when it dies, and no
    # thread unfreezes while another forks.
    with _forking:
        read_fd, write_fd = os.pipe()
        # The child's collections leave what this process made alone: they would write into
        # (and so copy) nearly every page of it, hundreds of MB with moto and botocore imported.
        gc.freeze()
        try:
            pid = _lifetime.fork()  # a child that dies with this process, however it ends
            if pid == 0:  # the child: never returns
                _reset_after_fork()
                os.close(read_fd)
                _child(work, write_fd, graceful=graceful is not None)
        finally:
            gc.unfreeze()  # here (the child never gets this far)
        os.close(write_fd)
    return Child(pid, read_fd, graceful)


_forking = threading.Lock()


class CollectionsPaused:
    """No cyclic garbage collection while the sandbox opens and the handlers are imported:
    they import moto, botocore and the runtime library (a third of a second), making objects
    that live as long as the process, and collecting the young ones again and again cost about
    a twentieth of a cold `cfngen test`. Collections come back as they were at `resume()` (once
    the entrypoint is imported) or at the end of the block."""

    def __enter__(self) -> None:
        self._enabled = gc.isenabled()
        gc.disable()

    def resume(self) -> None:
        if self._enabled:
            gc.enable()

    def __exit__(self, *exc: object) -> None:
        self.resume()


class Handout:
    """The numbers 0 to count - 1, each handed to whichever process takes one first: the
    processes forked while it is open share it. A pipe holding them all, read four bytes at a
    time: a read of a pipe takes its bytes under the pipe's lock, so no two get the same."""

    #: As many as a pipe holds (64 KiB) before anyone takes one.
    LIMIT = 16_384

    def __init__(self, count: int) -> None:
        self._fd, write_fd = os.pipe()
        try:
            os.write(write_fd, struct.pack(f"<{count}I", *range(count)))
        finally:
            os.close(write_fd)

    def take(self) -> int | None:
        """The next number, or None when they are all taken."""
        data = os.read(self._fd, 4)
        return struct.unpack("<I", data)[0] if len(data) == 4 else None

    def __enter__(self) -> Handout:
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self._fd)


def import_between_forks(names: Iterable[str]) -> set[str]:
    """Import `names` with no `isolated` child forked meanwhile; the ones that failed. For
    imports in a thread beside one that forks: a child forked in the middle of an import
    inherits that module half made and its import lock held by a thread it does not have, and
    its own import of the module then waits forever (a handler's first call to moto's backend,
    as a 60 s timeout)."""
    failed = set()
    with _forking:
        for name in sorted(names):
            try:
                importlib.import_module(name)
            except Exception:  # only a head start: the worker imports what it needs
                failed.add(name)
    return failed


def _reset_after_fork() -> None:
    """In the child: a lock of its own (the one it inherited is held, by the fork)."""
    global _forking  # noqa: PLW0603 - one per process
    _forking = threading.Lock()


def _end(pid: int, graceful: float | None) -> None:
    """End the child and reap it: SIGKILL, or SIGTERM first and SIGKILL after `graceful`."""
    if graceful is not None:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + graceful
        while time.monotonic() < deadline:
            try:
                if os.waitpid(pid, os.WNOHANG)[0] != 0:
                    return
            except ChildProcessError:
                return
            except KeyboardInterrupt:  # a second Ctrl-C: no more waiting
                break
            time.sleep(0.01)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _receive(read_fd: int, on_message: Send) -> tuple[str, Any] | None:
    """Messages until the child closes the pipe; its result or error, if it sent one."""
    outcome: tuple[str, Any] | None = None
    with os.fdopen(read_fd, "rb") as pipe:
        while True:
            try:
                kind, value = pickle.load(pipe)
            except EOFError:
                break
            except (pickle.UnpicklingError, ValueError, AttributeError, ImportError):
                break  # a message cut short by the child's exit
            if kind == "message":
                on_message(value)
            else:
                outcome = (kind, value)
    return outcome


#: The child's collection thresholds: a worker is short-lived and allocates in bursts (a
#: handler package imported again for each test, a botocore session and clients in each), and
#: with the default first threshold (700) it spent a tenth of its CPU collecting, mostly in two
#: full collections of everything it made. One young collection per 100,000 objects still
#: frees what a test leaves in cycles long before it adds up.
_CHILD_GC_THRESHOLDS = (100_000, 20, 100)


def _child(work: Callable[[Send], Any], write_fd: int, *, graceful: bool = False) -> None:
    code = 0
    gc.enable()  # whatever the parent was doing when it forked
    gc.set_threshold(*_CHILD_GC_THRESHOLDS)
    # cfngen turns Ctrl-C, SIGTERM and SIGHUP into KeyboardInterrupt (cfngen/_process.py), and
    # so did this fork: a handler signalling its own process came back as an interrupt of
    # cfngen and ended the run without a report. Here they end the worker, which the parent
    # reports as the signal that killed it (the user's Ctrl-C reaches the parent too).
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _interrupted if graceful else signal.SIG_DFL)
    try:
        out = os.fdopen(write_fd, "wb")

        def send(value: Any) -> None:
            pickle.dump(("message", value), out)
            out.flush()

        try:
            result = work(send)
            payload = pickle.dumps(("result", result))
        except BaseException as exc:  # reported to the parent, which raises it there
            payload = _error(exc)
        out.write(payload)
        out.flush()
    except BaseException:  # the pipe is gone: the parent reports how the child ended
        code = 70
    finally:
        # No atexit handlers, no flushing of buffers the parent also holds.
        os._exit(code)


def _interrupted(signum: int, frame: object) -> None:
    # The session ends (or Ctrl-C): what Python would print of the cleanup this interrupts
    # ("Exception ignored in ...") is noise under the last verdict.
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)
    raise KeyboardInterrupt


def _error(exc: BaseException) -> bytes:
    try:
        return pickle.dumps(("error", exc))
    except Exception:
        return pickle.dumps(("error", RuntimeError(f"{type(exc).__name__}: {exc}")))


def _how(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"the handler process was killed by {name}"
    return f"the handler process exited with status {os.WEXITSTATUS(status)}"
