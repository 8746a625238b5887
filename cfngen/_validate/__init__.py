"""`cfngen validate`: resource schemas checked for everything at once.

A file goes through four layers, and every layer reports all it finds:
JSON syntax and duplicate keys (`_jsonsource`), the structural rules of cfngen's meta-schema
(`_structure`), then semantic checks and lint (`_semantic`). Positions are looked up last,
only for the pointers that have a problem.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen import _jsonsource
from cfngen._diagnostics import Diagnostic
from cfngen._errors import CfngenError, ExitCode
from cfngen._project import load_project

__all__ = [
    "EXAMPLE_SCHEMA",
    "FileReport",
    "render_json",
    "render_summary",
    "render_text",
    "resolve_schema_path",
    "validate_file",
    "validate_paths",
    "validate_text",
]

#: A complete, valid resource schema that ships with cfngen (`cfngen validate --example`).
EXAMPLE_SCHEMA = Path(__file__).with_name("example-schema.json")


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

    def count(self, severity: str) -> int:
        return sum(1 for d in self.diagnostics if d.severity == severity)


def resolve_schema_path(path: Path) -> Path:
    """A schema file as given, or the schema of the project in a folder."""
    if path.is_dir():
        schema = load_project(path).schema_path
        if not schema.is_file():
            raise CfngenError(
                f"{path}: the project's schema {schema.name} is missing",
                "create it, or pass the schema file itself",
            )
        return schema
    if not path.exists():
        raise CfngenError(f"{path}: no such file or folder", "check the path")
    return path


def _read(path: Path) -> str | Diagnostic:
    """The file's text; undecodable bytes are a finding about the file, not a usage error."""
    try:
        return _jsonsource.read_text(path)
    except CfngenError as exc:
        if exc.exit_code != ExitCode.FAILED:
            raise
        raw = path.read_bytes()
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as bad:
            line = raw.count(b"\n", 0, bad.start) + 1
            column = bad.start - (raw.rfind(b"\n", 0, bad.start) + 1) + 1
            return Diagnostic(
                "error",
                "",
                f"invalid JSON: byte {raw[bad.start]:#04x} is not UTF-8",
                "save the file as UTF-8",
                line,
                column,
            )
        raise


def validate_file(path: Path, *, strict: bool = False, display: str | None = None) -> FileReport:
    text = _read(path)
    if isinstance(text, Diagnostic):
        return FileReport(path=display or str(path), diagnostics=[text], strict=strict)
    return validate_text(text, path=path, strict=strict, display=display)


def validate_text(
    text: str, *, path: Path | None = None, strict: bool = False, display: str | None = None
) -> FileReport:
    """Validate schema text; `path` locates files that relative `$ref`s point at."""
    from cfngen._validate import _semantic, _structure
    from cfngen._validate._walk import SchemaIndex

    report = FileReport(path=display or (str(path) if path else "<schema>"), strict=strict)
    try:
        doc = _jsonsource.loads(text)
    except _jsonsource.JsonSyntaxError as exc:
        report.diagnostics.append(
            Diagnostic(
                "error",
                "",
                f"invalid JSON: {exc.message}",
                "fix the syntax; nothing else was checked",
                exc.line,
                exc.column,
            )
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
    if not isinstance(doc.data, dict):
        report.diagnostics.append(
            Diagnostic("error", "", "a resource schema must be a JSON object", None, 1, 1)
        )
        return report
    report.schema = doc.data

    from cfngen._kinds.hook import schema_problems

    problems: list[Any] | None = schema_problems(doc.data, path)
    if problems is None:
        problems = [
            _semantic.Problem("error", p.pointer, p.message, p.hint, key=p.key)
            for p in _structure.check(doc.data)
        ]
        index = SchemaIndex(doc.data, base_dir=path.parent if path else None)
        problems.extend(_semantic.check(doc.data, index))
    for problem in problems:
        where = doc.key_position(problem.pointer) if problem.key else None
        where = where or doc.position(problem.pointer)
        line, column = where if where else (None, None)
        report.diagnostics.append(
            Diagnostic(
                problem.severity, problem.pointer, problem.message, problem.hint, line, column
            )
        )
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


def render_summary(reports: Sequence[FileReport]) -> str:
    """One line: `2 files checked: 1 valid, 1 invalid (3 errors, 5 warnings)`."""
    files = len(reports)
    valid = sum(1 for r in reports if r.valid)
    errors = sum(r.count("error") for r in reports)
    warnings = sum(r.count("warning") for r in reports)
    counts = f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')}"
    return f"{_plural(files, 'file')} checked: {valid} valid, {files - valid} invalid ({counts})\n"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def render_json(reports: Sequence[FileReport]) -> str:
    doc = {
        "files": [
            {"path": r.path, "valid": r.valid, "diagnostics": [d.as_json() for d in r.diagnostics]}
            for r in reports
        ]
    }
    return json.dumps(doc, indent=2) + "\n"
