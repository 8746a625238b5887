"""The two neutral shapes every checking command's result becomes, `Finding` (a problem at a
place) and `Case` (a test case), with the rule id and path each shows."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from cfngen._diagnostics import rule_id

__all__ = ["Case", "Finding", "display_path", "rule_id", "visible"]

Level = Literal["error", "warning", "note"]
Outcome = Literal["passed", "failed", "skipped"]


@dataclass(frozen=True)
class Finding:
    """A problem at a place: a SARIF result, a GitHub annotation."""

    level: Level
    #: A stable id for the kind of problem (SARIF ruleId): `cfngen/<slug>`.
    rule: str
    message: str
    #: The file, relative to the current folder where it is inside it (posix separators).
    path: str | None = None
    line: int | None = None
    column: int | None = None
    #: A short title (GitHub shows it above the message).
    title: str | None = None


@dataclass(frozen=True)
class Case:
    """A test case: a file validated, a contract test run, a derived file checked."""

    #: The test suite it belongs to (a project, the files validated).
    suite: str
    name: str
    outcome: Outcome
    message: str | None = None
    seconds: float = 0.0
    classname: str | None = None
    path: str | None = None
    #: Text worth keeping beside a passing case (warnings).
    output: str | None = None
    #: The line of `path` a failure is about (the `line` attribute test reporters annotate).
    line: int | None = None


# --- text every format can hold --------------------------------------------------------

#: What no format may carry as it is: C0 controls but tab, newline and carriage return (XML 1.0
#: cannot hold them even escaped; a terminal or log viewer acts on ESC), DEL and the C1
#: controls (NEL ends a line for some readers), lone surrogates (no UTF-8 encoding: a JSON
#: parser refuses the escape, an XML writer the character), the Unicode line and paragraph
#: separators (they would split a workflow command), and the noncharacters XML excludes.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\ufffe\uffff]"
)


def visible(text: str) -> str:
    """`text` with each character no format may carry written as its Python escape (`\\x1b`,
    `\\ud800`): every renderer passes every string it writes through here first."""
    return _INVISIBLE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def display_path(path: str | Path) -> str:
    """A path as a finding names it: relative to the current folder when inside it."""
    p = Path(path)
    if p.is_absolute():
        try:
            p = p.relative_to(Path.cwd())
        except ValueError:
            return p.as_posix()
    return p.as_posix()
