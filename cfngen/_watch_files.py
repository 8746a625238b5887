"""The files a watch session watches, and the batches of them a save changes: watchfiles' native
events (Rust's notify: inotify, FSEvents, ReadDirectoryChangesW), or a look at every file's
size, mtime and inode every `POLL_MS` (file systems that send no events).

watchfiles' debounce (1.6 s by default) alone would exceed the half a second a verdict is meant
to take: a save's events are grouped for `STEP_MS` after the last one, at most `DEBOUNCE_MS`.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

#: watchfiles groups the events of one save for this long after the last one (its `step`)...
STEP_MS = 5
#: ...and at most this long after the first (its `debounce`; 1,600 by default).
DEBOUNCE_MS = 300
#: How often `poll=True` looks at every file (a stat each: ~0.1 ms for the example).
POLL_MS = 50
#: Folders whose files are never the project's sources (caches, build output, tools).
IGNORED_DIRS = frozenset(
    {
        ".git",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".venv",
        "venv",
        "node_modules",
        "build",
        "dist",
        ".hypothesis",
        ".tox",
        ".idea",
        ".vscode",
    }
)
#: Editors' swap, backup and temporary files.
IGNORED_SUFFIXES = (".swp", ".swx", ".swo", "~", ".tmp", ".pyc", ".pyo")


def batches(root: Path, *, poll: bool = False) -> Iterator[set[Path]]:
    """Batches of paths below `root` that saw events: watchfiles' native events, else
    polling."""
    if poll:
        yield from _polled(root)
        return
    import watchfiles

    for batch in watchfiles.watch(
        root,
        watch_filter=lambda _change, path: _watched(root, Path(path)),
        debounce=DEBOUNCE_MS,
        step=STEP_MS,
        raise_interrupt=True,
    ):
        yield {Path(path) for _change, path in batch}


def _polled(root: Path) -> Iterator[set[Path]]:
    """Batches of paths whose size, mtime or inode changed, looked at every POLL_MS.

    Not watchfiles' own polling mode (notify's poll watcher): in the flip test
    (tests/test_watch.py) it missed a save that came within a second of the one before with
    the same size.
    """
    seen = _stats(root)
    while True:
        time.sleep(POLL_MS / 1000)
        now = _stats(root)
        changed = {path for path in seen.keys() | now.keys() if seen.get(path) != now.get(path)}
        seen = now
        if changed:
            yield changed


def _stats(root: Path) -> dict[Path, tuple[int, int, int]]:
    found = {}
    for path in watched_files(root):
        with contextlib.suppress(OSError):
            stat = path.stat()
            found[path] = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
    return found


def watched_files(root: Path) -> Iterator[Path]:
    """Every file below `root` a watch session watches."""
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in IGNORED_DIRS and not d.startswith(".cfngen")]
        for name in files:
            path = Path(directory, name)
            if _watched(root, path):
                yield path


def _watched(root: Path, path: Path) -> bool:
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return False
    if any(part in IGNORED_DIRS or part.startswith(".cfngen") for part in parts[:-1]):
        return False
    name = parts[-1] if parts else ""
    return not (name.endswith(IGNORED_SUFFIXES) or name.startswith(".#"))
