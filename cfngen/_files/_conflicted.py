"""Which files cfngen derives hold git's conflict markers: the one answer generate, `--check`,
the contract runner and build ask (each engine passes its kind's `may_derive`, so this layer
knows no kind).

Standard library only: the project's folders are walked (not hidden ones, `__pycache__`,
`node_modules` or virtual environments), and only files at derived paths are read.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from cfngen._errors import CfngenError, ExitCode
from cfngen._files._conflicts import conflict_line
from cfngen._files._digest import sha256
from cfngen._files._ownership import MANIFEST_PATH, Manifest, load_manifest
from cfngen._files._read import inspect, read_optional


class ConflictsError(CfngenError):
    """Files cfngen derives hold git's conflict markers: nothing was run or built."""

    def __init__(self, conflicts: dict[str, int], outcome: str) -> None:
        listed = ", ".join(f"{path} (line {line})" for path, line in sorted(conflicts.items()))
        verb = "holds" if len(conflicts) == 1 else "hold"
        super().__init__(
            f"{listed} {verb} git conflict markers, and cfngen derives "
            f"{'it' if len(conflicts) == 1 else 'them'}; {outcome}",
            "resolve the conflict in the schema, then run `cfngen generate`: it derives its "
            "files again (it leaves a file that is yours to you: resolve that one by hand)",
            exit_code=ExitCode.FAILED,
        )
        self.conflicts = conflicts


def conflicted_files(
    root: Path, may_derive: Callable[[str], bool], manifest: Manifest | None = None
) -> dict[str, int]:
    """Files below `root` at paths `may_derive` allows, and the manifest, that hold git's
    conflict markers, by posix path -> the line of the first; bytes the manifest records
    cfngen writing are not counted (a schema's description may hold such lines)."""
    if manifest is None:
        manifest = load_manifest(root, may_derive)
    found: dict[str, int] = {}
    for relpath in [MANIFEST_PATH, *_derived_on_disk(root, may_derive)]:
        try:
            data = read_optional(root / relpath) if inspect(root / relpath).kind == "file" else None
        except CfngenError:  # what generate cannot read, it says so itself
            continue
        line = None if data is None else conflict_line(data)
        if line is not None and manifest.files.get(relpath) != sha256(data or b""):
            found[relpath] = line
    return found


def _derived_on_disk(root: Path, may_derive: Callable[[str], bool]) -> list[str]:
    found = []
    for folder, folders, files in os.walk(root):
        here = Path(folder)
        folders[:] = sorted(
            name
            for name in folders
            if not name.startswith(".")
            and name not in ("__pycache__", "node_modules")
            and not (here / name / "pyvenv.cfg").is_file()
        )
        for name in sorted(files):
            relpath = (here / name).relative_to(root).as_posix()
            if may_derive(relpath):
                found.append(relpath)
    return found


def refuse_conflicts(root: Path, may_derive: Callable[[str], bool], outcome: str) -> None:
    """Raise ConflictsError (exit 1, `outcome` saying what did not happen) while a file cfngen
    derives holds git's conflict markers: `cfngen test`, `invoke` and `build` ask this."""
    conflicts = conflicted_files(root, may_derive)
    if conflicts:
        raise ConflictsError(conflicts, outcome)
