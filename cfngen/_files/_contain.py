"""Where a path that a project names may lead cfngen, by what cfngen does with it.

A cloned repository is untrusted input: a journal, a manifest, a template's `CodeUri` or a
symbolic link in it can name any path. Two rules, checked after following symbolic links:

- what cfngen writes, renames or deletes stays inside the project (`writable`);
- what cfngen only reads to run or pack code may leave the project (monorepos share
  `../shared`) but not the repository holding it: the git work tree's top, else the project
  itself (`readable`).
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from cfngen._errors import CfngenError


def canonical(relpath: str) -> str | None:
    """`relpath` as one spelling (`./a//b` -> `a/b`), or None when it is absolute, empty or
    climbs out with `..`."""
    if not relpath or "\0" in relpath or relpath.startswith(("/", "\\")):
        return None
    parts = [p for p in PurePosixPath(relpath).parts if p != "."]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


def repository_root(project: Path) -> Path:
    """The top of the git work tree `project` is in (the nearest folder up with a `.git`,
    a folder or, in a linked work tree or submodule, a file), else `project` itself.

    Read from the file system, not from `git`: it is asked on every run and build, and needs
    no git on PATH."""
    start = Path(os.path.realpath(project))
    for folder in (start, *start.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return start


def within(base: Path, path: Path) -> bool:
    """Whether `path` is `base` or below it once symbolic links are followed (both sides)."""
    real_base = os.path.realpath(base)
    real = os.path.realpath(path)
    return real == real_base or real.startswith(real_base.rstrip(os.sep) + os.sep)


def readable(path: Path, repository: Path, *, what: str) -> Path:
    """`path` with its links followed, if that stays within `repository`; else a CfngenError
    naming `what` (e.g. "CodeUri of MyFunction"), the path and where it leads."""
    real = Path(os.path.realpath(path))
    if within(repository, real):
        return real
    leads = "" if str(real) == os.path.abspath(path) else f" (it leads to {real})"
    raise CfngenError(
        f"{what}: {path} is outside the repository {repository}{leads}; cfngen never reads "
        "code from outside the repository that holds the project",
        "move or copy it into the repository",
    )


def writable(root: Path, relpath: str, *, what: str) -> Path:
    """`root/relpath`, if `relpath` is relative, never climbs out with `..`, and stays inside
    `root` once every link on the way (the file itself included) is followed; else a
    CfngenError naming `what` (e.g. the file that listed the path)."""
    clean = canonical(relpath)
    if clean is None:
        raise CfngenError(
            f"{what} names {relpath!r}, which is not a path inside {root}",
            "cfngen only writes or removes files inside the project",
        )
    target = Path(root) / clean
    if not within(root, target):
        raise CfngenError(
            f"{what} names {clean}, which leads outside {root} (to {os.path.realpath(target)})",
            "cfngen only writes or removes files inside the project",
        )
    return target
