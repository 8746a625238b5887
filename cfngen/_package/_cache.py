"""The build cache: installed dependencies and handler zips, keyed on everything they derive from.

`$CFNGEN_HOME/build/deps/<key>/` holds a dependency install for one (requirements, platform,
pip options) and `$CFNGEN_HOME/build/handlers/<key>.zip` one handler zip. An entry is written
in a temporary sibling and renamed into place, so a reader never sees half of one, and a build
that races another just keeps whichever landed first. The newest few of each are kept.

Requirements are matched by text: `pkg>=2,<3` stays installed as it was resolved until the text
changes or `--refresh` asks pip again. Requirements that name local folders or files are never
cached: what they point at can change without the text changing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from cfngen import __version__
from cfngen._init._template_cache import cfngen_home

#: Bump when the layout of a cache entry changes.
_FORMAT = 2
_KEEP = {"deps": 6, "handlers": 16}
_INCLUDE = re.compile(r"^\s*(?:-r|--requirement|-c|--constraint)(?:\s+|=)(\S+)")
_LOCAL = re.compile(
    r"^\s*(?:-e|--editable|\.|/|~|file:)|@\s*file:|^\s*[\w.-]+\.(?:whl|zip|tar\.gz)\b"
)


def cache_root() -> Path:
    return cfngen_home() / "build"


def digest(*parts: object) -> str:
    """A short stable key for JSON-able `parts`."""
    text = json.dumps([_FORMAT, __version__, *parts], sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def requirements_text(path: Path) -> str | None:
    """The text of a requirements file and every file it includes, or None when any of them
    names a local path (then the install cannot be keyed on text)."""
    seen: set[Path] = set()
    chunks: list[str] = []

    def read(file: Path) -> bool:
        file = file.resolve()
        if file in seen:
            return True
        seen.add(file)
        text = file.read_text(encoding="utf-8")
        chunks.append(f"# {file.name}\n{text}")
        for line in text.splitlines():
            if _LOCAL.search(line):
                return False
            include = _INCLUDE.match(line)
            if include and not read(file.parent / include.group(1)):
                return False
        return True

    try:
        return "\n".join(chunks) if read(path) else None
    except OSError:
        return None


def pip_environment() -> dict[str, str]:
    """pip settings from the environment (index, find-links): they change what it installs."""
    return {k: v for k, v in sorted(os.environ.items()) if k.startswith("PIP_")}


def lookup(kind: str, key: str, suffix: str = "") -> Path | None:
    path = cache_root() / kind / f"{key}{suffix}"
    if not path.exists():
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # the newest are kept
    return path


def store_file(kind: str, key: str, data: bytes, suffix: str) -> None:
    folder = cache_root() / kind
    with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, folder / f"{key}{suffix}")
        _prune(folder, kind)


def new_folder(kind: str) -> Path:
    """A fresh temporary folder inside the cache, to fill and then `commit_folder`."""
    folder = cache_root() / kind
    folder.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(dir=folder, prefix=".tmp-"))


def commit_folder(kind: str, key: str, filled: Path) -> Path:
    final = cache_root() / kind / key
    try:
        os.replace(filled, final)
    except OSError:  # another build stored the same key first: keep that one
        shutil.rmtree(filled, ignore_errors=True)
    _prune(final.parent, kind)
    return final


def discard(paths: Iterable[Path]) -> None:
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)


def _prune(folder: Path, kind: str) -> None:
    """Keep the newest entries; drop what a killed build left half-made over a day ago."""
    stale = time.time() - 86_400
    for tmp in folder.glob(".tmp-*"):
        with contextlib.suppress(OSError):
            if tmp.stat().st_mtime >= stale:
                continue
            if tmp.is_dir():
                shutil.rmtree(tmp, ignore_errors=True)
            else:
                tmp.unlink()
    entries = [p for p in folder.iterdir() if not p.name.startswith(".tmp-")]
    entries.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[_KEEP[kind] :]:
        if old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                old.unlink()
