"""`cfngen validate`: resource schemas checked for everything at once.

STUB (issue 2 completes it): JSON syntax and duplicate keys only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen import _jsonsource
from cfngen._diagnostics import Diagnostic
from cfngen._errors import CfngenError
from cfngen._project import load_project

__all__ = [
    "FileReport",
    "render_json",
    "render_text",
    "resolve_schema_path",
    "validate_file",
    "validate_paths",
]


@dataclass
class FileReport:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: The parsed schema, when the file is valid JSON.
    schema: dict[str, Any] | None = None
    strict: bool = False

    @property
    def valid(self) -> bool:
        bad = {"error", "warning"} if self.strict else {"error"}
        return not any(d.severity in bad for d in self.diagnostics)


def resolve_schema_path(path: Path) -> Path:
    """A schema file as given, or the schema of the project in a folder."""
    if path.is_dir():
        return load_project(path).schema_path
    if not path.exists():
        raise CfngenError(f"{path}: no such file or folder", "check the path")
    return path


def validate_file(path: Path, *, strict: bool = False, display: str | None = None) -> FileReport:
    report = FileReport(path=display or str(path), strict=strict)
    text = _jsonsource.read_text(path)
    try:
        doc = _jsonsource.loads(text)
    except _jsonsource.JsonSyntaxError as exc:
        report.diagnostics.append(
            Diagnostic("error", "", f"invalid JSON: {exc.message}", None, exc.line, exc.column)
        )
        return report
    for dup in doc.duplicates():
        report.diagnostics.append(
            Diagnostic(
                "error",
                _jsonsource.join_pointer(dup.pointer, dup.key),
                f"duplicate key {dup.key!r} (first at line {dup.first_line})",
                "JSON parsers keep only the last value; remove one of them",
                dup.line,
                dup.column,
            )
        )
    if isinstance(doc.data, dict):
        report.schema = doc.data
    report.diagnostics.sort(key=Diagnostic.sort_key)
    return report


def validate_paths(paths: Sequence[Path], *, strict: bool = False) -> list[FileReport]:
    # Resolve every path first: a missing one is a usage error before any work is done.
    resolved = [resolve_schema_path(p) for p in paths]
    return [validate_file(p, strict=strict) for p in resolved]


def render_text(reports: Sequence[FileReport], *, colour: bool = False) -> str:
    lines = []
    for report in reports:
        for d in report.diagnostics:
            where = report.path
            if d.line is not None:
                where += f":{d.line}:{d.column}"
            severity: str = d.severity
            if colour:
                severity = f"\033[{'1;31' if severity == 'error' else '1;33'}m{severity}\033[0m"
            hint = f" ({d.hint})" if d.hint else ""
            lines.append(f"{where}: {severity}: {d.pointer or '/'}: {d.message}{hint}")
    return "".join(line + "\n" for line in lines)


def render_json(reports: Sequence[FileReport]) -> str:
    doc = {
        "files": [
            {"path": r.path, "valid": r.valid, "diagnostics": [d.as_json() for d in r.diagnostics]}
            for r in reports
        ]
    }
    return json.dumps(doc, indent=2) + "\n"
