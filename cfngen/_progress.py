"""What a long-running command is doing now, for whoever shows it (the CLI's status line on a
terminal, cfngen/_cli/_status_line.py, reads `current()` once a second).

The core says `with phase("validating the schema"):` around its slow steps and never prints.
A phase costs two assignments.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

_current = ""


@contextlib.contextmanager
def phase(what: str) -> Iterator[None]:
    """The command now does `what` (until the block ends: then what it did before again)."""
    global _current  # noqa: PLW0603 - one command per process reports at a time
    previous = _current
    _current = what
    try:
        yield
    finally:
        _current = previous


def current() -> str:
    return _current
