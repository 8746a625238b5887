"""A compatibility report as text, as findings and cases for the CI formats."""

from __future__ import annotations

from collections import Counter

from cfngen._compat import CompatReport, Located
from cfngen._formats import Case, Finding, display_path

_WORDS = {"major": "breaking", "minor": "new", "patch": "wording"}


def label(c: Located) -> str:
    if c.accepted:
        return "accepted (minor)"
    if c.change.possibly:
        return "possibly breaking (major unless accepted)"
    return f"{_WORDS[c.bump]} ({c.bump})"


def render_text(report: CompatReport) -> str:
    lines = []
    for c in report.changes:
        where = ":".join(str(p) for p in (report.path, c.line, c.column) if p is not None)
        hint = f" (accept it with --accept {c.change.pointer})" if _open(c) else ""
        lines.append(
            f"{where}: {label(c)}: {c.change.pointer or '/'}: {c.change.message}{hint} "
            f"[{c.change.code}]"
        )
    return "".join(line + "\n" for line in lines)


def summary(report: CompatReport) -> str:
    if not report.compared:
        return f"cfngen: {report.path}: no schema at {report.against}: a first version\n"
    if not report.changes:
        return f"cfngen: {report.path}: the same schema as {report.against}\n"
    counts = Counter(_WORDS[c.bump] for c in report.changes)
    parts = ", ".join(f"{counts[w]} {w}" for w in ("breaking", "new", "wording") if counts[w])
    return (
        f"cfngen: {report.path} against {report.against}: {parts}: "
        f"the change needs a {report.bump} version\n"
    )


def _open(c: Located) -> bool:
    return c.change.possibly and not c.accepted


def findings(report: CompatReport) -> list[Finding]:
    return [
        Finding(
            level="error" if c.bump == "major" else "note",
            rule=c.change.code,
            message=f"{c.change.pointer or '/'}: {label(c)}: {c.change.message}",
            path=display_path(report.path),
            line=c.line,
            column=c.column,
            title=f"cfngen validate --against {report.against}",
        )
        for c in report.changes
    ]


def cases(report: CompatReport) -> list[Case]:
    breaking = [c for c in report.changes if c.bump == "major"]
    return [
        Case(
            suite="cfngen validate",
            name=f"compatible with {report.against}",
            outcome="failed" if breaking else "passed",
            message="; ".join(c.change.message for c in breaking) or None,
            classname=display_path(report.path),
            path=display_path(report.path),
            line=breaking[0].line if breaking else None,
            output=summary(report).removeprefix("cfngen: ").strip(),
        )
    ]
