"""`cfngen validate`: every problem in a kind's files, found at once.

The engine knows no kind: a project folder's kind (found by cfngen/_project.py) says which files
to check and checks them (`Kind.checked_files`, `Kind.check_file`); a file given by path is
decided by what it declares (`_kind_of_file`): a kind that claims it, else, for a template no
kind claims, a stack (reported, not checked), else the kind of the project it sits in, else the
default kind.

`check_json_schema` is the pipeline for files that are JSON schemas, which kinds call with their
`SchemaRules`: JSON syntax and duplicate keys (cfngen/_schema), the structural rules of the kind's
meta-schema (`_structure`), then the kind's semantic checks. Every layer reports all it finds;
positions are looked up last, only for the pointers that have a problem.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen import _schema
from cfngen._diagnostics import ACCEPTED, Diagnostic, Problem
from cfngen._errors import CfngenError, ExitCode
from cfngen._progress import advance, phase
from cfngen._render import Paint, plain
from cfngen._validate._file_report import FileReport

if TYPE_CHECKING:
    from cfngen._kind import Kind
    from cfngen._schema import Resolver

__all__ = [
    "FileReport",
    "SchemaRules",
    "check_json_schema",
    "check_json_schema_file",
    "render_json",
    "render_summary",
    "render_text",
    "validate_file",
    "validate_paths",
    "validate_text",
]


@dataclass(frozen=True)
class SchemaRules:
    """What `check_json_schema` checks a JSON-schema file of one kind against."""

    #: How messages name the document: "a resource schema".
    what: str
    #: The kind's draft-07 meta-schema (structural rules, with x-message / x-hint wording).
    metaschema: Path
    #: Unknown keyword -> what to do instead (e.g. "$defs": use "definitions").
    hints: Mapping[str, str]
    #: The kind's semantic checks and lint, over the parsed schema and its references.
    checks: Callable[[dict[str, Any], Resolver], Iterable[Problem]]


def _kind_of_file(path: Path) -> tuple[Kind | None, str | None]:
    """(the kind that checks `path`, what it was taken for, in words, when its content decided).

    A kind that claims the file by its content (`Kind.claims(path)`, truthy when the file is
    its own; a string says why) comes first: a module its project's fragments, a
    custom resource the templates that declare one, a hook the schemas that look like a hook's.
    A template no kind claims is a stack: no kind (None), not checked. Otherwise the kind of
    the project the file sits in, else the default kind (a resource schema)."""
    from cfngen._kind import all_kinds, default_kind
    from cfngen._project import CONFIG_FILE, folder_kind, template_facts

    if (path.parent / CONFIG_FILE).is_file():
        from cfngen._files import recover

        # A journal cfngen did not write stops this command too (exit 2), as it stops every
        # command that loads the project.
        recover(path.parent)
    for kind in all_kinds():
        found = kind.claims(path)
        if found:
            return kind, found if isinstance(found, str) else None
    facts = template_facts(path)
    if facts is not None:
        return None, facts.as_stack()
    return folder_kind(path.parent) or default_kind(), None


def _targets(path: Path) -> list[tuple[Path, Kind | None, str | None]]:
    """The files to check for one command-line path, each with its kind and, when its content
    decided, what it was taken for."""
    from cfngen._project import load_project

    if path.is_dir():
        project = load_project(path)
        return [(file, project.kind, None) for file in project.kind.checked_files(project)]
    if not path.exists():
        raise CfngenError(f"{path}: no such file or folder", "check the path")
    return [(path, *_kind_of_file(path))]


def read_source(path: Path) -> str | Diagnostic:
    """The file's text; undecodable bytes are a finding about the file, not a usage error."""
    try:
        return _schema.read_text(path)
    except CfngenError as exc:
        if exc.exit_code != ExitCode.FAILED:
            raise
        from cfngen._files import read_bytes

        raw = read_bytes(path)
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
                code="cfngen/json-not-utf8",
            )
        raise


def check_json_schema_file(
    path: Path, rules: SchemaRules, *, strict: bool = False, display: str | None = None
) -> FileReport:
    text = read_source(path)
    if isinstance(text, Diagnostic):
        return FileReport(path=display or str(path), diagnostics=[text], strict=strict)
    return check_json_schema(text, rules, path=path, strict=strict, display=display)


