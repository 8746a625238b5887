"""Golden output: `cfngen validate` text for hand-written bad schemas.

One snapshot per input in tests/validate_cases/invalid/, in snapshots/validate/; the comparator
and the refresh command are the shared ones (tests/conftest.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cfngen._validate import render_text, validate_file

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "validate_cases" / "invalid"


def _render(case: Path) -> str:
    display = case.relative_to(ROOT).as_posix()
    return render_text([validate_file(case, display=display)])


@pytest.mark.snapshot
def test_snapshots_match(golden):
    actual = {
        case.stem + ".txt": _render(case).encode("utf-8") for case in sorted(CASES.glob("*.json"))
    }
    golden("validate", actual)


@pytest.mark.parametrize("case", sorted(CASES.glob("*.json")), ids=lambda p: p.stem)
def test_every_bad_case_has_findings(case):
    # A case that produced no diagnostics would pin an empty snapshot and prove nothing.
    assert validate_file(case).diagnostics
