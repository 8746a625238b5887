"""Model modules remembered across runs: the same schema never goes through the generator twice.

A models module is a pure function of its schema and settings and of the code that renders it:
cfngen's own code, the pinned datamodel-code-generator (and pydantic, which it runs on), ruff
or black, and the Python running them. Rendering one costs 0.4 s to import the generator and up
to a second more per large schema, and many are rendered again and again: every generate of a
hook that targets the same bundled type, every `generate --force` or schema edit undone, every
`cfngen init` of a type made before.

The text is kept under `$CFNGEN_HOME/cache/models/` (default `~/.cfngen`), named by a sha256 of
everything it depends on, written atomically. A missing, unreadable or read-only cache only
costs time; the folder keeps the `LIMIT` entries read or written last (and a write killed
half-way leaves a temporary file that a write an hour later removes). `CFNGEN_NO_CACHE=1`
turns it off (the benchmarks measure both).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

ENV_OFF = "CFNGEN_NO_CACHE"
#: Entries kept: enough for every schema a user's projects model, bounded when a schema is
#: edited over and over (a models module is 5-100 KB).
LIMIT = 512
_PACKAGES = ("datamodel-code-generator", "pydantic", "pydantic-core", "ruff", "black")


def _cfngen() -> Path:
    import cfngen

    return Path(cfngen.__file__).parent


@functools.cache
def code_digest(package: Path | None = None) -> str:
    """Everything but the inputs that the text depends on. All of cfngen's source (`package`),
    not only the models package: an edited checkout never reads what the code before the edit
    wrote."""
    package = package or _cfngen()
    digest = hashlib.sha256(f"python={sys.version_info[:2]}".encode())
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    for name in _PACKAGES:
        try:
            digest.update(f"{name}={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name}=none".encode())
    return digest.hexdigest()


def folder() -> Path:
    from cfngen._init._template_cache import cfngen_home

    return cfngen_home() / "cache" / "models"


def remembered(inputs: list[Any], render: Callable[[], str]) -> str:
    """render(), or what it returned before for the same `inputs` (JSON values) and code."""
    if os.environ.get(ENV_OFF):
        return render()
    try:
        key = json.dumps([code_digest(), inputs], sort_keys=True)
        path = folder() / f"{hashlib.sha256(key.encode()).hexdigest()}.py"
    except (TypeError, ValueError, RecursionError, OSError, RuntimeError):
        # No key: inputs no JSON file could hold, unreadable code, or no home folder.
        return render()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        pass
    else:
        with contextlib.suppress(OSError):
            os.utime(path)  # read last: kept longest
        return text
    text = render()
    # A read-only home: generate still works, only slower next time.
    with contextlib.suppress(OSError):
        from cfngen._files import write_atomic

        write_atomic(path, text)
        prune(path.parent, LIMIT)
    return text


def prune(where: Path, limit: int) -> None:
    """Delete the entries read or written longest ago beyond `limit`, and what a write killed
    half-way left (write_atomic's `.tmp` sibling) once it is an hour old."""
    entries = []
    stale = time.time_ns() - 3600 * 10**9
    with os.scandir(where) as scan:
        for entry in scan:
            with contextlib.suppress(OSError):
                if entry.name.endswith(".py"):
                    entries.append((entry.stat().st_mtime_ns, entry.path))
                elif entry.name.endswith(".tmp") and entry.stat().st_mtime_ns < stale:
                    os.unlink(entry.path)
    if len(entries) <= limit:
        return
    for _, path in sorted(entries)[: len(entries) - limit]:
        with contextlib.suppress(OSError):
            os.unlink(path)