def check_json_schema(
    text: str,
    rules: SchemaRules,
    *,
    path: Path | None = None,
    strict: bool = False,
    display: str | None = None,
) -> FileReport:
    """Check JSON-schema text against a kind's rules; `path` locates files that relative
    `$ref`s point at."""
    from cfngen._schema import Resolver
    from cfngen._validate import _structure

    report = FileReport(path=display or (str(path) if path else "<schema>"), strict=strict)
    try:
        doc = _schema.loads(text)
    except _schema.JsonSyntaxError as exc:
        report.diagnostics.append(
            Diagnostic(
                "error",
                "",
                f"invalid JSON: {exc.message}",
                "fix the syntax; nothing else was checked",
                exc.line,
                exc.column,
                code="cfngen/json-invalid",
            )
        )
        return report
    for dup in doc.duplicates():
        # The official tool (and the registry's parser) keeps the last value, as we do.
        report.diagnostics.append(
            Diagnostic(
                ACCEPTED,
                _schema.join_pointer(dup.pointer, dup.key),
                f"duplicate key {dup.key!r} (first at line {dup.first_line})",
                "JSON parsers keep only the last value; remove one of them",
                dup.line,
                dup.column,
                code="cfngen/json-duplicate-key",
            )
        )
    if not isinstance(doc.data, dict):
        report.diagnostics.append(
            Diagnostic(
                "error",
                "",
                f"{rules.what} must be a JSON object",
                None,
                1,
                1,
                code="cfngen/json-not-object",
            )
        )
        return report
    deep = _schema.nesting_too_deep(doc.data)
    if deep is not None:
        line, column = doc.position(deep) or (None, None)
        report.diagnostics.append(
            Diagnostic(
                "error",
                deep,
                f"nested more than {_schema.MAX_NESTING} levels deep",
                "real schemas nest about 10 levels; name the inner objects in definitions "
                "and refer to them with $ref; nothing else was checked",
                line,
                column,
                code="cfngen/json-too-deep",
            )
        )
        return report
    report.schema = doc.data

    problems = _structure.check(doc.data, rules.metaschema, rules.hints)
    resolver = Resolver(doc.data, base_dir=path.parent if path else None)
    problems.extend(rules.checks(doc.data, resolver))
    for problem in problems:
        where = doc.key_position(problem.pointer) if problem.key else None
        where = where or doc.position(problem.pointer)
        line, column = where if where else (None, None)
        report.diagnostics.append(
            Diagnostic(
                problem.severity,
                problem.pointer,
                problem.message,
                problem.hint,
                line,
                column,
                code=problem.code,
            )
        )
    report.diagnostics.sort(key=Diagnostic.sort_key)
    return report


def validate_file(
    path: Path, *, strict: bool = False, display: str | None = None, kind: Kind | None = None
) -> FileReport:
    """One file, checked by `kind` (default: what the file declares it is, see `_kind_of_file`)."""
    return _check(path, *((kind, None) if kind else _kind_of_file(path)), strict, display)


def _check(
    path: Path, kind: Kind | None, taken_for: str | None, strict: bool, display: str | None = None
) -> FileReport:
    if kind is None:  # a stack: no extension's file
        return FileReport(path=display or str(path), strict=strict, taken_for=taken_for)
    report = kind.check_file(path, strict=strict, display=display)
    report.taken_for = taken_for
    return report


def validate_text(
    text: str,
    *,
    path: Path | None = None,
    strict: bool = False,
    display: str | None = None,
    kind: Kind | None = None,
) -> FileReport:
    """Text checked as a file of `kind` (default: the default kind)."""
    from cfngen._kind import default_kind

    chosen = kind or default_kind()
    return chosen.check_text(text, path=path, strict=strict, display=display)


def validate_paths(
    paths: Sequence[Path], *, strict: bool = False, examples: bool = False
) -> list[FileReport]:
    """The files of `paths` checked; with `examples`, every kind's example files too, each
    checked by its own kind."""
    from cfngen._kind import all_kinds

    # Resolve every path first: a missing one is a usage error before any work is done. A file
    # reached twice (a fragment given beside its project's .rpdk-config) is checked once.
    targets: list[tuple[Path, Kind | None, str | None]] = []
    seen: set[Path] = set()
    for target in (target for path in paths for target in _targets(path)):
        if target[0].resolve() not in seen:
            seen.add(target[0].resolve())
            targets.append(target)
    if examples:
        targets += [(file, kind, None) for kind in all_kinds() for file in kind.example_files]
    if len(targets) == 1:
        file, kind, taken_for = targets[0]
        with phase(f"validating {file.name}"):
            return [_check(file, kind, taken_for, strict)]
    reports = []
    with phase("validating schemas", total=len(targets)):
        for file, kind, taken_for in targets:
            reports.append(_check(file, kind, taken_for, strict))
            advance()
    return reports


def render_text(reports: Sequence[FileReport], paint: Paint = plain) -> str:
    lines = []
    for report in reports:
        for d in report.diagnostics:
            where = report.path
            if d.line is not None:
                where += f":{d.line}:{d.column}"
            severity = paint(d.severity, d.severity)
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


def json_document(reports: Sequence[FileReport]) -> dict[str, Any]:
    return {
        "files": [
            {"path": r.path, "valid": r.valid, "diagnostics": [d.as_json() for d in r.diagnostics]}
            for r in reports
        ]
    }


def render_json(reports: Sequence[FileReport]) -> str:
    return json.dumps(json_document(reports), indent=2) + "\n"
