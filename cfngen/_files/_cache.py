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
import os
import re
import stat
import time
from pathlib import Path

from cfngen._errors import CfngenError
from cfngen._files import _cache_entry as disk
from cfngen._files._digest import sha256
from cfngen._files._home import bypassed, caches_off, home, note, unusable
from cfngen._files._locks import fcntl

#: An unlocked temporary file is its writer's only this long after it was made (between
#: creating and locking it); without advisory locks (Windows), age alone tells.
_GRACE_SECONDS = 60.0 if fcntl is not None else 3600.0
_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


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
        path = folder / checked(key)
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
                self._discard(path, f"it is {disk.KINDS.get(stat.S_IFMT(mode), 'not a file')}")
                return None
            blob = disk.read_all(fd)
        except OSError:
            return None
        finally:
            os.close(fd)
        content, problem = disk.unwrap(blob)
        if problem is not None:
            self._discard(path, problem)
            return None
        disk.used(path)
        return content

    def put(self, key: str, content: bytes) -> None:
        """Store `content` under `key` (replacing what was there); a failure only costs time."""
        folder = self.folder()
        if folder is None:
            return
        import tempfile

        target = folder / checked(key)
        tmp: str | None = None
        try:
            fd, tmp = tempfile.mkstemp(prefix=disk.TMP, dir=folder)
            with os.fdopen(fd, "wb") as handle:
                disk.lock(fd)
                handle.write(disk.HEADER + sha256(content).encode() + b"\n")
                handle.write(content)
                handle.flush()
                os.fsync(fd)
                self._replace(tmp, target)
            tmp = None
            disk.fsync_folder(folder)
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
        path = folder / checked(key)
        try:
            problem = disk.folder_problem(path)
        except FileNotFoundError:
            return None
        except OSError:
            return None
        if problem is not None:
            self._discard(path, problem)
            return None
        disk.used(path)
        return path

    def new_folder(self) -> Path:
        """An empty folder to fill and then `put_folder`: inside the cache (locked while this
        process lives, so no other prunes it), or a private temporary folder when the cache
        cannot be used. `drop` removes it when it is not put."""
        folder = self.folder()
        if folder is not None:
            import tempfile

            try:
                path = Path(tempfile.mkdtemp(prefix=disk.TMP, dir=folder))
                fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
                self._locks[path] = fd
                disk.lock(fd)
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
        target = folder / checked(key)
        try:
            listing = disk.listing(filled)
            if listing is None:
                return None  # a link or an unnamable file: kept out of the cache, not an error
            manifest = filled / disk.MANIFEST
            with open(manifest, "wb") as handle:
                handle.write(disk.HEADER + sha256(listing).encode() + b"\n")
                handle.write(listing)
                handle.flush()
                os.fsync(handle.fileno())
            disk.fsync_folder(filled)
            if replace:
                disk.remove(target)
            self._replace(filled, target)
            disk.fsync_folder(folder)
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
            if entry.name.startswith(disk.TMP):
                if now - st.st_mtime > _GRACE_SECONDS and not disk.locked(entry.path):
                    disk.remove(Path(entry.path))
            elif not entry.name.startswith("."):
                entries.append((st.st_mtime_ns, entry.name))
        for _, name in sorted(entries)[: max(0, len(entries) - self.keep)]:
            disk.remove(folder / name)

    def _discard(self, path: Path, problem: str) -> None:
        removed = disk.remove(path)
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
            disk.remove(target)
            os.rename(new, target)

    def _unlock(self, path: Path) -> None:
        fd = self._locks.pop(path, None)
        if fd is not None:
            os.close(fd)


def checked(key: str) -> str:
    if not _KEY.fullmatch(key):
        raise ValueError(f"not a cache key: {key!r}")
    return key
