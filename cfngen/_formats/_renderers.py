"""One renderer per format: JUnit XML from Cases, SARIF 2.1.0 and GitHub workflow commands
from Findings. Each returns text; the CLI decides where it goes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from cfngen import __version__
from cfngen._formats._shapes import Case, Finding, visible

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_INFORMATION_URI = "https://pypi.org/project/cfngen/"


def render(fmt: str, *, findings: Sequence[Finding], cases: Sequence[Case], tool: str) -> str:
    """The text of one CI format (`junit`, `sarif` or `github`)."""
    if fmt == "junit":
        return junit(cases, name=tool)
    if fmt == "sarif":
        return sarif(findings)
    if fmt == "github":
        return github(findings)
    raise ValueError(f"not a CI format: {fmt}")


def render_error(fmt: str, *, tool: str, message: str, exit_code: int) -> str:
    """A report in a CI format for a run that could not check anything (a missing file, a
    bad option): a CI job reading it finds a valid document that says so, not nothing."""
    if fmt == "junit":
        return junit([], name=tool, error=(message, exit_code))
    if fmt == "sarif":
        return sarif([], error=(message, exit_code))
    if fmt == "github":
        return github([Finding("error", "cfngen/run-failed", message, title=tool)])
    raise ValueError(f"not a CI format: {fmt}")


def junit(
    cases: Iterable[Case], *, name: str = "cfngen", error: tuple[str, int] | None = None
) -> str:
    """JUnit XML as Jenkins, GitLab and the test-report actions read it: a <testsuites> with
    one <testsuite> per suite, a <testcase> per case, <failure>/<skipped> with the message."""
    import xml.etree.ElementTree as ET

    by_suite: dict[str, list[Case]] = {}
    for case in cases:
        by_suite.setdefault(case.suite, []).append(case)
    root = ET.Element("testsuites", name=visible(name))
    totals = {"tests": 0, "failures": 0, "skipped": 0, "time": 0.0}
    for suite_name, members in by_suite.items():
        failures = sum(1 for c in members if c.outcome == "failed")
        skipped = sum(1 for c in members if c.outcome == "skipped")
        seconds = sum(c.seconds for c in members)
        suite = ET.SubElement(
            root,
            "testsuite",
            name=visible(suite_name),
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
                if case.line:
                    attrs["line"] = str(case.line)
            element = ET.SubElement(suite, "testcase", {k: visible(v) for k, v in attrs.items()})
            if case.outcome == "failed":
                failure = ET.SubElement(
                    element, "failure", message=_first_line(case.message or "failed")
                )
                failure.set("type", "AssertionError")
                failure.text = visible(case.message or "failed")
            elif case.outcome == "skipped":
                ET.SubElement(element, "skipped", message=visible(case.message or "skipped"))
            if case.output:
                ET.SubElement(element, "system-out").text = visible(case.output)
    errors = 0
    if error is not None:  # the run itself failed: one test case in error, as JUnit says it
        text, code = error
        errors = 1
        totals["tests"] += 1
        suite = ET.SubElement(
            root, "testsuite", name=visible(name), tests="1", failures="0", errors="1"
        )
        suite.set("skipped", "0")
        suite.set("time", "0.000")
        element = ET.SubElement(suite, "testcase", name=visible(name), classname=visible(name))
        element.set("time", "0.000")
        failed = ET.SubElement(element, "error", message=_first_line(text), type=f"exit {code}")
        failed.text = visible(text)
    for key in ("tests", "failures", "skipped"):
        root.set(key, str(totals[key]))
    root.set("errors", str(errors))
    root.set("time", f"{totals['time']:.3f}")
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'


def _first_line(text: str) -> str:
    return visible(text.strip().splitlines()[0] if text.strip() else text)


def sarif(findings: Sequence[Finding], *, error: tuple[str, int] | None = None) -> str:
    """One SARIF 2.1.0 log with one run; every rule a finding uses is described once. A run
    that failed (`error`: message, exit code) says so in its invocation, as SARIF does."""
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
                "artifactLocation": _artifact(visible(finding.path)),
            }
            if finding.line:
                region = {"startLine": finding.line}
                if finding.column:
                    region["startColumn"] = finding.column
                physical["region"] = region
            result["locations"] = [{"physicalLocation": physical}]
        results.append(result)
    log: dict[str, Any] = {
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
    if error is not None:
        text, code = error
        log["runs"][0]["invocations"] = [
            {
                "executionSuccessful": False,
                "exitCode": code,
                "toolExecutionNotifications": [{"level": "error", "message": {"text": text}}],
            }
        ]
    return json.dumps(_visible_strings(log), indent=2) + "\n"


def _visible_strings(value: Any) -> Any:
    """Every string of a JSON document passed through `visible`."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {key: _visible_strings(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_visible_strings(item) for item in value]
    return value


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
    as `::warning`, notes as `::notice`. Escaped as the actions toolkit does, so a message
    may span lines."""
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
        command = {"error": "error", "warning": "warning"}.get(finding.level, "notice")
        joined = " " + ",".join(props) if props else ""
        lines.append(f"::{command}{joined}::{_gh_data(finding.message)}")
    return "".join(line + "\n" for line in lines)


def _gh_data(text: str) -> str:
    # toolkit/packages/core/src/command.ts: escapeData, after what no format may carry
    return visible(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text: str) -> str:
    # toolkit/packages/core/src/command.ts: escapeProperty
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")
