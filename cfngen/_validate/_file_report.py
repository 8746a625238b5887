"""What validating one file found: its diagnostics, and the parsed schema when it is JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cfngen._diagnostics import Diagnostic


@dataclass
class FileReport:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: The parsed schema, when the file is valid JSON.
    schema: dict[str, Any] | None = None
    strict: bool = False
    #: What the file was taken for, when its content decided it (a template given by path:
    #: a custom resource's, a module's fragment, or a stack cfngen does not check).
    taken_for: str | None = None

    @property
    def valid(self) -> bool:
        bad = {"error", "warning"} if self.strict else {"error"}
        return not any(d.severity in bad for d in self.diagnostics)

    def count(self, severity: str) -> int:
        return sum(1 for d in self.diagnostics if d.severity == severity)
