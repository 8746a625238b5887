"""Reading the files a command needs: regular files only, every failure one clear message.

`open()` on a named pipe waits for a writer forever, and on a symlink loop or a folder it
raises errors whose text names neither the file nor a fix; this module is the one place that
opens user files, so every command treats them alike.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import NamedTuple

from cfngen._errors import CfngenError

_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a named pipe (FIFO)",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


class Entry(NamedTuple):
    """What is at a path, without following a final symbolic link."""

    #: "absent", "file", "symlink" or "other" (folder, pipe, device, socket).
    kind: str
    #: For "other": which (a folder, a named pipe (FIFO), ...); for "symlink": where it points.
    detail: str = ""


def inspect(path: Path) -> Entry:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return Entry("absent")
    except NotADirectoryError:
        return Entry("absent")
    except OSError as exc:
        raise CfngenError(f"{path}: {reason(exc)}", "check the path") from None
    if stat.S_ISREG(st.st_mode):
        return Entry("file")
    if stat.S_ISLNK(st.st_mode):
        return Entry("symlink", os.readlink(path))
    return Entry("other", _KINDS.get(stat.S_IFMT(st.st_mode), "not a regular file"))


def read_bytes(path: Path, *, display: str | None = None, hint: str = "check the path") -> bytes:
    """The bytes of the regular file at `path` (symbolic links followed); CfngenError (exit 2)
    naming the file and what is wrong with it for anything else."""
    data = read_optional(path, display=display, hint=hint)
    if data is None:
        shown = display or str(path)
        if os.path.islink(path):
            raise CfngenError(
                f"{shown}: is a symbolic link to {os.readlink(path)}, which does not exist", hint
            )
        raise CfngenError(f"{shown}: no such file", hint)
    return data


def read_optional(
    path: Path, *, display: str | None = None, hint: str = "check the path"
) -> bytes | None:
    """Like read_bytes, but None when nothing is there (a dangling symbolic link included)."""
    shown = display or str(path)
    try:
        # O_NONBLOCK: opening a named pipe must not wait for a writer; it is refused below.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise CfngenError(f"{shown}: {reason(exc)}", hint) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = _KINDS.get(stat.S_IFMT(st.st_mode), "not a regular file")
            raise CfngenError(f"{shown}: is {kind}, not a file", hint)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as stream:
            return stream.read()
    except OSError as exc:
        raise CfngenError(f"{shown}: cannot read it: {reason(exc)}", hint) from None
    finally:
        os.close(fd)


def reason(exc: OSError) -> str:
    """An OSError in words a user can act on (without Python's `[Errno N]` prefix)."""
    if exc.errno == errno.ELOOP:
        return "is a symbolic link loop (it leads back to itself)"
    if exc.errno == errno.EISDIR:
        return "is a folder, not a file"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.EROFS:
        return "the file system is read-only"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "no space left on the device"
    return (exc.strerror or str(exc)).rstrip(".")
