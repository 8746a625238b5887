"""Which files a stretch of code read, as Python's audit hook sees it: the "open" event of
`open`, `Path.read_text`, `os.open` and the import system. A watch session's run forked ahead
of a save asks it, as it must not go on if it read a file the save changed
(cfngen/_watch_standby.py).

What the hook cannot see is said by `spawned`: a program started meanwhile reads what it
likes. Existence checks and folder listings are not reads: a file that came or went is for the
caller to notice.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

#: Audit events of a program started.
_SPAWNS = frozenset({"subprocess.Popen", "os.system", "os.posix_spawn", "os.spawn", "os.exec"})
#: The recordings under way in this process (the hook does nothing when there is none).
_active: list[Reads] = []
_installed: list[bool] = []


class Reads:
    """What was read since `record()` made it, until its `stop()`."""

    def __init__(self) -> None:
        self._opened: set[str] = set()
        #: A program was started meanwhile.
        self.spawned = False

    def stop(self) -> None:
        with contextlib.suppress(ValueError):
            _active.remove(self)

    def read(self, paths: set[str], root: str) -> set[str]:
        """Those of `paths` (real paths below `root`, itself a real path) that were read; a
        cached module's bytecode counts as its source (an import opens one or the other).

        Only what was opened below `root`, or under the name of one of `paths`, is resolved
        (links followed): a stretch of code opens hundreds of library files. Nothing here
        walks sys.modules: in a forked process, touching every module copies every page that
        holds one (844 page faults, 48-62 ms, on the virtual machine it was measured on).
        """
        inside = root + os.sep
        names = {os.path.basename(path) for path in paths}
        found = set()
        for path in set(self._opened):
            folder, name = os.path.split(path)
            source = path
            if os.path.basename(folder) == "__pycache__" and name.endswith(".pyc"):
                source = os.path.join(os.path.dirname(folder), name.split(".", 1)[0] + ".py")
            if source.startswith(inside) or os.path.basename(source) in names:
                real = os.path.realpath(source)
                if real in paths:
                    found.add(real)
        return found


def record() -> Reads:
    """Start recording what this process reads (the hook is installed once, for good: Python
    offers no way to remove one, so it does nothing while nothing is recorded)."""
    if not _installed:
        sys.addaudithook(_audit)
        _installed.append(True)
    reads = Reads()
    _active.append(reads)
    return reads


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _active:
        return
    if event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
        with contextlib.suppress(TypeError, ValueError):
            path = os.path.abspath(os.fsdecode(args[0]))
            for reads in _active:
                reads._opened.add(path)
    elif event in _SPAWNS:
        for reads in _active:
            reads.spawned = True
