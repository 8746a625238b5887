"""Where the module checks put what they find: a diagnostic at the position of the fragment's
node it is about (or of a fallback node, or a given line and column).
"""

from __future__ import annotations

from typing import Any

from cfngen._cfn_template import position
from cfngen._diagnostics import Diagnostic, Severity


class Findings:
    def __init__(self) -> None:
        self.items: list[Diagnostic] = []

    def add(
        self,
        severity: Severity,
        pointer: str,
        node: Any,
        message: str,
        hint: str | None = None,
        *,
        fallback: Any = None,
        at: tuple[int, int] | None = None,
        code: str | None = None,
    ) -> None:
        where = position(node) or position(fallback) or at or (None, None)
        self.items.append(
            Diagnostic(severity, pointer, message, hint, where[0], where[1], code=code)
        )
