"""One file, all or nothing: a temporary sibling, then a rename over the target."""

from __future__ import annotations

import contextlib
import functools
import os
from pathlib import Path


@functools.cache
def umask() -> int:
    """The process's umask, read once (reading it means setting it: do it before any thread)."""
    try:
        # Linux 4.7+ reports it without the set-and-restore race.
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    current = os.umask(0o022)
    os.umask(current)
    return current


def new_file_mode() -> int:
    """The mode `open()` would give a new file: 0o666 less the user's umask."""
    return 0o666 & ~umask()


def write_atomic(path: Path, content: str | bytes, *, mode: int | None = None) -> None:
    """Write to a temporary file in the same folder, then rename it over `path`.

    `os.replace` is atomic on POSIX and Windows when both names are on one file system,
    which a sibling temporary file guarantees. The file keeps the mode of the one it replaces;
    a new file gets the user's umask. Several files that belong together: `Transaction`.
    """
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8") if isinstance(content, str) else content
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if mode is None:
            mode = existing_mode(path)
        os.chmod(tmp, mode if mode is not None else new_file_mode())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def existing_mode(path: Path) -> int | None:
    """The permission bits of the regular file at `path`, or None."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    import stat

    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else None
