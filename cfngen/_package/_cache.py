"""The build's caches: installed dependencies and handler zips, keyed on everything they derive
from, in cfngen's home (cfngen/_files/_cache.py: each entry verified on every read, a damaged
one built again).

`DEPS` (`$CFNGEN_HOME/cache/build-deps/<key>/`) holds a dependency install for one
(requirements, platform, pip options), `HANDLERS` (`.../build-handlers/<key>`) one handler zip
with what it ships. A build that races another keeps whichever landed first. The ones used
last are kept.

Requirements are matched by text: `pkg>=2,<3` stays installed as it was resolved until the text
changes or `--refresh` asks pip again. Requirements that name local folders or files are never
cached: what they point at can change without the text changing.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from cfngen import __version__
from cfngen._files import Cache, sha256

#: Bump when the layout of a cache entry changes.
_FORMAT = 3
DEPS = Cache("build-deps", keep=6, what="the build's dependency cache")
HANDLERS = Cache("build-handlers", keep=16, what="the build's handler cache")
_INCLUDE = re.compile(r"^\s*(?:-r|--requirement|-c|--constraint)(?:\s+|=)(\S+)")
_LOCAL = re.compile(
    r"^\s*(?:-e|--editable|\.|/|~|file:)|@\s*file:|^\s*[\w.-]+\.(?:whl|zip|tar\.gz)\b"
)


def digest(*parts: object) -> str:
    """A short stable key for JSON-able `parts`."""
    text = json.dumps([_FORMAT, __version__, *parts], sort_keys=True, default=str)
    return sha256(text.encode("utf-8"))[:32]


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
