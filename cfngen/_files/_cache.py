"""Caches in cfngen's home: entries named by a key, each verified every time it is read.

A cache is the folder `<home>/cache/<name>/`; an entry is a file or a folder in it, named by a
key the caller derives from everything the entry depends on. Every entry carries the digest
of its own content: a file entry begins with the line `cfngen-cache sha256:<hex>`, a folder
entry holds `.cfngen-cache`, the digest and size of each of its files under a line with the
digest of that listing. An entry that fails the check on a read (empty, truncated, a byte
changed, no digest, a folder, link or pipe where a file should be, a file missing or added)
is removed, noted once (`_home.note`), and reported missing, so the caller makes it again and
puts it back: a damaged cache costs one rebuild, never a wrong result.

A put writes a temporary sibling (`.tmp-*`, locked by its writer for as long as it writes),
flushes every file and folder of it to the disk (fsync), renames it into place, and flushes
the cache folder, so a power cut leaves the old entry, the new one or a temporary file. Then
the cache keeps the `keep` entries used last (a read counts as a use) and removes temporary
files no live process holds.

A home that cannot be used (a file stands there, read-only, a full disk) makes every get a miss
and every put a no-op, said once (`_home.bypassed`); CFNGEN_NO_CACHE=1 turns every cache off.
Written by hand: the caching libraries (diskcache, joblib's Memory) keep no digest of what they
store, and none keeps folders.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat
import time
from pathlib import Path

from cfngen._errors import CfngenError
from cfngen._files._home import bypassed, caches_off, home, note, unusable
from cfngen._files._locks import fcntl
from cfngen._files._read import reason

_HEADER = b"cfngen-cache sha256:"
_MANIFEST = ".cfngen-cache"
_TMP = ".tmp-"
#: An unlocked temporary file is its writer's only this long after it was made (between
#: creating and locking it); without advisory locks (Windows), age alone tells.
_GRACE_SECONDS = 60.0 if fcntl is not None else 3600.0
_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFIFO: "a named pipe",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFREG: "a file",
}
_CHUNK = 1 << 20


class Cache:
    """One cache: `get`/`put` for file entries, `get_folder`/`new_folder`/`put_folder` for
    folder entries."""

    def __init__(self, name: str, *, keep: int, what: str) -> None:
        self.name = name
        self.keep = keep
        #: How notes name it: "the model cache".
        self.what = what
        self._locks: dict[Path, int] = {}

    def folder(self) -> Path | None:
        """The cache's folder, made if need be; None when caches are off or the home cannot
        be used (said once)."""
        if caches_off():
            return None
        try:
            folder = home() / "cache" / self.name
        except CfngenError as error:
            bypassed(error.message)
            return None
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            bypassed(unusable(exc))
            return None
        return folder

    # ------------------------------------------------------------------ file entries

    def get(self, key: str) -> bytes | None:
        """The content put under `key`, verified; None when there is none (or it was bad)."""
        folder = self.folder()
        if folder is None:
            return None
        path = folder / _checked(key)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                self._discard(path, "it is a symbolic link")
            return None
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                self._discard(path, f"it is {_KINDS.get(stat.S_IFMT(mode), 'not a file')}")
                return None
            blob = _read_all(fd)
        except OSError:
            return None
        finally:
            os.close(fd)
        content, problem = _unwrap(blob)
        if problem is not None:
            self._discard(path, problem)
            return None
        _used(path)
        return content

    def put(self, key: str, content: bytes) -> None:
        """Store `content` under `key` (replacing what was there); a failure only costs time."""
        folder = self.folder()
        if folder is None:
            return
        import tempfile

        target = folder / _checked(key)
        tmp: str | None = None
        try:
            fd, tmp = tempfile.mkstemp(prefix=_TMP, dir=folder)
            with os.fdopen(fd, "wb") as handle:
                _lock(fd)
                handle.write(_HEADER + hashlib.sha256(content).hexdigest().encode() + b"\n")
                handle.write(content)
                handle.flush()
                os.fsync(fd)
                self._replace(tmp, target)
            tmp = None
            _fsync_folder(folder)
        except OSError as exc:
            bypassed(unusable(exc))
            return
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        self.prune(folder)

    # ------------------------------------------------------------------ folder entries

    def get_folder(self, key: str) -> Path | None:
        """The folder put under `key`, every file of it verified; None when there is none
        (or it was bad). Files Python writes beside what it imports (`__pycache__`) are not
        part of an entry and are not checked."""
        folder = self.folder()
        if folder is None:
            return None
        path = folder / _checked(key)
        try:
            problem = _folder_problem(path)
        except FileNotFoundError:
            return None
        except OSError:
            return None
        if problem is not None:
            self._discard(path, problem)
            return None
        _used(path)
        return path

    def new_folder(self) -> Path:
        """An empty folder to fill and then `put_folder`: inside the cache (locked while this
        process lives, so no other prunes it), or a private temporary folder when the cache
        cannot be used. `drop` removes it when it is not put."""
        folder = self.folder()
        if folder is not None:
            import tempfile

            try:
                path = Path(tempfile.mkdtemp(prefix=_TMP, dir=folder))
                fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
                self._locks[path] = fd
                _lock(fd)
                return path
            except OSError as exc:
                return self.elsewhere(unusable(exc))
        from cfngen._files._scratch import scratch_folder

        return scratch_folder(f"cfngen-{self.name}-")

    def put_folder(self, key: str, filled: Path, *, replace: bool = False) -> Path | None:
        """Make `filled` (from `new_folder`) the entry `key` and return its path; None when it
        cannot be stored (the cache is not used, the disk is full, it holds a link, another
        process put `key` meanwhile and `replace` is false): then `filled` is still there,
        the caller's to use and `drop`."""
        folder = self.folder()
        if folder is None or filled.parent != folder:
            return None
        target = folder / _checked(key)
        try:
            listing = _listing(filled)
            if listing is None:
                return None  # a link or an unnamable file: kept out of the cache, not an error
            manifest = filled / _MANIFEST
            with open(manifest, "wb") as handle:
                handle.write(_HEADER + hashlib.sha256(listing).hexdigest().encode() + b"\n")
                handle.write(listing)
                handle.flush()
                os.fsync(handle.fileno())
            _fsync_folder(filled)
            if replace:
                _remove(target)
            self._replace(filled, target)
            _fsync_folder(folder)
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                bypassed(unusable(exc))
            # else another process put the same key meanwhile: both are the same content
            return None
        self._unlock(filled)
        self.prune(folder)
        return target

    def holds(self, path: Path) -> bool:
        """Whether `path` is a folder `new_folder` made inside the cache (not put yet)."""
        return path in self._locks

    def elsewhere(self, problem: str) -> Path:
        """A private temporary folder instead of one in the cache, which failed for
        `problem` (a full disk found while filling it): said once, as any bypass."""
        from cfngen._files._scratch import scratch_folder

        bypassed(problem)
        return scratch_folder(f"cfngen-{self.name}-")

    def drop(self, path: Path) -> None:
        """Remove a folder from `new_folder` that was not put (or could not be)."""
        import shutil

        self._unlock(path)
        shutil.rmtree(path, ignore_errors=True)

    # ------------------------------------------------------------------ housekeeping

    def prune(self, folder: Path) -> None:
        """Keep the `keep` entries used last; remove temporary files no process holds."""
        entries = []
        now = time.time()
        try:
            with os.scandir(folder) as scan:
                listed = list(scan)
        except OSError:
            return
        for entry in listed:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if entry.name.startswith(_TMP):
                if now - st.st_mtime > _GRACE_SECONDS and not _locked(entry.path):
                    _remove(Path(entry.path))
            elif not entry.name.startswith("."):
                entries.append((st.st_mtime_ns, entry.name))
        for _, name in sorted(entries)[: max(0, len(entries) - self.keep)]:
            _remove(folder / name)

    def _discard(self, path: Path, problem: str) -> None:
        removed = _remove(path)
        done = "removed it" if removed is None else f"could not remove it ({removed})"
        note(f"{path}: a damaged entry of {self.what} ({problem}); cfngen {done} and made it again")

    def _replace(self, new: Path | str, target: Path) -> None:
        """Rename `new` over `target`; what stands at `target` that a rename cannot replace
        (a folder over a file, a non-empty folder) is removed first."""
        try:
            os.rename(new, target)
        except OSError as exc:
            if exc.errno not in (errno.EISDIR, errno.ENOTDIR, errno.ENOTEMPTY, errno.EEXIST):
                raise
            if os.path.isdir(new) and not os.path.islink(target) and os.path.isdir(target):
                raise  # a folder entry that another process put meanwhile: keep theirs
            _remove(target)
            os.rename(new, target)

    def _unlock(self, path: Path) -> None:
        fd = self._locks.pop(path, None)
        if fd is not None:
            os.close(fd)


