"""Holding Ctrl-C, SIGTERM and SIGHUP back while a few file operations must finish together.

Only the main thread receives Python's signal handlers, so elsewhere these do nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

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
