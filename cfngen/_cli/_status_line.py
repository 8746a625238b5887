"""A status line on stderr for a command that runs longer than about two seconds on a terminal:
`cfngen: rendering models.py... 7 s`, redrawn every second and erased when the command ends,
so what the command prints afterwards is untouched.

A timer signal (SIGALRM), not a thread: generate forks a child for the models only while it is
the process's one thread (cfngen/_generate/_parallel.py), and a forked child does not inherit
the timer. Only when cfngen owns the process (the `cfngen` command), never in a program that
imports it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterator
from typing import Any, TextIO

from cfngen import _process, _progress

#: Seconds before the line appears; `CFNGEN_PROGRESS_AFTER` changes it (tests use 0.1).
AFTER = 2.0
EVERY = 1.0


@contextlib.contextmanager
def status_line(command: str, stream: TextIO | None = None) -> Iterator[None]:
    """While the block runs, keep a status line on `stream` after AFTER seconds; it goes for
    good as soon as anything else is written to stdout or stderr (the command's own output)."""
    stream = stream or sys.stderr
    if not (_process.owned() and _is_terminal(stream) and hasattr(signal, "setitimer")):
        yield
        return
    started = time.monotonic()
    shown = [0]  # the width of what is on the line now
    stopped = [False]

    def draw(*_: Any) -> None:
        if stopped[0]:
            return
        what = _progress.current() or command
        text = f"cfngen: {what}... {time.monotonic() - started:.0f} s"
        # Spaces, not an escape sequence, erase a longer previous line: works with TERM=dumb.
        stream.write("\r" + text + " " * max(0, shown[0] - len(text)))
        stream.flush()
        shown[0] = len(text)

    def stop() -> None:
        if stopped[0]:
            return
        stopped[0] = True
        signal.setitimer(signal.ITIMER_REAL, 0)
        if shown[0]:
            stream.write("\r" + " " * shown[0] + "\r")
            stream.flush()

    after = float(os.environ.get("CFNGEN_PROGRESS_AFTER") or AFTER)
    previous = signal.signal(signal.SIGALRM, draw)
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Stopping(sys.stdout, stop), _Stopping(sys.stderr, stop)
    signal.setitimer(signal.ITIMER_REAL, after, EVERY)
    try:
        yield
    finally:
        stop()
        sys.stdout, sys.stderr = saved
        signal.signal(signal.SIGALRM, previous)


class _Stopping:
    """A stream that ends the status line before its first write."""

    def __init__(self, stream: TextIO, stop: Any) -> None:
        self._stream = stream
        self._stop = stop

    def write(self, text: str) -> int:
        self._stop()
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
