"""Golden projects: `cfngen init --no-input` output for a few cases, file set first, then each
file. Refresh them all with:

    CFNGEN_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_init_snapshots.py
"""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cfngen._cli import main
from tests.test_init_support import REPO, cfngen_argv, cfngen_env, project_files

SNAPSHOTS = REPO / "snapshots" / "init"
REFRESH = "CFNGEN_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_init_snapshots.py"
TYPE_NAME = "Acme::Svc::Widget"

CASES = {
    "minimal": ["-t", TYPE_NAME, "--no-tags", "--handlers", "create,read,delete"],
    "tagged": ["-t", TYPE_NAME],
    "type-configuration": ["-t", TYPE_NAME, "--type-configuration"],
    "no-handlers": ["-t", TYPE_NAME, "--handlers", "none"],
    # The working example, under its default type name (Example::SSM::Parameter).
    "example": ["--example"],
}


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CFNGEN_HOME", raising=False)
    return home


def make(dest: Path, args: list[str]) -> dict[str, bytes]:
    code = main(["init", "--no-input", "--no-git", *args, str(dest)])
    assert code == 0
    return project_files(dest)


def refresh(case: str, files: dict[str, bytes]) -> None:
    target = SNAPSHOTS / case
    shutil.rmtree(target, ignore_errors=True)
    for rel, data in files.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


@pytest.mark.parametrize("case", CASES)
def test_init_snapshot(home, tmp_path, case):
    actual = make(tmp_path / "project", CASES[case])
    if os.environ.get("CFNGEN_UPDATE_SNAPSHOTS"):
        refresh(case, actual)
    expected_dir = SNAPSHOTS / case
    assert expected_dir.is_dir(), f"no snapshot for {case}; create it with:\n  {REFRESH}"
    expected = project_files(expected_dir)

    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    assert not missing and not extra, (
        f"file set differs: missing {missing}, unexpected {extra}\n"
        f"if the change is intended, refresh with:\n  {REFRESH}"
    )
    for rel in sorted(expected):
        if actual[rel] != expected[rel]:
            diff = difflib.unified_diff(
                expected[rel].decode(errors="replace").splitlines(keepends=True),
                actual[rel].decode(errors="replace").splitlines(keepends=True),
                f"snapshots/init/{case}/{rel}",
                f"generated/{rel}",
            )
            pytest.fail(
                f"{rel} differs from its snapshot:\n{''.join(diff)}\n"
                f"if the change is intended, refresh with:\n  {REFRESH}"
            )


def test_the_same_bytes_under_another_hash_seed(tmp_path):
    outputs = []
    for seed in ("1", "2"):
        base = tmp_path / seed
        base.mkdir()
        result = subprocess.run(
            [*cfngen_argv(), "init", "--no-input", "--no-git", "-t", TYPE_NAME, "p"],
            cwd=base,
            env=cfngen_env(base, PYTHONHASHSEED=seed),
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        outputs.append(project_files(base / "p"))
    assert outputs[0] == outputs[1]


def test_refresh_command_is_the_documented_one():
    assert REFRESH in (__doc__ or "")
    assert sys.modules[__name__].__file__.endswith("test_init_snapshots.py")
