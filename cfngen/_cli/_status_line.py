"""A status line on stderr for a command that runs longer than about two seconds on a terminal:
`cfngen: rendering models.py... 7 s`, redrawn every second and erased when the command ends,
so what the command prints afterwards is untouched. A phase that knows how much work it has
(cfngen/_progress.py) shows a bar: `cfngen: validating schemas [####......] 412/1898 22% 7 s`.

The bar is drawn here by hand, not by rich or tqdm: this line already owns the terminal line
(timer, erasing, giving way to the command's output), a bar is one string built from three
numbers, and a library would add a dependency and its own redraw loop for that string. Plain
ASCII and no escape sequences, so it reads the same with NO_COLOR and TERM=dumb.

A timer signal (SIGALRM), not a thread: generate forks a child for the models only while it is
the process's one thread (cfngen/_generate/_parallel.py), and a forked child does not inherit
the timer. Only when cfngen owns the process (the `cfngen` command), never in a program that
imports it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import time
from collections.abc import Iterator
from typing import Any, TextIO

from cfngen import _process, _progress

#: Seconds before the line appears, and between redraws; `CFNGEN_PROGRESS_AFTER` and
#: `CFNGEN_PROGRESS_EVERY` change them (tests use 0.05).
AFTER = 2.0
EVERY = 0.5


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
        columns = shutil.get_terminal_size().columns
        text = render(_progress.state(), time.monotonic() - started, columns, command)
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
    every = float(os.environ.get("CFNGEN_PROGRESS_EVERY") or EVERY)
    signal.setitimer(signal.ITIMER_REAL, after, every)
    try:
        yield
    finally:
        stop()
        sys.stdout, sys.stderr = saved
        signal.signal(signal.SIGALRM, previous)


#: The widest a bar gets, and the narrowest worth drawing (else the count and percentage alone).
BAR_MAX = 30
BAR_MIN = 10


def render(state: _progress.State, seconds: float, columns: int, command: str) -> str:
    """The status line for `state`, `seconds` into `command`, at most `columns` - 1 wide (the
    last column would wrap on some terminals)."""
    what = state.what or command
    elapsed = f"{seconds:.0f} s"
    if not state.total:
        return _fit(f"cfngen: {what}... {elapsed}", columns)
    done = min(max(state.done, 0), state.total)
    counts = f"{done}/{state.total} {100 * done // state.total}%"
    head = f"cfngen: {what} "
    room = columns - 1 - len(head) - len(f" {counts} {elapsed}") - 2
    width = min(BAR_MAX, room)
    if width < BAR_MIN:
        return _fit(f"{head}{counts} {elapsed}", columns)
    filled = width * done // state.total
    bar = "#" * filled + "." * (width - filled)
    return f"{head}[{bar}] {counts} {elapsed}"


def _fit(text: str, columns: int) -> str:
    return text if len(text) < columns else text[: max(columns - 1, 0)]


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
