"""A cache of fragment reports, so an unchanged fragment is not linted again.

Most of `cfngen validate`'s time on a module is cfn-lint starting up (importing it and loading
its ~340 rules costs 1-2 s; linting a fragment ~0.1 s), which the official `cfn validate` pays on
every run too. A report is a pure function of the fragment's bytes, cfngen's and cfn-lint's
versions (and the checks' source), and the projects available locally (their `.rpdk-config`
and fragments), so it is stored under that key in `~/.cfngen/cache/module-reports/`
(CFNGEN_HOME moves it) and read back instead of running anything. A cache that cannot be read
or written is simply not used; `CFNGEN_NO_CACHE=1` turns it off.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from cfngen import __version__
from cfngen._diagnostics import Diagnostic

ENV_OFF = "CFNGEN_NO_CACHE"
#: Bump when the report's shape or the checks change without a version change.
_FORMAT = "1"


def _folder() -> Path:
    from cfngen._init._template_cache import cfngen_home

    return cfngen_home() / "cache" / "module-reports"


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
    if os.environ.get(ENV_OFF):
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


def load(cache_key: str | None) -> tuple[list[Diagnostic], Any] | None:
    if cache_key is None:
        return None
    try:
        data = json.loads((_folder() / f"{cache_key}.json").read_text(encoding="utf-8"))
        diagnostics = [
            Diagnostic(d["severity"], d["pointer"], d["message"], d["hint"], d["line"], d["column"])
            for d in data["diagnostics"]
        ]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return diagnostics, data.get("template")


def store(cache_key: str | None, diagnostics: list[Diagnostic], template: Any) -> None:
    if cache_key is None:
        return
    folder = _folder()
    body = json.dumps(
        {"diagnostics": [d.as_json() for d in diagnostics], "template": template}
    ).encode()
    from cfngen._files import write_atomic

    # A cache that cannot be written (a full disk, a read-only home) only costs speed.
    with contextlib.suppress(OSError):
        write_atomic(folder / f"{cache_key}.json", body)
