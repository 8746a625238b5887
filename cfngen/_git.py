"""The few git operations init, upgrade and the template cache need, run as subprocesses.

GitPython or dulwich would add a dependency for a dozen plumbing calls; copier itself shells out
to git, so git on PATH is already a requirement of everything in this package.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from cfngen._errors import CfngenError


def git_available() -> bool:
    return shutil.which("git") is not None


def require_git(why: str) -> None:
    if not git_available():
        raise CfngenError(f"git is not installed; {why}", "install git and retry")


def git(
    args: Sequence[str],
    cwd: Path,
    *,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    full_env = None if env is None else {**os.environ, **env}
    result = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env=full_env,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    if check and result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        raise CfngenError(
            f"`git {' '.join(args[:2])}` failed in {cwd}: {detail[-1] if detail else 'no output'}",
            "check that git works in that folder",
        )
    return result


def work_tree_root(path: Path) -> Path | None:
    """The root of the git work tree `path` is in, or None (also when git is missing)."""
    probe = path
    while not probe.exists():
        probe = probe.parent
    if not git_available():
        return None
    result = git(["rev-parse", "--show-toplevel"], probe, check=False)
    if result.returncode != 0:
        return None
    return Path(result.stdout.strip())


def has_identity(cwd: Path) -> bool:
    """Whether git knows who commits here (user.name and user.email, any config level)."""
    return all(
        git(["config", "--get", key], cwd, check=False).stdout.strip()
        for key in ("user.name", "user.email")
    )


def status_porcelain(cwd: Path) -> list[str]:
    """The paths under `cwd` (not elsewhere in its repository) whose tracked content has
    uncommitted changes, relative to `cwd`. Files git does not track are `untracked`'s."""
    out = git(
        ["-c", "core.quotePath=false", "status", "--short", "--untracked-files=no", "--", "."],
        cwd,
    ).stdout
    return [line[3:] for line in out.splitlines() if len(line) > 3]


def untracked(cwd: Path) -> set[str]:
    """The files under `cwd` that git neither tracks nor ignores, relative to `cwd`."""
    out = git(["ls-files", "-z", "--others", "--exclude-standard", "--", "."], cwd).stdout
    return {name for name in out.split("\0") if name}
