"""Helpers shared by the init, upgrade, wizard and template-cache tests (no tests here)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

REPO = Path(__file__).resolve().parent.parent


def cfngen_argv() -> list[str]:
    """How to run the cfngen CLI in a subprocess, as a user does."""
    return [sys.executable, "-m", "cfngen"]


def cfngen_env(home: Path, **extra: str) -> dict[str, str]:
    """A hermetic environment: its own HOME (so ~/.cfngen is the test's), no CFNGEN_HOME, the
    repository importable, no colour."""
    env = {k: v for k, v in os.environ.items() if k not in ("CFNGEN_HOME", "FORCE_COLOR")}
    env.update(
        HOME=str(home),
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
        NO_COLOR="1",
        **extra,
    )
    return env


def run_cfngen(
    *args: str, cwd: Path, home: Path, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*cfngen_argv(), *args],
        cwd=cwd,
        env=cfngen_env(home, **env),
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str, *init_args: str) -> Path:
    """The project `cfngen init --no-input --no-git *init_args` makes, made once per test
    session (per xdist worker) in the session's temporary folder: copy it before changing it."""
    base = tmp_path_factory.getbasetemp() / f"made-{name}"
    root = base / name
    if not root.is_dir():
        base.mkdir(exist_ok=True)
        result = run_cfngen("init", "--no-input", "--no-git", *init_args, name, cwd=base, home=base)
        assert result.returncode == 0, result.stdout + result.stderr
    return root


def git(cwd: Path, *args: str, check: bool = True) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=check
    ).stdout


def commit_all(cwd: Path, message: str) -> None:
    git(cwd, "add", "-A")
    git(
        cwd,
        "-c",
        "user.name=Test",
        "-c",
        "user.email=test@example.com",
        "commit",
        "-q",
        "--no-verify",
        "--no-gpg-sign",
        "-m",
        message,
    )


def project_files(root: Path) -> dict[str, bytes]:
    """Every file of a project but .git/, by relative path."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }
