"""Several files under one folder, changed all together or not at all, even across a SIGKILL.

    tx = Transaction(root)
    tx.write("docs/README.md", data)    # create or replace
    tx.create("README.md", data)        # create; fails if something is there by then
    tx.delete("docs/old.md")
    tx.mkdir("logs")                    # a folder, even an empty one
    tx.commit()                         # CfngenError after putting everything back

How: the journal `ROOT/.cfngen-journal.json` lists every change before anything is touched.
Each new content is staged as a hidden sibling of its target (`.cfngen-<id>-<n>.new`; a
sibling, so the final rename stays on one file system), then the journal is marked
"committing" and every target is swapped in, its old bytes kept as a hard link
(`.cfngen-<id>-<n>.old`). Only when all are in place is the journal marked "committed"; the
backups and the journal are removed last. A failure on the way undoes what was done; a process
killed on the way leaves the journal, and `recover(root)` (the next command) undoes a
transaction that was not committed or finishes one that was (_journal.py).

Ctrl-C, SIGTERM and SIGHUP are held back while targets are swapped (a few milliseconds), so
they do not interrupt an undo half-way; one that arrived meanwhile undoes the swap before the
journal says "committed", then interrupts as usual. Only SIGKILL or a crash needs the journal.
No fsync: this survives the process dying at any instant, not the machine losing power.

Hand-written: no well-kept library does multi-file transactions with a journal (atomicwrites
and the like do one file, which `write_atomic` covers).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

from cfngen._errors import CfngenError
from cfngen._files._atomic import new_file_mode
from cfngen._files._contain import canonical, writable
from cfngen._files._journal import (
    _JOURNAL_TMP,
    COMMENT,
    FORMAT,
    JOURNAL,
    _apply,
    _digest,
    _Entry,
    _finish,
    _locked,
    _recover_locked,
    _undo,
    is_staging_name,
    staging_names,
)
from cfngen._files._read import reason
from cfngen._files._signals import interrupt_pending, signals_deferred
from cfngen._progress import advance, phase


class _Change(NamedTuple):
    path: str
    op: str
    data: bytes
    mode: int | None


def inside(root: Path, relpath: str) -> bool:
    """Whether `root/relpath` stays inside `root` once symbolic links are followed (a folder
    linked to somewhere else is outside)."""
    base = os.path.realpath(root)
    parent = os.path.realpath(os.path.join(base, os.path.dirname(relpath)))
    return parent == base or parent.startswith(base + os.sep)


class Transaction:
    """Changes to files under `root`, applied by commit() all together or not at all."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._changes: dict[str, _Change] = {}

    def write(self, relpath: str, data: bytes, *, mode: int | None = None) -> None:
        """Create or replace `relpath` with `data` (mode: the replaced file's, else umask's)."""
        self._add(relpath, "write", data, mode)

    def create(self, relpath: str, data: bytes, *, mode: int | None = None) -> None:
        """Create `relpath`; commit() fails (and changes nothing) if something is there."""
        self._add(relpath, "create", data, mode)

    def delete(self, relpath: str) -> None:
        self._add(relpath, "delete", b"", None)

    def mkdir(self, relpath: str) -> None:
        """Create the folder `relpath` (and its parents) if missing; removed again on undo."""
        self._add(relpath, "mkdir", b"", None)

    def __len__(self) -> int:
        return len(self._changes)

    def _add(self, relpath: str, op: str, data: bytes, mode: int | None) -> None:
        path = canonical(relpath)
        if path is None or path in (JOURNAL, _JOURNAL_TMP) or is_staging_name(path):
            raise ValueError(f"not a path inside the folder: {relpath!r}")
        self._changes[path] = _Change(path, op, data, mode)

    def commit(self) -> None:
        """Apply every change, or none: on failure everything is put back and a CfngenError
        says what failed. Another cfngen writing into `root` at the same time is refused."""
        if not self._changes:
            return
        with _locked(self.root, wait=False) as locked:
            if not locked:
                raise CfngenError(
                    f"another cfngen command is writing into {self.root}",
                    "wait for it to finish, then retry",
                )
            _recover_locked(self.root)
            _Commit(self.root, list(self._changes.values())).run()


