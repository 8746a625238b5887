"""Golden output: `cfngen validate` text for hand-written bad schemas.

One snapshot per input in tests/validate_cases/invalid/, in snapshots/validate/. Refresh them all
with the command in UPDATE, then review the change with `git diff snapshots/validate`.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from cfngen._validate import render_text, validate_file

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "validate_cases" / "invalid"
SNAPSHOTS = ROOT / "snapshots" / "validate"
UPDATE = "CFNGEN_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_validate_snapshots.py"


def _render(case: Path) -> str:
    display = case.relative_to(ROOT).as_posix()
    return render_text([validate_file(case, display=display)])


def _actual() -> dict[str, str]:
    return {case.stem + ".txt": _render(case) for case in sorted(CASES.glob("*.json"))}


def test_snapshots_match():
    actual = _actual()
    if os.environ.get("CFNGEN_UPDATE_SNAPSHOTS"):
        SNAPSHOTS.mkdir(parents=True, exist_ok=True)
        for stale in set(p.name for p in SNAPSHOTS.glob("*.txt")) - set(actual):
            (SNAPSHOTS / stale).unlink()
        for name, text in actual.items():
            (SNAPSHOTS / name).write_text(text, encoding="utf-8")
    expected = {p.name: p.read_text(encoding="utf-8") for p in SNAPSHOTS.glob("*.txt")}
    missing, extra = set(actual) - set(expected), set(expected) - set(actual)
    assert not missing and not extra, (
        f"snapshot files differ: missing {sorted(missing)}, stale {sorted(extra)}\n"
        f"refresh with: {UPDATE}"
    )
    diffs = []
    for name in sorted(actual):
        if actual[name] != expected[name]:
            diffs.extend(
                difflib.unified_diff(
                    expected[name].splitlines(keepends=True),
                    actual[name].splitlines(keepends=True),
                    f"snapshots/validate/{name}",
                    "actual",
                )
            )
    assert not diffs, "".join(diffs) + f"\nrefresh with: {UPDATE}"


@pytest.mark.parametrize("case", sorted(CASES.glob("*.json")), ids=lambda p: p.stem)
def test_every_bad_case_has_findings(case):
    # A case that produced no diagnostics would pin an empty snapshot and prove nothing.
    assert validate_file(case).diagnostics