# ---------------------------------------------------------------------- entries on disk


def _checked(key: str) -> str:
    if not _KEY.fullmatch(key):
        raise ValueError(f"not a cache key: {key!r}")
    return key


def _unwrap(blob: bytes) -> tuple[bytes, str | None]:
    """A file entry's content, and what is wrong with it (None: nothing)."""
    if not blob:
        return b"", "it is empty"
    line, newline, content = blob.partition(b"\n")
    if not line.startswith(_HEADER) or not newline:
        return b"", "it carries no digest"
    if hashlib.sha256(content).hexdigest().encode() != line[len(_HEADER) :]:
        return b"", "its content does not match its digest: truncated or changed"
    return content, None


def _folder_problem(path: Path) -> str | None:
    """What is wrong with the folder entry at `path` (None: nothing; FileNotFoundError: none)."""
    mode = os.lstat(path).st_mode
    if not stat.S_ISDIR(mode):
        return f"it is {_KINDS.get(stat.S_IFMT(mode), 'not a folder')}"
    try:
        fd = os.open(path / _MANIFEST, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return "it carries no digest"
    except OSError:
        return "its listing cannot be read"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "its listing is not a file"
        listing, problem = _unwrap(_read_all(fd))
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
    for name, entry in _files(path):
        if entry is None:
            return f"{os.fsdecode(name)} is a symbolic link or not a file"
        if name == _MANIFEST.encode():
            continue
        wanted = expected.get(name)
        if wanted is None:
            if b"__pycache__" in name.split(b"/"):
                continue
            return f"{os.fsdecode(name)} was not in it when it was made"
        if _digest(entry, fsync=False) != wanted:
            return f"{os.fsdecode(name)} does not match its digest: truncated or changed"
        seen += 1
    if seen != len(expected):
        return "files of it are missing"
    return None


def _listing(folder: Path) -> bytes | None:
    """`<sha256> <size> <path>` for every file under `folder`, sorted, each file and folder
    flushed to the disk on the way; None when a link or a name with a newline is there."""
    lines: dict[bytes, bytes] = {}
    for name, entry in _files(folder, fsync=True):
        if entry is None or b"\n" in name:
            return None
        digest, size = _digest(entry, fsync=True)
        lines[name] = b"%s %d %s\n" % (digest, size, name)
    return b"".join(lines[name] for name in sorted(lines))


def _files(root: Path, *, fsync: bool = False) -> list[tuple[bytes, bytes | None]]:
    """(path relative to root, absolute path or None for what is not a regular file or a
    folder) for every file below root; folders flushed to the disk with `fsync`."""
    found: list[tuple[bytes, bytes | None]] = []
    base = os.fsencode(root)
    pending = [b""]
    while pending:
        rel = pending.pop()
        here = os.path.join(base, rel) if rel else base
        if fsync:
            _fsync_folder(Path(os.fsdecode(here)))
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


def _digest(path: bytes, *, fsync: bool) -> tuple[bytes, int]:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        digest = hashlib.sha256()
        size = 0
        while chunk := os.read(fd, _CHUNK):
            digest.update(chunk)
            size += len(chunk)
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)
    return digest.hexdigest().encode(), size


def _read_all(fd: int) -> bytes:
    os.set_blocking(fd, True)
    chunks = []
    while chunk := os.read(fd, _CHUNK):
        chunks.append(chunk)
    return b"".join(chunks)


def _lock(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _locked(path: str) -> bool:
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


def _remove(path: Path) -> str | None:
    """Remove a cache entry, never following a link: renamed to a temporary name first, so
    no reader sees half of it. None when it is gone, else why not."""
    import shutil
    import uuid

    gone = path.with_name(f"{_TMP}gone-{uuid.uuid4().hex}")
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


def _used(path: Path) -> None:
    """Mark an entry as read now: pruning keeps what was used last."""
    with contextlib.suppress(OSError):
        os.utime(path)


def _fsync_folder(folder: Path) -> None:
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
