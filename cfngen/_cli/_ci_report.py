"""A report in the CI format asked for (`--format junit|sarif|github`) when a run fails before
its command wrote one: a CI job that reads the report finds a valid one saying so, not nothing
(the renderers are cfngen/_formats's `render_error`)."""

from __future__ import annotations

import contextlib
import itertools
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from cfngen._render import CI_FORMATS


class Watched:
    """stdout, noting whether the command wrote anything (its report) to it."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.wrote = False

    def write(self, text: str) -> int:
        self.wrote = self.wrote or bool(text)
        return self.stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def ci_format(argv: Sequence[str]) -> str | None:
    """The CI format (junit, sarif, github) `--format` names on the command line, if any."""
    args = list(argv)
    pairs = set(itertools.pairwise(args))
    return next(
        (fmt for fmt in CI_FORMATS if f"--format={fmt}" in args or ("--format", fmt) in pairs),
        None,
    )


def ci_report(fmt: str | None, command: str | None, message: str, code: int) -> int:
    """Write the report of a run that failed in the CI format asked for; return `code`."""
    if fmt is None:
        return int(code)
    from cfngen._formats import render_error

    tool = f"cfngen {command}" if command else "cfngen"
    with contextlib.suppress(BrokenPipeError):
        sys.stdout.write(render_error(fmt, tool=tool, message=message, exit_code=int(code)))
        sys.stdout.flush()
    return int(code)
