"""The one output policy of the command line: which stream gets what, and when it is coloured.

Colour goes to a stream only when it is a terminal other than TERM=dumb, unless NO_COLOR (off)
or FORCE_COLOR (on) says otherwise. A character the stream cannot encode (LANG=C, a latin-1 pipe)
is escaped, never a crash (`tolerant_streams`). Core code renders text with a `Paint`
(cfngen/_render.py); `painter(stream)` is the one for a stream. Errors and warnings go to
stderr, one line each plus an optional hint.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

from cfngen._errors import CfngenError
from cfngen._render import Paint, Rendered, Style, error_lines, warning_line

_STYLES: dict[Style, str] = {
    "error": "1;31",
    "warning": "1;33",
    "hint": "36",
    "ok": "32",
    "bold": "1",
    "dim": "2",
}


#: `--color`: "auto" (the environment decides), "always" or "never".
_colour_mode = "auto"
#: `--quiet`: warnings are not shown (errors always are).
_quiet = False


def configure(*, colour: str = "auto", quiet: bool = False) -> None:
    """The process's output settings from the command line (`--color`, `--quiet`)."""
    global _colour_mode, _quiet
    _colour_mode, _quiet = colour, quiet


def quiet() -> bool:
    return _quiet


def use_colour(stream: TextIO) -> bool:
    if _colour_mode != "auto":
        return _colour_mode == "always"
    # https://no-color.org first; a dumb terminal (Emacs shell, some CI logs) shows escapes raw.
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def paint(text: str, style: Style, stream: TextIO) -> str:
    if not use_colour(stream):
        return text
    return f"\033[{_STYLES[style]}m{text}\033[0m"


def tolerant_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def painter(stream: TextIO) -> Paint:
    """A Paint for text that goes to `stream`."""

    def paint_for(text: str, style: Style) -> str:
        return paint(text, style, stream)

    return paint_for


def rendered() -> Rendered:
    """An empty Rendered painted for this process's stdout and stderr."""
    return Rendered(painter(sys.stdout), painter(sys.stderr))


def show(text: Rendered) -> None:
    """Write rendered text to stdout and stderr, in its order (with --quiet, stdout only)."""
    for where, part in text.parts:
        if _quiet and where == "err":
            continue
        stream = sys.stdout if where == "out" else sys.stderr
        other = sys.stderr if where == "out" else sys.stdout
        other.flush()
        stream.write(part)
    sys.stdout.flush()


def print_error(error: CfngenError, stream: TextIO | None = None) -> None:
    stream = stream or sys.stderr
    for line in error_lines(error.message, error.hint, painter(stream)):
        print(line, file=stream)


def print_warning(message: str, stream: TextIO | None = None) -> None:
    if _quiet:
        return
    stream = stream or sys.stderr
    print(warning_line(message, painter(stream)), file=stream)
