"""One function computed in a forked child while this process does other work.

`cfngen generate` spends most of its time on models.py: 0.4 s importing datamodel-code-generator
(pydantic builds its models at import), then the generator. Validation, the role, the SAM
template, the docs and the example inputs need none of that, so the CLI renders the models in a
child on the second core meanwhile (no thread: the import and the generator hold the GIL).

    job = start(fn, *args)   # None when this process must not fork: then call fn yourself
    ...                      # other work; raise and the `finally` below cleans up
    value = job.result()     # fn(*args), from the child
    job.cancel()             # in a `finally`: kills and reaps a child still running

A child's CfngenError is raised again here as the same error. If the child dies, or fn raised
anything else (a bug), result() computes fn(*args) in this process instead, which gives the same
value or raises the same exception with its real traceback: the child can make generate faster,
never different. The value comes back pickled, through a pipe, from our own child.

Forking is allowed only where cfngen owns the process (see cfngen._process: a program or test
that calls cfngen's functions gets no child processes), on a system with fork() and at
least two usable CPUs, with no other thread running (fork copies only the calling thread, and
locks another thread holds would stay locked in the child), and unless CFNGEN_NO_FORK is set.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from collections.abc import Callable
from typing import Any, Generic, NoReturn, TypeVar

from cfngen import _process
from cfngen._errors import CfngenError, ExitCode
from cfngen._files import note, take_notes

T = TypeVar("T")


def can_fork() -> bool:
    if not _process.owned() or not hasattr(os, "fork") or os.environ.get("CFNGEN_NO_FORK"):
        return False
    # sched_getaffinity counts the CPUs this process may use (macOS and the BSDs lack it).
    getaffinity = getattr(os, "sched_getaffinity", None)
    cpus = len(getaffinity(0)) if getaffinity else os.cpu_count() or 1
    if cpus < 2:  # one core: the child would only take turns with this process
        return False
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


class Job(Generic[T]):
    """fn(*args) running in the child `pid`, whose pickled outcome arrives on `fd`."""

    def __init__(self, fn: Callable[..., T], args: tuple[Any, ...], pid: int, fd: int) -> None:
        self._fn = fn
        self._args = args
        self._pid: int | None = pid
        self._fd: int | None = fd

    def result(self) -> T:
        if self._pid is None or self._fd is None:
            raise RuntimeError("the job's result was already taken or it was cancelled")
        fd, self._fd = self._fd, None
        with os.fdopen(fd, "rb") as stream:
            data = stream.read()
        self._reap()
        try:
            kind, payload, notes = pickle.loads(data)
        except Exception:  # the child died before it finished writing: do the work here
            return self._fn(*self._args)
        for text in notes:  # what the child's caches noted (cfngen/_files/_home.py)
            note(text)
        if kind == "ok":
            value: T = payload
            return value
        if kind == "error":
            message, hint, exit_code = payload
            raise CfngenError(message, hint, exit_code=ExitCode(exit_code))
        return self._fn(*self._args)

    def cancel(self) -> None:
        """Kill the child if it is still running, and reap it; harmless after result()."""
        if self._pid is None:
            return
        with contextlib.suppress(ProcessLookupError):  # it exited and was reaped already
            os.kill(self._pid, signal.SIGKILL)
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)
        self._reap()

    def _reap(self) -> None:
        pid, self._pid = self._pid, None
        if pid is not None:
            with contextlib.suppress(ChildProcessError):  # someone else reaped it
                os.waitpid(pid, 0)


def start(fn: Callable[..., T], *args: Any) -> Job[T] | None:
    """fn(*args) started in a forked child, or None when forking is not allowed here."""
    if not can_fork():
        return None
    # Text still buffered here would be written twice if the child ever flushed it.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    from cfngen._lifetime import fork  # the child dies with this process, even a SIGKILLed one

    read_fd, write_fd = os.pipe()
    pid = fork()
    if pid == 0:  # pragma: no cover - runs in the child, which never returns from here
        _child(fn, args, read_fd, write_fd)
    os.close(write_fd)
    return Job(fn, args, pid, read_fd)


def _child(
    fn: Callable[..., Any], args: tuple[Any, ...], read_fd: int, write_fd: int
) -> NoReturn:  # pragma: no cover - runs in the child
    status = 0
    try:
        os.close(read_fd)
        # Everything is freed at once by _exit: collections would only cost time.
        import gc

        gc.disable()
        try:
            outcome: tuple[str, Any] = ("ok", fn(*args))
        except CfngenError as error:
            if type(error) is CfngenError:
                outcome = ("error", (error.message, error.hint, int(error.exit_code)))
            else:
                outcome = ("redo", None)
        except BaseException:
            outcome = ("redo", None)
        data = pickle.dumps((*outcome, take_notes()), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write_fd, "wb") as stream:
            stream.write(data)
    except BaseException:
        status = 1
    finally:
        # No atexit handlers, no flushing of buffers inherited from the parent, no teardown.
        os._exit(status)
