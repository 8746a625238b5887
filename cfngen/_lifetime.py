"""Child processes that die with the process that made them.

A forked worker runs someone else's code (a handler) that may never return. When cfngen ends
normally it kills and reaps its workers, but SIGKILL (an OOM kill, a CI runner's hard timeout,
`kill -9`) runs no `finally`: the worker, now an orphan, went on spinning a core until its own
deadline. `fork()` here is `os.fork()` whose child is killed when the parent goes, however it
goes. It is the one way cfngen forks a child that runs user code (cfngen/_contract/_isolate.py),
and what a long-lived session that keeps workers (a test session, a server) should call too.

Two mechanisms, the first that applies:

- Linux: `prctl(PR_SET_PDEATHSIG, SIGKILL)` in the child, right after the fork. The kernel
  sends the signal, so it works whatever the child is doing, even spinning in C code that
  holds the GIL. The setting fires when the *thread* that forked exits, so it is used only for
  a fork from the main thread (whose end is the process's end). A parent that died between the
  fork and the prctl is caught by comparing getppid() with the parent's pid.
- Elsewhere (macOS, the BSDs), or when forked from another thread: a pipe whose write end only
  the parent holds, made once per process. A daemon thread in the child blocks reading it; the
  read returns end-of-file when the parent is gone (the kernel closes its descriptors however
  it ends), and the thread kills its own process. It needs the GIL, so a child spinning in C
  code notices only when that code lets go of it; Python code is interrupted within 5 ms.

Programs the child itself starts are its own business: the kernel setting is not inherited
across fork.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import threading
from collections.abc import Callable

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
#: This process's lifeline pipe (the fallback): its pid, read end and write end.
_lifeline: tuple[int, int, int] | None = None
_lock = threading.Lock()


def fork() -> int:
    """`os.fork()` (0 in the child, the child's pid in the parent), with the child killed by
    SIGKILL as soon as this process ends."""
    parent = os.getpid()
    prctl = _prctl() if threading.current_thread() is threading.main_thread() else None
    line = _pipe() if prctl is None else None
    pid = os.fork()
    if pid != 0:
        return pid
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    else:
        assert line is not None
        _watch(*line)
    if os.getppid() != parent:  # it died before the child could ask to follow it
        os.kill(os.getpid(), signal.SIGKILL)
    return 0


@functools.cache
def _prctl() -> Callable[..., int] | None:
    """libc's prctl on Linux (loaded in the parent, once: the child should do nothing slow
    before asking), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return prctl


def _pipe() -> tuple[int, int]:
    """This process's lifeline: made once, the write end never closed, never written."""
    global _lifeline  # noqa: PLW0603 - one per process, shared by every child it forks
    with _lock:
        if _lifeline is None or _lifeline[0] != os.getpid():
            read_fd, write_fd = os.pipe()
            _lifeline = (os.getpid(), read_fd, write_fd)
        return _lifeline[1], _lifeline[2]


def _watch(read_fd: int, write_fd: int) -> None:
    """In the child: let go of the parent's write end, and die at end-of-file."""
    global _lifeline  # noqa: PLW0603 - the child has none of its own yet
    _lifeline = None
    os.close(write_fd)

    def watch() -> None:
        while True:
            try:
                if not os.read(read_fd, 1):
                    break
            except InterruptedError:
                continue
            except OSError:
                break
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="cfngen-lifeline", daemon=True).start()
