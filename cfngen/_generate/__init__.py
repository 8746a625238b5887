"""`cfngen generate`: the derived files of a project, from its schema and answers.

STUB (issue 3 completes it). The interface is fixed:

generate_project(root, check=False, force=False) -> GenerateResult
    Validates the schema first (invalid: raises a CfngenError with exit_code FAILED that carries
    the validation reports, and writes nothing), then writes every derived file atomically.
    check=True writes nothing and lists drifted files; force=True skips the no-op fast path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class GenerateResult:
    #: Derived files written (or, with check=True, that would be written: the drift).
    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    #: Files at a derived path that the user owns (no cfngen header): left alone.
    skipped: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def generate_project(root: Path, *, check: bool = False, force: bool = False) -> GenerateResult:
    raise NotImplementedError("generate is not implemented yet")
