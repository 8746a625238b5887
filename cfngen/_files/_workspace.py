"""Private folders to build something in before it is moved into place, which never outlive
their owner for good: a workspace whose process died (even by SIGKILL) is swept away by the
next one made in the same folder.

Each workspace is `.cfngen-<purpose>-XXXX` holding an `owner` file, and its process holds an
advisory lock on it while it lives; the kernel drops the lock when the process ends, however
it ends. No lock: nobody owns it.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from cfngen._files._locks import fcntl
from cfngen._files._signals import signals_deferred

_OWNER = "owner"
#: A workspace without its owner file is only swept this long after it was made (its maker
#: may be between creating it and locking it).
_GRACE_SECONDS = 60.0


def prefix(purpose: str) -> str:
    return f".cfngen-{purpose}-"


class Workspace:
    """A private folder in `parent`; `close()` removes it (call it in a `finally`)."""

    def __init__(self, parent: Path, purpose: str) -> None:
        """Make it under the caller's signals_deferred() and inside its try, so that an
        interrupt cannot fall between making it and the `finally` that removes it."""
        import tempfile

        self.path = Path(tempfile.mkdtemp(prefix=prefix(purpose), dir=parent))
        self._fd: int | None = None
        try:
            self._fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            if fcntl is not None:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            (self.path / _OWNER).write_text(f"{os.getpid()}\n", encoding="ascii")
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        import shutil

        # A Ctrl-C inside rmtree would stop it half-way and leave the workspace behind (seen
        # with a late SIGINT during init): hold signals back until it is gone. A child process
        # an interrupt cut short (git, killed by subprocess) may still be writing into it for a
        # moment, so removal is retried briefly; what is left then, the next command sweeps.
        with signals_deferred():
            for pause in (0.0, 0.05, 0.1, 0.2, 0.4):
                time.sleep(pause)
                shutil.rmtree(self.path, ignore_errors=True)
                if not os.path.lexists(self.path):
                    break
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def sweep(parent: Path, purpose: str) -> list[Path]:
    """Remove the workspaces for `purpose` in `parent` whose process is gone; return those
    still in use by a live process."""
    live: list[Path] = []
    try:
        candidates = [p for p in parent.iterdir() if p.name.startswith(prefix(purpose))]
    except OSError:
        return live
    for path in candidates:
        if not path.is_dir() or path.is_symlink():
            continue
        if _abandoned(path):
            import shutil

            shutil.rmtree(path, ignore_errors=True)
        else:
            live.append(path)
    return live


def _abandoned(path: Path) -> bool:
    if fcntl is None:  # pragma: no cover - without locks, only age tells
        return _older_than(path, _GRACE_SECONDS)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return (path / _OWNER).is_file() or _older_than(path, _GRACE_SECONDS)
    finally:
        os.close(fd)


def _older_than(path: Path, seconds: float) -> bool:
    with contextlib.suppress(OSError):
        return time.time() - path.stat().st_mtime > seconds
    return False
