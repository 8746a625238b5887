"""The journal of a Transaction, and what a later command does with one a killed process left.

`ROOT/.cfngen-journal.json` lists every change before anything is touched. `_apply` swaps one
staged file in (its old bytes kept as a hard link); `_undo` puts back everything a transaction
changed and `_finish` drops the backups of one that committed. `recover(root)`, run before a
command reads anything, does one or the other for a journal left behind, under an advisory lock
on the folder so that it never undoes the work of a cfngen process still running there.

A journal is also a file anyone can put in a repository, and every command (validate and the
pre-commit hooks too) acts on it. So recover() acts only on exactly what a Transaction writes
(`_checked`): the keys, types, states and operations; every path relative, in one spelling and
inside the project once links are followed (`writable`); staged and backup names of the shape
the Transaction gives them, beside their target, so they never name a file of the user's.
Anything else is refused (ForeignJournal, exit 2) and nothing of it is applied. And an undo
never puts a backup over a file, or removes one, unless the file is absent or holds exactly the
bytes the transaction wrote (its sha256 in the journal): what someone wrote there since is kept.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

from cfngen._errors import CfngenError
from cfngen._files._contain import canonical, writable
from cfngen._files._digest import sha256
from cfngen._files._locks import fcntl
from cfngen._files._read import reason
from cfngen._files._signals import signals_deferred

JOURNAL = ".cfngen-journal.json"
_JOURNAL_TMP = JOURNAL + ".new"
#: .gitignore lines for the files a Transaction leaves while it writes (the journal, its
#: temporary name, staged files and backups): every template has them, `cfngen upgrade`
#: adds the missing ones to older projects.
GITIGNORE_LINES = (JOURNAL, ".cfngen-*.new", ".cfngen-*.old")
FORMAT = 1
COMMENT = (
    "cfngen was writing these files; the next cfngen command undoes or finishes it. Do not edit."
)
_STATES = ("staging", "committing", "committed")
_OPS = ("write", "create", "delete")
_KEYS = {"format", "comment", "id", "pid", "state", "dirs", "entries"}
#: A transaction's id: os.urandom(4).hex().
_TXID = re.compile(r"[0-9a-f]{8}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
#: The name of a staged file (`.new`) or a backup (`.old`): `.cfngen-<id>-<n>.<suffix>`.
_STAGING = re.compile(r"\.cfngen-([0-9a-f]{8})-(0|[1-9][0-9]{0,8})\.(new|old)")


class _Entry(NamedTuple):
    path: str
    op: str  # "write", "create" or "delete"
    staged: str
    backup: str
    had_original: bool
    sha256: str


class ForeignJournal(CfngenError):
    """A journal this cfngen did not write: refused, nothing of it applied."""

    def __init__(self, path: Path, why: str) -> None:
        import shlex  # here: only a refused journal needs it

        super().__init__(
            f"{path}: not a journal this cfngen writes ({why}); nothing of it was applied",
            "cfngen writes it only while it is writing files, and removes it when done; if no "
            f"cfngen command was killed here, remove it with `rm -- {shlex.quote(str(path))}`",
        )


def staging_names(path: str, txid: str, number: int) -> tuple[str, str]:
    """The staged (`.new`) and backup (`.old`) names of a transaction's `number`th change to
    `path`: hidden siblings of it (one file system, so the final rename is atomic)."""
    folder = PurePosixPath(path).parent
    stem = f".cfngen-{txid}-{number}"
    if str(folder) != ".":
        stem = f"{folder}/{stem}"
    return stem + ".new", stem + ".old"


def is_staging_name(relpath: str) -> bool:
    return _STAGING.fullmatch(PurePosixPath(relpath).name) is not None


# --------------------------------------------------------------------------- apply and undo


def _apply(root: Path, entry: _Entry) -> None:
    target = root / entry.path
    staged = root / entry.staged
    backup = root / entry.backup
    if entry.op == "delete":
        os.rename(target, backup)
        return
    if not entry.had_original:
        # A link, not a rename: it fails instead of replacing whatever appeared meanwhile.
        try:
            os.link(staged, target)
        except FileExistsError:
            raise CfngenError(
                f"{target} appeared while cfngen was writing; nothing was changed",
                "retry when nothing else writes into the project",
            ) from None
        os.unlink(staged)
        return
    try:
        os.link(target, backup)
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        os.rename(target, backup)  # no hard links here: a short moment without the file
    os.replace(staged, target)


def _undo(root: Path, journal: dict[str, Any], *, applied: bool) -> None:
    """Put back everything the journal's transaction changed; idempotent, so a second try
    after a failed one is safe. Raises CfngenError, keeping the journal, if it cannot."""
    failures: list[str] = []
    for raw in reversed(journal.get("entries", [])):
        entry = _Entry(**raw)
        target, staged, backup = root / entry.path, root / entry.staged, root / entry.backup
        try:
            if applied and os.path.lexists(backup):
                if entry.op == "delete" and os.path.lexists(target):
                    failures.append(f"{entry.path} was recreated; its old content is {backup}")
                    continue
                if os.path.lexists(target) and os.path.samestat(os.lstat(target), os.lstat(backup)):
                    os.unlink(backup)  # the swap had not happened yet: both names, one file
                elif os.path.lexists(target) and _sha256(target) != entry.sha256:
                    # Not what the transaction wrote: someone's since, which a restore would lose.
                    failures.append(
                        f"{entry.path} changed since; its old content is {backup} (delete the "
                        "one you do not want)"
                    )
                    continue
                else:
                    os.replace(backup, target)
            elif (
                applied
                and not entry.had_original
                and entry.op != "delete"
                and os.path.lexists(target)
                and _sha256(target) == entry.sha256
            ):
                os.unlink(target)
            if os.path.lexists(staged):
                os.unlink(staged)
        except OSError as exc:
            failures.append(f"{entry.path}: {reason(exc)}")
    for relpath in reversed(journal.get("dirs", [])):
        with contextlib.suppress(OSError):
            os.rmdir(root / relpath)
    if failures:
        raise CfngenError(
            f"cfngen could not put {root} back as it was ({'; '.join(failures)})",
            "fix that (free space, make it writable), then run any cfngen command in the "
            f"project: it finishes the undo from {JOURNAL}",
        )
    _remove_journal(root)


def _finish(root: Path, journal: dict[str, Any]) -> None:
    """After the commit: drop the backups, then the journal. What cannot be removed now keeps
    the journal, and the next recover() finishes it; the files themselves are all in place."""
    done = True
    for raw in journal.get("entries", []):
        for name in (raw["backup"], raw["staged"]):
            if os.path.lexists(root / name):
                try:
                    os.unlink(root / name)
                except OSError:
                    done = False
    if done:
        with contextlib.suppress(OSError):
            _remove_journal(root)


def _remove_journal(root: Path) -> None:
    for name in (JOURNAL, _JOURNAL_TMP):
        if os.path.lexists(root / name):
            os.unlink(root / name)


def _sha256(path: Path) -> str | None:
    """The sha256 of the regular file at `path` (None for anything else: a link, a folder or
    a named pipe is never what a transaction wrote, and reading a pipe would wait)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        return _digest(path.read_bytes())
    except OSError:
        return None


