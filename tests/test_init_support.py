"""Helpers shared by the init, upgrade, wizard and template-cache tests (no tests here)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# Made once per session for every xdist worker; kept importable from here for older tests.
from tests.conftest import made_once  # noqa: F401

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
