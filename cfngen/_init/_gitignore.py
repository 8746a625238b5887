"""The lines a project's .gitignore needs for the files cfngen leaves only while it writes.

A Transaction leaves its journal, staged files and backups in the project while it writes
(cfngen._files.GITIGNORE_LINES); a killed command leaves them until the next one. Every
template's .gitignore names them; `cfngen upgrade` appends the ones a project made earlier
lacks. The .gitignore is the user's: nothing else in it changes, and a project without one
stays without one (deleting it was the user's choice).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cfngen._errors import CfngenError
from cfngen._render import Rendered

_COMMENT = "# What cfngen leaves only while it writes files (added by cfngen upgrade)"


@dataclass
class IgnoredLines:
    #: The lines appended.
    added: list[str] = field(default_factory=list)
    #: The lines that were missing but could not be added, and why.
    missing: list[str] = field(default_factory=list)
    error: str | None = None

    def render(self, text: Rendered) -> None:
        if self.added:
            text.out(
                f"  .gitignore: added {', '.join(self.added)} (what cfngen leaves only while "
                "it writes files)"
            )
        if self.error is not None:
            text.warning(f"{self.error}; add these lines to it yourself: {', '.join(self.missing)}")


def missing_lines(root: Path) -> list[str] | None:
    """The lines of GITIGNORE_LINES that `root/.gitignore` lacks (None: it has no .gitignore)."""
    from cfngen._files import GITIGNORE_LINES, read_optional

    data = read_optional(root / ".gitignore")
    if data is None:
        return None
    present = {line.strip() for line in data.decode("utf-8", "replace").splitlines()}
    return [line for line in GITIGNORE_LINES if line not in present]


def ignore_cfngen_files(root: Path) -> IgnoredLines:
    """Append the missing lines to `root/.gitignore`, under one comment line."""
    from cfngen._files import writable, write_atomic

    result = IgnoredLines()
    try:
        missing = missing_lines(root)
        if not missing:
            return result
        result.missing = missing
        path = writable(root, ".gitignore", what="cfngen upgrade")
    except CfngenError as exc:
        result.error = exc.message
        return result
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        data += b"\n"
    block = [_COMMENT, *missing, ""]
    data += ("\n" if data else "").encode() + "\n".join(block).encode("utf-8")
    write_atomic(path, data)
    result.added, result.missing = missing, []
    return result
