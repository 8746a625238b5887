"""cfngen's home folder, and what commands should hear about it.

The home is `$CFNGEN_HOME`, else `~/.cfngen`. It holds the template repositories copier renders
from (`templates/<kind>`, see cfngen/_init/_template_cache.py) and the caches (`cache/<name>/`,
see _cache), which only ever save time. A home that cannot be used (a file where the folder
would be, a read-only file system, a full disk, no home folder at all) never stops a command:
the caches are bypassed and the command says so once, with what to do about it.

What the caches have to tell (a home bypassed, a damaged entry removed) is collected here as
notes, one of each; the CLI shows them as warnings when the command ends (`take_notes`).
"""

from __future__ import annotations

import os
from pathlib import Path

from cfngen._errors import CfngenError

ENV_HOME = "CFNGEN_HOME"
#: Set (to anything but the empty string): no cache is read or written.
ENV_NO_CACHE = "CFNGEN_NO_CACHE"
#: The home as an answers file records it: the same on every machine (copier expands `~`).
DEFAULT = "~/.cfngen"

_notes: list[str] = []
_home_reported = False


def home() -> Path:
    """The home folder (it may not exist yet, or be unusable); CfngenError when there is none
    (no CFNGEN_HOME and no home directory to put `.cfngen` in)."""
    configured = os.environ.get(ENV_HOME)
    if configured:
        return Path(configured).expanduser().absolute()
    try:
        return Path.home() / ".cfngen"
    except (RuntimeError, KeyError):  # pathlib's and pwd's ways of saying there is none
        raise CfngenError(
            "there is no home folder to keep cfngen's files in", f"set {ENV_HOME} to a folder"
        ) from None


def caches_off() -> bool:
    return bool(os.environ.get(ENV_NO_CACHE))


def note(message: str) -> None:
    """Something the user should hear about once, when the command ends."""
    if message not in _notes:
        _notes.append(message)


def take_notes() -> list[str]:
    """The notes so far, in order; they are forgotten (a command's notes are its own, and so
    is its one warning about a home it cannot use)."""
    global _home_reported  # noqa: PLW0603 - see bypassed
    taken = list(_notes)
    _notes.clear()
    _home_reported = False
    return taken


def bypassed(problem: str) -> None:
    """Say once per command that the caches are not used, why, and what to do."""
    global _home_reported  # noqa: PLW0603 - one warning per command, whichever cache meets it
    if _home_reported:
        return
    _home_reported = True
    try:
        where = f"in {home()} "
    except CfngenError:
        where = ""
    note(
        f"cfngen's caches {where}are not used: {problem}; commands work without them, only "
        f"slower (point {ENV_HOME} at a folder you can write to, or turn caches off with "
        f"{ENV_NO_CACHE}=1; `cfngen build` also takes --no-cache)"
    )


def unusable(exc: OSError) -> str:
    """Why a path in the home could not be made or written, in words (the part of the path
    that is not a folder, when that is why)."""
    import errno

    from cfngen._files._read import inspect, reason

    if exc.errno in (errno.ENOTDIR, errno.EEXIST) and exc.filename:
        path = Path(os.fsdecode(exc.filename))
        for candidate in (path, *path.parents):
            try:
                found = inspect(candidate)
            except CfngenError:
                continue
            if found.kind == "file":
                return f"{candidate} is a file, not a folder"
            if found.kind == "other" and found.detail != "a folder":
                return f"{candidate} is {found.detail}, not a folder"
            if found.kind == "symlink" and not candidate.is_dir():
                return f"{candidate} is a symbolic link to {found.detail}, not a folder"
    return reason(exc)