_digest = sha256


# --------------------------------------------------------------------------- recovery


def recover(root: Path) -> list[str]:
    """Undo (or, if it had committed, finish) a transaction in `root` that a killed process
    left behind. Returns what it did, in words; [] when there was nothing to do or another
    cfngen process is still at work there. Never raises for an unwritable folder: it says so.
    Raises ForeignJournal (exit 2), applying nothing, for a journal cfngen did not write."""
    if not any(os.path.lexists(Path(root) / name) for name in (JOURNAL, _JOURNAL_TMP)):
        return []
    try:
        with _locked(Path(root), wait=False) as locked:
            if not locked:
                return []
            return _recover_locked(Path(root))
    except ForeignJournal:
        raise
    except CfngenError as exc:
        return [str(exc)]
    except OSError as exc:
        return [f"cannot finish an interrupted cfngen command in {root}: {reason(exc)}"]


def _recover_locked(root: Path) -> list[str]:
    journal = _checked(root)
    if journal is None:
        _remove_journal(root)  # killed while writing the first journal: nothing was staged
        return []
    with signals_deferred():
        if journal["state"] == "committed":
            _finish(root, journal)
            return []
        _undo(root, journal, applied=journal["state"] == "committing")
    return [
        f"an earlier cfngen command was interrupted while writing {len(journal['entries'])} "
        f"file(s) in {root}; they were put back as they were"
    ]


