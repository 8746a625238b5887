"""Results turned into the two neutral shapes: `validate` reports, `test` suite results and
`generate --check` drift, each as Findings (a problem at a place) and Cases (a test case).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._diagnostics import code_of
from cfngen._formats._shapes import Case, Finding, Level, display_path, rule_id

if TYPE_CHECKING:
    from cfngen._contract._results import SuiteResult, TestResult
    from cfngen._generate import GenerateResult
    from cfngen._validate._file_report import FileReport


def report_findings(reports: Sequence[FileReport]) -> list[Finding]:
    """Every diagnostic of `cfngen validate` (or generate's validation) as a finding."""
    found = []
    for report in reports:
        for d in report.diagnostics:
            # With --strict a warning fails the run: say so in the level too.
            level: Level = "error" if d.severity == "error" or report.strict else "warning"
            message = f"{d.pointer or '/'}: {d.message}"
            if d.hint:
                message += f" ({d.hint})"
            found.append(
                Finding(
                    level=level,
                    rule=code_of(d),
                    message=message,
                    path=display_path(report.path),
                    line=d.line,
                    column=d.column,
                    title=f"cfngen validate: {d.pointer or '/'}",
                )
            )
    return found


def report_cases(reports: Sequence[FileReport], *, suite: str = "cfngen validate") -> list[Case]:
    """One test case per file validated: failed when the file is invalid."""
    from cfngen._validate import render_text

    cases = []
    for report in reports:
        text = render_text([report]).rstrip("\n") or None
        errors = sum(1 for d in report.diagnostics if d.severity == "error")
        warnings = len(report.diagnostics) - errors
        cases.append(
            Case(
                suite=suite,
                name=display_path(report.path),
                classname="validate",
                path=display_path(report.path),
                outcome="passed" if report.valid else "failed",
                message=(
                    None if report.valid else f"{errors} error(s), {warnings} warning(s)\n{text}"
                ),
                output=text if report.valid else None,
            )
        )
    return cases


def suite_cases(
    result: SuiteResult, *, suite: str, path: str | None = None, root: Path | None = None
) -> list[Case]:
    """One test case per contract test, named as `cfngen test` names it; a failure a handler
    crash caused points at the line of the handler's code where it happened."""
    cases = []
    for test in result.tests:
        where, line = _where(test, path, root)
        cases.append(
            Case(
                suite=suite,
                name=test.name,
                classname=suite,
                outcome=test.outcome,
                message=test.message,
                seconds=test.seconds,
                path=where,
                line=line if test.outcome == "failed" else None,
                output="\n".join(f"warning: {w}" for w in test.warnings) or None,
            )
        )
    return cases


def suite_findings(
    result: SuiteResult, *, path: str | None = None, root: Path | None = None
) -> list[Finding]:
    """A finding per failed contract test: at the line of the handler's code a crash came
    from (the deepest frame in the project's files), else on the handlers file; and a warning
    per distinct warning the tests gave."""
    found = []
    for test in result.tests:
        if test.outcome != "failed":
            continue
        where, line = _where(test, path, root)
        found.append(
            Finding(
                level="error",
                rule=test.code or f"cfngen-test/{test.name}",
                message=f"{test.name}: {test.message or 'failed'}",
                path=where,
                line=line,
                title=f"cfngen test: {test.name}",
            )
        )
    codes = {w: c for test in result.tests for w, c in test.warning_codes.items()}
    for warning, tests in result.warnings().items():
        found.append(
            Finding(
                level="warning",
                rule=codes.get(warning) or rule_id(warning, prefix="cfngen-test"),
                message=f"{warning} (in {', '.join(tests)})",
                path=path,
                line=1 if path else None,
                title="cfngen test: warning",
            )
        )
    return found


def _where(test: TestResult, path: str | None, root: Path | None) -> tuple[str | None, int | None]:
    """The file and line a test's result is about: its cause's, else the handlers file."""
    if test.location is not None and root is not None:
        return display_path(root / test.location[0]), test.location[1]
    return path, 1 if path else None


def drift_cases(result: GenerateResult, *, root: Path, suite: str) -> list[Case]:
    """`generate --check`: one test case per derived file, failed when it is out of date."""
    drift = set(result.drift)
    cases = []
    for path in sorted({*result.drift, *result.unchanged}):
        edited = path in result.edited
        state = "edited by hand" if edited else "out of date"
        shown = display_path(root / path)
        cases.append(
            Case(
                suite=suite,
                name=shown,
                classname="generate",
                path=shown,
                outcome="failed" if path in drift else "passed",
                message=(
                    f"{shown} is {state}; run `cfngen generate` to refresh it"
                    if path in drift
                    else None
                ),
            )
        )
    return cases


def drift_findings(result: GenerateResult, *, root: Path) -> list[Finding]:
    found = []
    for path in result.drift:
        edited = path in result.edited
        shown = display_path(root / path)
        found.append(
            Finding(
                level="error",
                rule="cfngen/derived-file-edited" if edited else "cfngen/derived-file-out-of-date",
                message=(
                    f"{shown} was edited by hand since cfngen generated it"
                    if edited
                    else f"{shown} is out of date; run `cfngen generate` to refresh it"
                ),
                path=shown,
                line=1,
                title="cfngen generate --check",
            )
        )
    return found
