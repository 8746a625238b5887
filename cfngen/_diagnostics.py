"""A problem found in a file: what, where, and what to do about it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]
#: The severity of a mistake the registry accepts (the official validator's verdict, checked by
#: tests/test_validate_mutations.py): a warning, an error only with --strict, so that strictness
#: never locks out a project the official tool accepts. docs/validate.md has the table.
ACCEPTED: Severity = "warning"


@dataclass(frozen=True)
class Diagnostic:
    severity: Severity
    #: JSON pointer of the offending value ('' for the whole document).
    pointer: str
    message: str
    hint: str | None = None
    #: 1-based line and column of the offending value in the source file, when known.
    line: int | None = None
    column: int | None = None
    #: A stable id for the kind of problem (`cfngen/<slug>`), the same in every output format;
    #: None for problems that predate codes, whose id `code_of` derives from the wording.
    code: str | None = None

    def sort_key(self) -> tuple[int, int, str]:
        """File order: by position, unknown positions last."""
        return (self.line or 1 << 30, self.column or 0, self.pointer)

    def as_json(self) -> dict[str, object]:
        return {
            "severity": self.severity,
            "pointer": self.pointer,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "hint": self.hint,
            "code": code_of(self),
        }


@dataclass(frozen=True)
class Problem:
    """A finding before its position is known: checks produce these, the validate engine looks
    up line and column in the source (only for the pointers that have a problem)."""

    severity: Severity
    pointer: str
    message: str
    hint: str | None = None
    #: The problem is a member's name: report the key's position, not its value's.
    key: bool = False
    #: As `Diagnostic.code`.
    code: str | None = None


def code_of(problem: Diagnostic | Problem) -> str:
    """The problem's stable id: its own code, else one derived from the wording (the ids of
    problems older than codes, kept so SARIF baselines do not move)."""
    if problem.code:
        return problem.code
    return rule_id(problem.message)


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`|\([^)]*\)")
_WORD = re.compile(r"[a-z]+")
_NOISE = {"a", "an", "the", "is", "are", "of", "to", "in", "it", "its", "be"}


def rule_id(message: str, *, prefix: str = "cfngen") -> str:
    """A stable id for the kind of problem a message describes: quoted names, numbers,
    pointers and parenthesised details (the parts that vary between findings) left out.
    `duplicate key 'Foo' (first at line 3)` -> `cfngen/duplicate-key`."""
    text = _QUOTED.sub(" ", message.lower())
    text = re.sub(r"\S*/\S*", " ", text)  # pointers, paths
    words = [w for w in _WORD.findall(text) if w not in _NOISE][:6]
    return f"{prefix}/{'-'.join(words) or 'problem'}"
