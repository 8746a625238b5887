"""Machine formats for checking commands: JUnit XML, SARIF 2.1.0 and GitHub workflow commands.

`validate`, `generate --check` and `test` each turn their result into two neutral shapes —
`Finding`s (a problem at a place: SARIF results, GitHub annotations) and `Case`s (a test that
passed, failed or was skipped: JUnit test cases) — and one renderer per format writes them.
Everything here returns text; the CLI decides where it goes (cfngen/_cli/_output.py).

The renderers are checked against real consumers in tests/test_formats.py: the OASIS SARIF
2.1.0 schema, junitparser, and the escaping rules of GitHub's actions toolkit.
"""

from __future__ import annotations

from cfngen._formats._adapters import (
    drift_cases,
    drift_findings,
    report_cases,
    report_findings,
    suite_cases,
    suite_findings,
)
from cfngen._formats._renderers import github, junit, render, render_error, sarif
from cfngen._formats._shapes import Case, Finding, display_path, rule_id

# The format names live where the CLI reads them without loading the renderers.
from cfngen._render import CI_FORMATS, FORMATS

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
    "render_error",
    "report_cases",
    "report_findings",
    "rule_id",
    "sarif",
    "suite_cases",
    "suite_findings",
]
