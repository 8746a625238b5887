"""A problem found in a file: what, where, and what to do about it."""

from __future__ import annotations

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