class _Commit:
    def __init__(self, root: Path, changes: list[_Change]) -> None:
        self.root = root
        self.changes = changes
        self.txid = os.urandom(4).hex()
        self.entries: list[_Entry] = []
        self.dirs: list[str] = []
        self.state = "staging"
        #: The path being written when something fails (None: the journal).
        self.current: str | None = None

    # ------------------------------------------------------------------ plan

    def _plan(self) -> None:
        for number, change in enumerate(self.changes):
            try:
                target = writable(self.root, change.path, what="cfngen's change")
            except CfngenError as exc:
                raise CfngenError(
                    f"{exc.message}; nothing was changed",
                    "replace the link with a folder or a file of the project, or remove it",
                ) from None
            if change.op == "mkdir":
                for parent in reversed(PurePosixPath(change.path).parents[:-1]):
                    self._need_dir(str(parent))
                self._need_dir(change.path)
                continue
            exists = os.path.lexists(target)
            if change.op == "create" and exists:
                raise CfngenError(f"{target} exists; nothing was changed", "move it away and retry")
            if change.op == "delete" and not exists:
                continue
            folder = PurePosixPath(change.path).parent
            staged, backup = staging_names(change.path, self.txid, number)
            self.entries.append(
                _Entry(
                    path=change.path,
                    op=change.op,
                    staged=staged,
                    backup=backup,
                    had_original=exists,
                    sha256=_digest(change.data),
                )
            )
            for parent in reversed(folder.parents[:-1] if str(folder) != "." else ()):
                self._need_dir(str(parent))
            if str(folder) != ".":
                self._need_dir(str(folder))

    def _need_dir(self, relpath: str) -> None:
        path = self.root / relpath
        if relpath in self.dirs:
            return
        if os.path.lexists(path):
            if not path.is_dir():
                raise CfngenError(
                    f"{path}: is a file, but cfngen needs a folder there; nothing was changed",
                    "move the file away and retry",
                )
            return
        self.dirs.append(relpath)

    # ------------------------------------------------------------------ run

    def run(self) -> None:
        self._plan()
        if not self.entries and not self.dirs:
            return
        try:
            self._save()
            self._stage()
        except BaseException as exc:
            with signals_deferred():
                _undo(self.root, self._journal(), applied=False)
            raise self._failure(exc, "nothing was changed") from None
        with signals_deferred():
            try:
                self.state = "committing"
                self._save()
                for entry in self.entries:
                    self.current = entry.path
                    _apply(self.root, entry)
                if interrupt_pending():
                    # Before the point of no return: put everything back; the held signal
                    # is delivered as the block ends.
                    _undo(self.root, self._journal(), applied=True)
                    return
                self.current = JOURNAL
                self.state = "committed"
                self._save()
            except BaseException as exc:
                try:
                    _undo(self.root, self._journal(), applied=True)
                except CfngenError as undo_error:
                    failure = self._failure(exc, "")
                    raise CfngenError(
                        f"{str(failure).rstrip('; ')}, and {undo_error.message}",
                        undo_error.hint,
                    ) from None
                raise self._failure(exc, "everything was put back as it was") from None
            _finish(self.root, self._journal())

    def _failure(self, exc: BaseException, outcome: str) -> BaseException:
        """What the user reads: the file cfngen was writing (never a staged name) and why."""
        if isinstance(exc, CfngenError) or not isinstance(exc, OSError):
            return exc
        where = "the project folder" if self.current in (None, JOURNAL) else self.current
        return CfngenError(
            f"cannot write {where} in {self.root}: {reason(exc)}; {outcome}", _hint(exc)
        )

    def _journal(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "comment": COMMENT,
            "id": self.txid,
            "pid": os.getpid(),
            "state": self.state,
            "dirs": self.dirs,
            "entries": [e._asdict() for e in self.entries],
        }

    def _save(self) -> None:
        # The lock makes a fixed temporary name safe, and recover() knows to remove it;
        # O_NOFOLLOW: a link a repository put there is never written through.
        text = json.dumps(self._journal(), indent=1) + "\n"
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(self.root / _JOURNAL_TMP, flags, 0o666)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(self.root / _JOURNAL_TMP, self.root / JOURNAL)

    def _stage(self) -> None:
        for relpath in self.dirs:
            self.current = relpath
            (self.root / relpath).mkdir()
        by_path = {c.path: c for c in self.changes}
        writes = [entry for entry in self.entries if entry.op != "delete"]
        with phase("writing the files", total=len(writes)):
            for entry in writes:
                self._stage_one(entry, by_path[entry.path])
                advance()

    def _stage_one(self, entry: _Entry, change: _Change) -> None:
        self.current = entry.path
        target = self.root / entry.path
        mode = change.mode
        if mode is None and entry.had_original:
            with contextlib.suppress(OSError):
                mode = os.stat(target).st_mode & 0o7777
        staged = self.root / entry.staged
        fd = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            view = memoryview(change.data)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, mode if mode is not None else new_file_mode())
        finally:
            os.close(fd)


# --------------------------------------------------------------------------- helpers


def _hint(exc: OSError) -> str:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "free some space and retry"
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return "make the project folder writable and retry"
    return "fix that and retry"
