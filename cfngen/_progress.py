"""What a long-running command is doing now, and how far it is, for whoever shows it (the CLI's
status line on a terminal, cfngen/_cli/_status_line.py, reads `state()` once a second).

The core says `with phase("validating schemas", total=len(files)):` around its slow steps,
`advance()` after each unit of work, and never prints. A phase costs a few assignments, an
`advance()` an addition and a test; a sink (`reporting(sink)`) is told of each change, for
whoever wants every step rather than a look once a second (tests).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import NamedTuple, Protocol


class State(NamedTuple):
    what: str
    done: int
    #: None: the phase does not know how much work it has.
    total: int | None


class Sink(Protocol):
    def update(self, state: State) -> None: ...


_IDLE = State("", 0, None)
# One command per process reports at a time: module state, not an object passed everywhere.
_state = _IDLE
_sink: Sink | None = None


@contextlib.contextmanager
def phase(what: str, total: int | None = None) -> Iterator[None]:
    """The command now does `what`, `total` units of it when known (until the block ends: then
    what it did before again, as far as it was)."""
    global _state  # noqa: PLW0603 - see above
    previous = _state
    _state = State(what, 0, total)
    if _sink is not None:
        _sink.update(_state)
    try:
        yield
    finally:
        _state = previous
        if _sink is not None:
            _sink.update(_state)


def advance(n: int = 1) -> None:
    """`n` more units of the current phase are done."""
    global _state  # noqa: PLW0603 - see above
    what, done, total = _state
    _state = State(what, done + n, total)
    if _sink is not None:
        _sink.update(_state)


def current() -> str:
    return _state.what


def state() -> State:
    return _state


@contextlib.contextmanager
def reporting(sink: Sink) -> Iterator[None]:
    """Tell `sink` of every phase and step while the block runs."""
    global _sink  # noqa: PLW0603 - see above
    previous = _sink
    _sink = sink
    try:
        yield
    finally:
        _sink = previous
