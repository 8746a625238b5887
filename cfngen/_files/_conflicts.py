"""git's conflict markers: the one detector generate, `--check`, the contract runner and build
ask, and the two sides of a conflicted file that git keeps in its index during a merge.

A conflicted file holds at least one block git wrote, each marker at the start of its own line:

    <<<<<<< ours-label
    ...
    ||||||| base-label     (diff3 and zdiff3 styles only)
    ...
    =======
    ...
    >>>>>>> theirs-label

A marker is 7 or more of its character (git's `conflict-marker-size` attribute, and the longer
markers of a recursive merge's inner conflicts), alone on the line or followed by a space and a
label (`=======` is always alone). A lone `=======` is a Markdown heading's underline and a
`<<<<<<<` may stand in a description, so only the three in that order make a conflict.
"""

from __future__ import annotations

import re
from pathlib import Path

_OPEN = re.compile(rb"^<{7,}(?: [^\r\n]*)?\r?$", re.MULTILINE)
_MIDDLE = re.compile(rb"^={7,}\r?$", re.MULTILINE)
_CLOSE = re.compile(rb"^>{7,}(?: [^\r\n]*)?\r?$", re.MULTILINE)


def conflict_line(data: bytes) -> int | None:
    """The line number (from 1) of the first `<<<<<<<` that opens a conflict block in
    `data`, or None when it holds none."""
    start = 0
    while (opened := _OPEN.search(data, start)) is not None:
        middle = _MIDDLE.search(data, opened.end())
        if middle is None:
            return None
        if _CLOSE.search(data, middle.end()) is not None:
            return data.count(b"\n", 0, opened.start()) + 1
        start = opened.end()
    return None


def merge_sides(root: Path, relpath: str) -> list[bytes]:
    """The versions of `relpath` (below `root`) that git keeps in its index while the file is
    unmerged: ours (stage 2) and theirs (stage 3), those that exist; [] when there is no
    merge in progress, no repository or no git. One `git show` for each."""
    from cfngen._git import git, git_available

    if not git_available():
        return []
    sides = []
    for stage in (2, 3):
        # `./` makes the path relative to `root`, wherever the repository's top is.
        try:
            shown = git(["show", f":{stage}:./{relpath}"], root, check=False)
        except (OSError, ValueError):  # git vanished, or bytes that are not text
            continue
        if shown.returncode == 0:
            sides.append(shown.stdout.encode("utf-8"))
    return sides
