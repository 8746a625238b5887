"""Model modules remembered across runs: the same schema never goes through the generator twice.

A models module is a pure function of its schema and settings and of the code that renders it:
cfngen's own code, the pinned datamodel-code-generator (and pydantic, which it runs on), ruff
or black, and the Python running them. Rendering one costs 0.4 s to import the generator and up
to a second more per large schema, and many are rendered again and again: every generate of a
hook that targets the same bundled type, every `generate --force` or schema edit undone, every
`cfngen init` of a type made before.

The text is kept in the cache `models` of cfngen's home (cfngen/_files/_cache.py:
`$CFNGEN_HOME/cache/models/`, default `~/.cfngen`), named by a sha256 of everything it depends
on and verified by its own digest on every read, so a damaged entry is rendered again, never
written into a project. A missing, unreadable or read-only cache only costs time; the cache
keeps the `LIMIT` entries read or written last. `CFNGEN_NO_CACHE=1` turns it off (the
benchmarks measure both).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from cfngen._files import Cache, caches_off, sha256

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


#: The one cache of rendered models (cfngen/_files/_cache.py: verified on every read).
CACHE = Cache("models", keep=LIMIT, what="the model cache")


def remembered(inputs: list[Any], render: Callable[[], str]) -> str:
    """render(), or what it returned before for the same `inputs` (JSON values) and code."""
    if caches_off():
        return render()
    try:
        key = json.dumps([code_digest(), inputs], sort_keys=True)
    except (TypeError, ValueError, RecursionError, OSError):
        # No key: inputs no JSON file could hold, or unreadable code.
        return render()
    key = sha256(key.encode())
    cached = CACHE.get(key)
    if cached is not None:
        with contextlib.suppress(UnicodeDecodeError):
            return cached.decode("utf-8")
    text = render()
    CACHE.put(key, text.encode("utf-8"))
    return text
