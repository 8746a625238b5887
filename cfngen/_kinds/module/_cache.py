"""A cache of fragment reports, so an unchanged fragment is not linted again.

Most of `cfngen validate`'s time on a module is cfn-lint starting up (importing it and loading
its ~340 rules costs 1-2 s; linting a fragment ~0.1 s), which the official `cfn validate` pays on
every run too. A report is a pure function of the fragment's bytes, cfngen's and cfn-lint's
versions (and the checks' source), and the projects available locally (their `.rpdk-config`
and fragments), so it is stored under that key in the cache `module-reports` of cfngen's home
(cfngen/_files/_cache.py: verified on every read, a damaged entry checked again) and read back
instead of running anything. A cache that cannot be read or written is simply not used;
`CFNGEN_NO_CACHE=1` turns it off.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

from cfngen import __version__
from cfngen._diagnostics import Diagnostic
from cfngen._files import Cache, caches_off

#: Bump when the report's shape or the checks change without a version change.
_FORMAT = "2"  # 2: each diagnostic carries its code
#: Reports are a few KB; as many as the model cache keeps models.
CACHE = Cache("module-reports", keep=512, what="the module report cache")


def _cfnlint_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cfn-lint")
    except PackageNotFoundError:
        return "none"


@functools.cache
def _code_digest() -> str:
    """The checks' own source: an edited cfngen (a development checkout) never reads a report
    an older version of the checks wrote."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def key(text: str, *, root: Path | None, own_type: str | None) -> str | None:
    """The cache key of a fragment's report, or None when the cache is off."""
    if caches_off():
        return None
    from cfngen._kinds.module._local import local_types

    digest = hashlib.sha256()
    digest.update(_code_digest().encode())
    for part in (_FORMAT, __version__, _cfnlint_version(), own_type or "", text):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    for name, found in sorted(local_types(root).items()):
        digest.update(name.encode() + b"\0")
        fragment = found.fragment() if found.is_module else None
        if fragment is not None:
            try:
                digest.update(fragment.read_bytes() + b"\0")
            except OSError:
                return None
    return digest.hexdigest()


_FIELDS = ("severity", "pointer", "message", "hint", "line", "column")


def load(cache_key: str | None) -> tuple[list[Diagnostic], Any] | None:
    if cache_key is None:
        return None
    content = CACHE.get(cache_key)
    if content is None:
        return None
    try:
        data = json.loads(content)
        diagnostics = [
            Diagnostic(**{k: d[k] for k in _FIELDS}, code=d["code"]) for d in data["diagnostics"]
        ]
    except (ValueError, KeyError, TypeError):
        return None  # verified, so written by a cfngen whose report had another shape
    return diagnostics, data.get("template")


def store(cache_key: str | None, diagnostics: list[Diagnostic], template: Any) -> None:
    if cache_key is None:
        return
    body = json.dumps({"diagnostics": [d.as_json() for d in diagnostics], "template": template})
    CACHE.put(cache_key, body.encode())
