"""Machine formats for checking commands: JUnit XML, SARIF 2.1.0 and GitHub workflow commands.

`validate`, `generate --check` and `test` each turn their result into two neutral shapes —
`Finding`s (a problem at a place: SARIF results, GitHub annotations) and `Case`s (a test that
passed, failed or was skipped: JUnit test cases) — and one renderer per format writes them.
Everything here returns text; the CLI decides where it goes (cfngen/_cli/_output.py).

The renderers are checked against real consumers in tests/test_formats.py: the OASIS SARIF
2.1.0 schema, junitparser, and the escaping rules of GitHub's actions toolkit.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Literal

from cfngen import __version__

if TYPE_CHECKING:
    from cfngen._contract._results import SuiteResult
    from cfngen._generate import GenerateResult
    from cfngen._validate import FileReport

__all__ = [
    "CI_FORMATS",
    "FORMATS",
    "Case",
    "Finding",
    "display_path",
    "drift_cases",
    "drift_findings",
    "github",
    "junit",
    "render",
    "report_cases",
    "report_findings",
    "rule_id",
    "sarif",
    "suite_cases",
    "suite_findings",
]

#: Every `--format` a checking command takes, the default first.
FORMATS = ("text", "json", "junit", "sarif", "github")
#: The ones this module renders.
CI_FORMATS = ("junit", "sarif", "github")

Level = Literal["error", "warning", "note"]
Outcome = Literal["passed", "failed", "skipped"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_INFORMATION_URI = "https://pypi.org/project/cfngen/"


@dataclass(frozen=True)
class Finding:
    """A problem at a place: a SARIF result, a GitHub annotation."""

    level: Level
    #: A stable id for the kind of problem (SARIF ruleId): `cfngen/<slug>`.
    rule: str
    message: str
    #: The file, relative to the current folder where it is inside it (posix separators).
    path: str | None = None
    line: int | None = None
    column: int | None = None
    #: A short title (GitHub shows it above the message).
    title: str | None = None


@dataclass(frozen=True)
class Case:
    """A test case: a file validated, a contract test run, a derived file checked."""

    #: The test suite it belongs to (a project, the files validated).
    suite: str
    name: str
    outcome: Outcome
    message: str | None = None
    seconds: float = 0.0
    classname: str | None = None
    path: str | None = None
    #: Text worth keeping beside a passing case (warnings).
    output: str | None = None


# --- rule ids --------------------------------------------------------------------------------

_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`|\([^)]*\)")
_WORD = re.compile(r"[a-z]+")
_NOISE = {"a", "an", "the", "is", "are", "of", "to", "in", "it", "its", "be"}


def rule_id(message: str, *, prefix: str = "cfngen") -> str:
    """A stable id for the kind of problem a message describes: quoted names, numbers,
    pointers and parenthesised details (the parts that vary between findings) left out.
    `duplicate key 'Foo' (first at line 3)` -> `cfngen/duplicate-key`."""
    text = _QUOTED.sub(" ", message.lower())
    text = re.sub(r"\S*/\S*", " ", text)  # pointers, paths
    words = [w for w in _WORD.findall(text) if w not in _NOISE][:6]
    return f"{prefix}/{'-'.join(words) or 'problem'}"


def display_path(path: str | Path) -> str:
    """A path as a finding names it: relative to the current folder when inside it."""
    p = Path(path)
    if p.is_absolute():
        try:
            p = p.relative_to(Path.cwd())
        except ValueError:
            return p.as_posix()
    return p.as_posix()


# --- adapters: results -> findings and cases -------------------------------------------------


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
                    rule=rule_id(d.message),
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


def suite_cases(result: SuiteResult, *, suite: str, path: str | None = None) -> list[Case]:
    """One test case per contract test, named as `cfngen test` names it."""
    return [
        Case(
            suite=suite,
            name=test.name,
            classname=suite,
            outcome=test.outcome,
            message=test.message,
            seconds=test.seconds,
            path=path,
        )
        for test in result.tests
    ]


def suite_findings(result: SuiteResult, *, path: str | None = None) -> list[Finding]:
    """A finding per failed contract test (on the handlers file, when known)."""
    return [
        Finding(
            level="error",
            rule=f"cfngen-test/{test.name}",
            message=f"{test.name}: {test.message or 'failed'}",
            path=path,
            line=1 if path else None,
            title=f"cfngen test: {test.name}",
        )
        for test in result.tests
        if test.outcome == "failed"
    ]


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


# --- renderers -------------------------------------------------------------------------------


def render(fmt: str, *, findings: Sequence[Finding], cases: Sequence[Case], tool: str) -> str:
    """The text of one CI format (`junit`, `sarif` or `github`)."""
    if fmt == "junit":
        return junit(cases, name=tool)
    if fmt == "sarif":
        return sarif(findings)
    if fmt == "github":
        return github(findings)
    raise ValueError(f"not a CI format: {fmt}")


def junit(cases: Iterable[Case], *, name: str = "cfngen") -> str:
    """JUnit XML as Jenkins, GitLab and the test-report actions read it: a <testsuites> with
    one <testsuite> per suite, a <testcase> per case, <failure>/<skipped> with the message."""
    import xml.etree.ElementTree as ET

    by_suite: dict[str, list[Case]] = {}
    for case in cases:
        by_suite.setdefault(case.suite, []).append(case)
    root = ET.Element("testsuites", name=name)
    totals = {"tests": 0, "failures": 0, "skipped": 0, "time": 0.0}
    for suite_name, members in by_suite.items():
        failures = sum(1 for c in members if c.outcome == "failed")
        skipped = sum(1 for c in members if c.outcome == "skipped")
        seconds = sum(c.seconds for c in members)
        suite = ET.SubElement(
            root,
            "testsuite",
            name=suite_name,
            tests=str(len(members)),
            failures=str(failures),
            errors="0",
            skipped=str(skipped),
            time=f"{seconds:.3f}",
        )
        totals["tests"] += len(members)
        totals["failures"] += failures
        totals["skipped"] += skipped
        totals["time"] += seconds
        for case in members:
            attrs = {"name": case.name, "classname": case.classname or suite_name}
            attrs["time"] = f"{case.seconds:.3f}"
            if case.path:
                attrs["file"] = case.path
            element = ET.SubElement(suite, "testcase", attrs)
            if case.outcome == "failed":
                failure = ET.SubElement(
                    element, "failure", message=_first_line(case.message or "failed")
                )
                failure.set("type", "AssertionError")
                failure.text = _xml_text(case.message or "failed")
            elif case.outcome == "skipped":
                ET.SubElement(element, "skipped", message=_xml_text(case.message or "skipped"))
            if case.output:
                ET.SubElement(element, "system-out").text = _xml_text(case.output)
    for key in ("tests", "failures", "skipped"):
        root.set(key, str(totals[key]))
    root.set("errors", "0")
    root.set("time", f"{totals['time']:.3f}")
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'


_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    """XML 1.0 cannot hold control characters at all (not even escaped): show them."""
    return _XML_BAD.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _first_line(text: str) -> str:
    return _xml_text(text.strip().splitlines()[0] if text.strip() else text)


def sarif(findings: Sequence[Finding]) -> str:
    """One SARIF 2.1.0 log with one run; every rule a finding uses is described once."""
    rules: dict[str, dict[str, Any]] = {}
    results = []
    for finding in findings:
        if finding.rule not in rules:
            rules[finding.rule] = {
                "id": finding.rule,
                "name": _rule_name(finding.rule),
                "shortDescription": {"text": _rule_text(finding.rule)},
                "defaultConfiguration": {"level": finding.level},
            }
        result: dict[str, Any] = {
            "ruleId": finding.rule,
            "ruleIndex": list(rules).index(finding.rule),
            "level": finding.level,
            "message": {"text": finding.message},
        }
        if finding.path:
            physical: dict[str, Any] = {
                "artifactLocation": _artifact(finding.path),
            }
            if finding.line:
                region = {"startLine": finding.line}
                if finding.column:
                    region["startColumn"] = finding.column
                physical["region"] = region
            result["locations"] = [{"physicalLocation": physical}]
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "cfngen",
                        "version": __version__,
                        "informationUri": _INFORMATION_URI,
                        "rules": list(rules.values()),
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"


def _artifact(path: str) -> dict[str, str]:
    from urllib.parse import quote

    p = PurePosixPath(path)
    if p.is_absolute():
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(p.as_posix()), "uriBaseId": "%SRCROOT%"}


def _rule_text(rule: str) -> str:
    words = rule.rsplit("/", 1)[-1].replace("-", " ").replace("_", " ")
    return words[:1].upper() + words[1:]


def _rule_name(rule: str) -> str:
    """SARIF rule names are PascalCase identifiers by convention."""
    tail = rule.rsplit("/", 1)[-1]
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", tail))


def github(findings: Iterable[Finding]) -> str:
    """GitHub workflow commands: `::error file=F,line=L,col=C,title=T::message`, warnings
    as `::warning`. Escaped as the actions toolkit does, so a message may span lines."""
    lines = []
    for finding in findings:
        props = []
        if finding.path:
            props.append(f"file={_gh_property(finding.path)}")
            if finding.line:
                props.append(f"line={finding.line}")
                if finding.column:
                    props.append(f"col={finding.column}")
        if finding.title:
            props.append(f"title={_gh_property(finding.title)}")
        command = "error" if finding.level == "error" else "warning"
        joined = " " + ",".join(props) if props else ""
        lines.append(f"::{command}{joined}::{_gh_data(finding.message)}")
    return "".join(line + "\n" for line in lines)


def _gh_data(text: str) -> str:
    # toolkit/packages/core/src/command.ts: escapeData
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text: str) -> str:
    # toolkit/packages/core/src/command.ts: escapeProperty
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")
