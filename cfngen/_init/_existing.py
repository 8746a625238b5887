"""`cfngen init --force`: the files a folder already has where the project has its own.

An existing file is never replaced: it is kept, and the project's version is not written. The
kept versions are what the project will hold, so they are put into the workspace before generate
runs (`take_existing`): nothing is derived from a template file the project does not get, and
when generate fails on a kept file (an invalid schema) init says so and derives nothing
(`not_derived`). After generate, every file the folder already has is dropped from what init
writes (`set_aside_existing`).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from cfngen._errors import CfngenError


def files_of(project: Path) -> list[str]:
    return sorted(
        p.relative_to(project).as_posix()
        for p in project.rglob("*")
        if not p.is_dir() and ".git" not in p.relative_to(project).parts
    )


def take_existing(project: Path, dest: Path) -> list[str]:
    """Put the destination's own version of each template file it already has into the
    workspace (it is the one the project keeps), so generate derives from what the project
    will hold. A kept path that is not a regular file in the destination (or a link to one
    there) leaves the workspace without that file. Returns the kept paths."""
    from cfngen._files import inspect, read_optional, within

    kept = []
    for rel in files_of(project):
        target = dest / rel
        if not os.path.lexists(target):
            continue
        kept.append(rel)
        entry = inspect(target)
        data = None
        if entry.kind == "file" or (entry.kind == "symlink" and within(dest, target)):
            with contextlib.suppress(CfngenError):
                data = read_optional(target)
        if data is None:
            (project / rel).unlink()
        else:
            (project / rel).write_bytes(data)
    return kept


def not_derived(kept: list[str], error: CfngenError) -> str:
    """Why a forced init derived nothing: generate failed on the files the folder kept."""
    report = getattr(error, "report", None)
    found = [d for d in getattr(report, "diagnostics", []) if d.severity == "error"]
    why = (
        f"{report.path}:{found[0].line or 1}: {found[0].message}"
        if report is not None and found
        else error.message
    )
    return (
        f"`cfngen generate` fails on the project with the files kept from the folder "
        f"({', '.join(kept)}): {why}; nothing was derived, from them or from the template's "
        "versions; fix them (`cfngen validate` lists every problem), then run `cfngen generate`"
    )


def set_aside_existing(project: Path, dest: Path) -> list[str]:
    """Drop from the staged project every file the destination already has (the user's stay
    theirs), so the commit and the manifest describe what init really adds."""
    from cfngen._files._ownership import disown

    kept = [
        rel
        for rel in files_of(project)
        if any(
            os.path.lexists(dest / part) and not (dest / part).is_dir() for part in _prefixes(rel)
        )
        or os.path.lexists(dest / rel)
    ]
    for rel in kept:
        (project / rel).unlink()
    disown(project, kept)
    return kept


def _prefixes(relpath: str) -> list[str]:
    """`a/b/c` -> [`a`, `a/b`]: folders that must not be files in the destination."""
    parts = relpath.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]
