"""`cfngen validate` for a module: its fragment, every finding at the YAML/JSON node that has
it. Syntax first (cfn-lint's decoder), then the module rules (_checks), then cfn-lint."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfngen._cfn_template import decode, plain
from cfngen._diagnostics import Diagnostic
from cfngen._kinds.module import _fragment
from cfngen._validate._file_report import FileReport


def project_root(path: Path | None) -> Path | None:
    """The module project a fragment file belongs to (its `fragments/` folder's parent)."""
    if path is None:
        return None
    for parent in path.absolute().parents:
        if parent.name == _fragment.FRAGMENT_DIR:
            return parent.parent
    return path.absolute().parent


def fragment_of(path: Path) -> str | None:
    """Why `path` is a module's fragment, or None: it is one when it sits in the `fragments/`
    folder of a module project (`.rpdk-config` with artifact_type MODULE; the official tool
    walks sub-folders of fragments/ too). A template elsewhere is no fragment, whatever it
    holds: a SAM or CloudFormation stack looks the same and must not be judged by a module's
    rules."""
    from cfngen._kinds.module import KIND
    from cfngen._project import folder_kind

    if path.suffix.lower() not in _fragment.EXTENSIONS:
        return None
    for parent in path.absolute().parents:
        if parent.name != _fragment.FRAGMENT_DIR:
            continue
        kind = folder_kind(parent.parent)
        if kind is not None and kind.name == KIND.name:
            return f"checked as a module fragment: it is in {parent}, of the module project"
    return None


def own_type(root: Path | None) -> str | None:
    from cfngen._kinds.module._local import _type_name

    return _type_name(root) if root is not None else None


def check_file(path: Path, *, strict: bool, display: str | None = None) -> FileReport:
    try:
        text = _fragment.fragment_text(path, display=display)
    except _fragment.NotUTF8 as bad:
        # What validate is for: a finding about the file (other commands stop with exit 2).
        finding = Diagnostic(
            "error",
            "",
            bad.reason,
            bad.hint,
            bad.line,
            bad.column,
            code="cfngen/module-fragment-unreadable",
        )
        return FileReport(path=display or str(path), diagnostics=[finding], strict=strict)
    report = check_text(text, path=path, strict=strict, display=display)
    root = project_root(path)
    if root is not None and path.absolute().parent.name == _fragment.FRAGMENT_DIR:
        found = _fragment.fragment_files(root)
        if len(found) > 1:
            others = ", ".join(p.name for p in found if p.name != path.name)
            report.diagnostics.insert(
                0,
                Diagnostic(
                    "error",
                    "",
                    f"a module is exactly one fragment file; {_fragment.FRAGMENT_DIR}/ also "
                    f"holds {others}",
                    "merge them into one template, or move the others out of fragments/",
                    1,
                    1,
                    code="cfngen/module-fragment-not-one-file",
                ),
            )
    return report


def check_text(
    text: str, *, path: Path | None, strict: bool, display: str | None = None
) -> FileReport:
    from cfngen._kinds.module import _cache

    report = FileReport(path=display or (str(path) if path else "<fragment>"), strict=strict)
    root = project_root(path)
    module_type = own_type(root)
    cache_key = _cache.key(text, root=root, own_type=module_type)
    cached = _cache.load(cache_key)
    if cached is not None:
        report.diagnostics, report.schema = cached
        return report
    report.diagnostics, report.schema = _check(text, root=root, own_type=module_type)
    _cache.store(cache_key, report.diagnostics, report.schema)
    return report


def _check(text: str, *, root: Path | None, own_type: str | None) -> tuple[list[Diagnostic], Any]:
    from cfngen._kinds.module._checks import check
    from cfngen._kinds.module._lint import lint

    decoded = decode(text)
    if decoded.template is None:
        syntax = _fragment.syntax_of(text)
        errors = [
            Diagnostic(
                "error",
                "",
                f"the fragment is not valid {syntax}: {message}",
                f"fix its {syntax} syntax; nothing else was checked",
                line,
                column,
                code="cfngen/module-fragment-invalid-syntax",
            )
            for line, column, message in decoded.errors
        ]
        return errors, None
    findings = check(decoded.template, text, root=root, own_type=own_type)
    if isinstance(decoded.template, dict):
        findings += lint(decoded.template)
    return sorted(_dedupe(findings), key=Diagnostic.sort_key), plain(decoded.template)


def _dedupe(items: list[Diagnostic]) -> list[Diagnostic]:
    return list(dict.fromkeys(items))
