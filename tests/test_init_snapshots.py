"""Golden projects: `cfngen init --no-input` output for a few cases, in snapshots/init/<case>/;
the comparator and the refresh command are the shared ones (tests/conftest.py)."""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import other_hash_seed
from tests.test_init_support import cfngen_argv, cfngen_env, project_files

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


@pytest.mark.snapshot
@pytest.mark.parametrize("case", CASES)
def test_init_snapshot(home, tmp_path, case, cli, golden):
    dest = tmp_path / "project"
    result = cli("init", "--no-input", "--no-git", *CASES[case], dest)
    assert result.exit_code == 0, result.stderr
    golden(f"init/{case}", project_files(dest))


def test_the_same_bytes_under_another_hash_seed(home, tmp_path, cli, monkeypatch):
    """This process, under its own hash seed, and another process under another write the same
    project. Both render the models: nothing read from the model cache."""
    monkeypatch.setenv("CFNGEN_NO_CACHE", "1")
    here = tmp_path / "here" / "p"
    made = cli("init", "--no-input", "--no-git", "-t", TYPE_NAME, here)
    assert made.exit_code == 0, made.stderr
    base = tmp_path / "there"
    base.mkdir()
    result = subprocess.run(
        [*cfngen_argv(), "init", "--no-input", "--no-git", "-t", TYPE_NAME, "p"],
        cwd=base,
        env=cfngen_env(base, PYTHONHASHSEED=other_hash_seed(), CFNGEN_NO_CACHE="1"),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert project_files(base / "p") == project_files(here)