def _checked(root: Path) -> dict[str, Any] | None:
    """The journal in `root`, if it is exactly what a Transaction writes (None: there is
    none); ForeignJournal for anything else."""
    path = root / JOURNAL
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise ForeignJournal(path, "it is not a regular file")
    try:
        journal = json.loads(path.read_bytes())
    except OSError as exc:
        raise CfngenError(
            f"{path}: cannot read it: {reason(exc)}", "check its permissions"
        ) from None
    except ValueError as exc:
        raise ForeignJournal(path, f"it is not JSON: {exc}") from None
    _check(root, journal, path)
    return journal  # type: ignore[no-any-return]


def _check(root: Path, journal: Any, path: Path) -> None:
    if not isinstance(journal, dict) or set(journal) != _KEYS:
        raise ForeignJournal(path, f"a journal has exactly the keys {', '.join(sorted(_KEYS))}")
    txid = journal["id"]
    if journal["format"] != FORMAT or type(journal["format"]) is not int:
        raise ForeignJournal(path, f"format {journal['format']!r}; this cfngen writes {FORMAT}")
    if not isinstance(journal["comment"], str):
        raise ForeignJournal(path, "its comment is not text")
    if not (isinstance(txid, str) and _TXID.fullmatch(txid)):
        raise ForeignJournal(path, f"id {txid!r} is not eight hexadecimal digits")
    if type(journal["pid"]) is not int or journal["pid"] <= 0:
        raise ForeignJournal(path, f"pid {journal['pid']!r} is not a process id")
    if journal["state"] not in _STATES:
        raise ForeignJournal(path, f"state {journal['state']!r} is none of {', '.join(_STATES)}")
    dirs, entries = journal["dirs"], journal["entries"]
    if not isinstance(dirs, list) or not isinstance(entries, list):
        raise ForeignJournal(path, "dirs and entries are lists")
    seen: set[str] = set()
    for relpath in dirs:
        _check_path(root, path, relpath, "a folder in dirs", seen)
    for entry in entries:
        _check_entry(root, path, txid, entry, seen)


def _check_entry(root: Path, path: Path, txid: str, entry: Any, seen: set[str]) -> None:
    if not isinstance(entry, dict) or set(entry) != set(_Entry._fields):
        raise ForeignJournal(path, f"an entry has exactly the keys {', '.join(_Entry._fields)}")
    op, had_original = entry["op"], entry["had_original"]
    if op not in _OPS or not isinstance(had_original, bool):
        raise ForeignJournal(path, f"op {op!r} or had_original {had_original!r} is not one of ours")
    if (op == "delete" and not had_original) or (op == "create" and had_original):
        raise ForeignJournal(path, f"a {op} entry with had_original {had_original}")
    if not (isinstance(entry["sha256"], str) and _SHA256.fullmatch(entry["sha256"])):
        raise ForeignJournal(path, f"sha256 {entry['sha256']!r} is not a sha256")
    target = _check_path(root, path, entry["path"], "path", seen)
    staged = entry["staged"]
    found = _STAGING.fullmatch(PurePosixPath(staged).name) if isinstance(staged, str) else None
    names = staging_names(target, txid, int(found.group(2))) if found else None
    # Beside the target, of this transaction, `.new` and `.old` of one number: they can
    # never be a user's file, such as the handlers a crafted "backup" would restore.
    if names != (staged, entry["backup"]):
        raise ForeignJournal(
            path,
            f"staged {staged!r} and backup {entry['backup']!r} are not the names cfngen "
            f"gives the files it stages beside {target}",
        )
    for name in names:
        _check_path(root, path, name, "a staged or backup file", seen)


def _check_path(root: Path, path: Path, relpath: Any, what: str, seen: set[str]) -> str:
    if not isinstance(relpath, str) or canonical(relpath) != relpath:
        raise ForeignJournal(path, f"{what} {relpath!r} is not a relative path in one spelling")
    if relpath in seen:
        raise ForeignJournal(path, f"{what} {relpath!r} is named twice")
    if relpath in (JOURNAL, _JOURNAL_TMP) or (what == "path" and is_staging_name(relpath)):
        raise ForeignJournal(path, f"{what} {relpath!r} is a name cfngen keeps for itself")
    seen.add(relpath)
    try:
        writable(root, relpath, what=f"its {what}")
    except CfngenError as exc:
        raise ForeignJournal(path, exc.message) from None
    return relpath


@contextlib.contextmanager
def _locked(root: Path, *, wait: bool) -> Iterator[bool]:
    """An advisory lock on the folder itself (no lock file to leave behind); released when
    the process ends, however it ends."""
    if fcntl is None:  # pragma: no cover
        yield True
        return
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)
