"""How results become text, without knowing where the text goes.

Result types render themselves beside their definitions. Where a word deserves a colour they
call a `Paint` with a style name; the CLI passes one that colours for a terminal
(cfngen/_cli/_output.py), everyone else gets `plain`. A command's output is `Rendered`: text for
stdout (what the command did or found: what a script reads) and for stderr (warnings, progress,
what the user should know), in the order it is to be shown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

Style = Literal["error", "warning", "hint", "ok", "bold", "dim"]
#: (text, style) -> the text as it should be shown.
Paint = Callable[[str, Style], str]
Stream = Literal["out", "err"]

#: Every `--format` a checking command takes, the default first (other commands: the first two).
FORMATS = ("text", "json", "junit", "sarif", "github")
#: The machine formats for CI, rendered by cfngen/_formats/.
CI_FORMATS = ("junit", "sarif", "github")


def plain(text: str, _style: Style) -> str:
    return text


@dataclass
class Rendered:
    """Text for stdout and stderr, in order; each stream painted for where it goes."""

    paint_out: Paint = plain
    paint_err: Paint = plain
    parts: list[tuple[Stream, str]] = field(default_factory=list)

    def out(self, line: str) -> None:
        self.parts.append(("out", line + "\n"))

    def err(self, line: str) -> None:
        self.parts.append(("err", line + "\n"))

    def warning(self, message: str) -> None:
        self.err(warning_line(message, self.paint_err))

    def text(self, stream: Stream) -> str:
        return "".join(text for where, text in self.parts if where == stream)


def warning_line(message: str, paint: Paint = plain) -> str:
    return f"cfngen: {paint('warning', 'warning')}: {message}"


def error_lines(message: str, hint: str | None, paint: Paint = plain) -> list[str]:
    lines = [f"cfngen: {paint('error', 'error')}: {message}"]
    if hint:
        lines.append(f"  {paint('hint', 'hint')}: {hint}")
    return lines
