"""The journal of a Transaction, and what a later command does with one a killed process left.

`ROOT/.cfngen-journal.json` lists every change before anything is touched. `_apply` swaps one
staged file in (its old bytes kept as a hard link); `_undo` puts back everything a transaction
changed and `_finish` drops the backups of one that committed. `recover(root)`, run before a
command reads anything, does one or the other for a journal left behind, under an advisory lock
on the folder so that it never undoes the work of a cfngen process still running there.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from cfngen._errors import CfngenError
from cfngen._files._locks import fcntl
from cfngen._files._read import reason
from cfngen._files._signals import signals_deferred

JOURNAL = ".cfngen-journal.json"
_JOURNAL_TMP = JOURNAL + ".new"


class _Entry(NamedTuple):
    path: str
    op: str  # "write", "create" or "delete"
    staged: str
    backup: str
    had_original: bool
    sha256: str


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
    try:
        return _digest(path.read_bytes())
    except OSError:
        return None


def _digest(data: bytes) -> str:
    import hashlib  # here, not at the top: recover() runs on every command's quick path

    return hashlib.sha256(data).hexdigest()


def recover(root: Path) -> list[str]:
    """Undo (or, if it had committed, finish) a transaction in `root` that a killed process
    left behind. Returns what it did, in words; [] when there was nothing to do or another
    cfngen process is still at work there. Never raises for an unwritable folder: it says so."""
    if not any(os.path.lexists(Path(root) / name) for name in (JOURNAL, _JOURNAL_TMP)):
        return []
    try:
        with _locked(Path(root), wait=False) as locked:
            if not locked:
                return []
            return _recover_locked(Path(root))
    except CfngenError as exc:
        return [str(exc)]
    except OSError as exc:
        return [f"cannot finish an interrupted cfngen command in {root}: {reason(exc)}"]


def _recover_locked(root: Path) -> list[str]:
    path = root / JOURNAL
    try:
        journal = json.loads(path.read_bytes())
        count = len(journal["entries"])
        state = journal["state"]
    except FileNotFoundError:
        _remove_journal(root)  # killed while writing the first journal: nothing was staged
        return []
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CfngenError(
            f"{path}: cannot read it ({exc})",
            "an earlier cfngen command was interrupted while writing; check the project "
            "with `git status`, then delete the file",
        ) from None
    with signals_deferred():
        if state == "committed":
            _finish(root, journal)
            return []
        _undo(root, journal, applied=state == "committing")
    return [
        f"an earlier cfngen command was interrupted while writing {count} file(s) in {root}; "
        "they were put back as they were"
    ]


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
