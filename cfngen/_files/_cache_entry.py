"""A cache entry on disk (see _cache): the digest it carries, how it is checked and listed,
flushed, locked while written, and removed.

A file entry is the line `cfngen-cache sha256:<hex of the rest>`, then its content. A folder
entry holds `.cfngen-cache`: that line over `<sha256> <size> <path>` for each of its files,
sorted by path.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from pathlib import Path

from cfngen._files._digest import sha256
from cfngen._files._locks import fcntl
from cfngen._files._read import reason

HEADER = b"cfngen-cache sha256:"
MANIFEST = ".cfngen-cache"
TMP = ".tmp-"
KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFIFO: "a named pipe",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFREG: "a file",
}
CHUNK = 1 << 20


def unwrap(blob: bytes) -> tuple[bytes, str | None]:
    """A file entry's content, and what is wrong with it (None: nothing)."""
    if not blob:
        return b"", "it is empty"
    line, newline, content = blob.partition(b"\n")
    if not line.startswith(HEADER) or not newline:
        return b"", "it carries no digest"
    if sha256(content).encode() != line[len(HEADER) :]:
        return b"", "its content does not match its digest: truncated or changed"
    return content, None


def folder_problem(path: Path) -> str | None:
    """What is wrong with the folder entry at `path` (None: nothing; FileNotFoundError: none)."""
    mode = os.lstat(path).st_mode
    if not stat.S_ISDIR(mode):
        return f"it is {KINDS.get(stat.S_IFMT(mode), 'not a folder')}"
    try:
        fd = os.open(path / MANIFEST, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return "it carries no digest"
    except OSError:
        return "its listing cannot be read"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "its listing is not a file"
        listing, problem = unwrap(read_all(fd))
    finally:
        os.close(fd)
    if problem is not None:
        return f"the listing of its files is damaged: {problem}"
    expected: dict[bytes, tuple[bytes, int]] = {}
    try:
        for line in listing.splitlines():
            hexdigest, size, name = line.split(b" ", 2)
            expected[name] = (hexdigest, int(size))
    except ValueError:
        return "the listing of its files is not one cfngen wrote"
    seen = 0
    for name, entry in files(path):
        if entry is None:
            return f"{os.fsdecode(name)} is a symbolic link or not a file"
        if name == MANIFEST.encode():
            continue
        wanted = expected.get(name)
        if wanted is None:
            if b"__pycache__" in name.split(b"/"):
                continue
            return f"{os.fsdecode(name)} was not in it when it was made"
        if digest(entry, fsync=False) != wanted:
            return f"{os.fsdecode(name)} does not match its digest: truncated or changed"
        seen += 1
    if seen != len(expected):
        return "files of it are missing"
    return None


def listing(folder: Path) -> bytes | None:
    """`<sha256> <size> <path>` for every file under `folder`, sorted, each file and folder
    flushed to the disk on the way; None when a link or a name with a newline is there."""
    lines: dict[bytes, bytes] = {}
    for name, entry in files(folder, fsync=True):
        if entry is None or b"\n" in name:
            return None
        hexdigest, size = digest(entry, fsync=True)
        lines[name] = b"%s %d %s\n" % (hexdigest, size, name)
    return b"".join(lines[name] for name in sorted(lines))


def files(root: Path, *, fsync: bool = False) -> list[tuple[bytes, bytes | None]]:
    """(path relative to root, absolute path or None for what is not a regular file or a
    folder) for every file below root; folders flushed to the disk with `fsync`."""
    found: list[tuple[bytes, bytes | None]] = []
    base = os.fsencode(root)
    pending = [b""]
    while pending:
        rel = pending.pop()
        here = os.path.join(base, rel) if rel else base
        if fsync:
            fsync_folder(Path(os.fsdecode(here)))
        with os.scandir(here) as scan:
            for entry in scan:
                name = os.path.join(rel, entry.name) if rel else entry.name
                if entry.is_dir(follow_symlinks=False):
                    pending.append(name)
                elif entry.is_file(follow_symlinks=False):
                    found.append((name, entry.path))
                else:
                    found.append((name, None))
    return found


def digest(path: bytes, *, fsync: bool) -> tuple[bytes, int]:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        digest = hashlib.sha256()
        size = 0
        while chunk := os.read(fd, CHUNK):
            digest.update(chunk)
            size += len(chunk)
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)
    return digest.hexdigest().encode(), size


def read_all(fd: int) -> bytes:
    os.set_blocking(fd, True)
    chunks = []
    while chunk := os.read(fd, CHUNK):
        chunks.append(chunk)
    return b"".join(chunks)


def lock(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def locked(path: str) -> bool:
    """Whether a live process holds the temporary file or folder at `path`."""
    if fcntl is None:  # pragma: no cover - without locks, age alone tells
        return False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False  # a link or a pipe made there: nobody's
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False


def remove(path: Path) -> str | None:
    """Remove a cache entry, never following a link: renamed to a temporary name first, so
    no reader sees half of it. None when it is gone, else why not."""
    import shutil
    import uuid

    gone = path.with_name(f"{TMP}gone-{uuid.uuid4().hex}")
    try:
        os.rename(path, gone)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return reason(exc)
    if os.path.isdir(gone) and not os.path.islink(gone):
        shutil.rmtree(gone, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            os.unlink(gone)
    return None


def used(path: Path) -> None:
    """Mark an entry as read now: pruning keeps what was used last."""
    with contextlib.suppress(OSError):
        os.utime(path)


def fsync_folder(folder: Path) -> None:
    """Make a folder's entries (a rename into it) durable; a no-op where folders cannot be
    opened (Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except (OSError, AttributeError):  # pragma: no cover - no O_DIRECTORY on Windows
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
