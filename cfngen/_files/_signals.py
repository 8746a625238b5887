"""Holding Ctrl-C, SIGTERM and SIGHUP back while a few file operations must finish together,
and telling, once they are done, whether an interrupt that arrived meanwhile changed anything.

Only the main thread receives Python's signal handlers, so elsewhere these do nothing.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

_HELD = ("SIGINT", "SIGTERM", "SIGHUP")


def interrupt_pending() -> bool:
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return False
    return any(getattr(signal, name) in signal.sigpending() for name in _HELD)


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP back until the block is done; they arrive after it."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {getattr(signal, name) for name in _HELD}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def raised_while_interrupted(exc: BaseException) -> bool:
    """Whether `exc` was raised while an interrupt (KeyboardInterrupt) unwound the stack: a
    library's cleanup failing on the way. The interrupt is then what happened, not `exc`."""
    seen: BaseException | None = exc.__context__
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__context__
    return False


def commit_then_report(commit: Callable[[], None], root: Path, files: Sequence[str]) -> None:
    """Run `commit`, which puts `files` (relative to `root`) in place holding interrupts back
    (`signals_deferred`, as a Transaction does), then report an interrupt that arrived
    meanwhile, which Python raises as the commit ends. When every file is in place the commit
    happened, and saying "interrupted" would be false: the interrupt is then not raised."""
    try:
        commit()
    except KeyboardInterrupt:
        if not (files and all(os.path.lexists(root / rel) for rel in files)):
            raise
