"""Model modules remembered across runs: the same schema never goes through the generator twice.

A target's model is a pure function of its schema, the class name and the code that renders it
(cfngen's models pipeline and the pinned datamodel-code-generator and ruff). The bundled target
schemas change only with cfn-lint, so most hooks model the same few types again and again, and
the generator needs 0.4 s to import and up to a second per large schema (AWS::S3::Bucket: 0.6 s).
The text is kept under `$CFNGEN_HOME/cache/models/` (default `~/.cfngen`), named by a sha256 of
everything it depends on, written atomically; a missing or unreadable cache only costs time.
`CFNGEN_NO_CACHE=1` turns it off (the benchmarks measure both).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from importlib import metadata
from pathlib import Path
from typing import Any

from cfngen import __version__
from cfngen._files import write_atomic


@functools.cache
def _code_digest() -> str:
    """What the rendered text depends on besides the schema: cfngen's models code, the
    generator's and the formatter's versions."""
    import cfngen._models

    digest = hashlib.sha256(__version__.encode())
    folder = Path(cfngen._models.__file__).parent
    for path in sorted(folder.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    for package in ("datamodel-code-generator", "ruff", "black"):
        try:
            digest.update(f"{package}={metadata.version(package)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{package}=none".encode())
    return digest.hexdigest()


def cache_dir() -> Path:
    from cfngen._init._template_cache import cfngen_home

    return cfngen_home() / "cache" / "models"


def model_text(schema: dict[str, Any], root: str) -> str:
    """`models_source(schema, root=root)`, from the cache when it was rendered before."""
    from cfngen._models import models_source

    if os.environ.get("CFNGEN_NO_CACHE"):
        return models_source(schema, root=root)
    key = hashlib.sha256(
        json.dumps([_code_digest(), root, schema], sort_keys=True).encode()
    ).hexdigest()
    path = cache_dir() / f"{key}.py"
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        pass
    text = models_source(schema, root=root)
    # A read-only home: generate still works, only slower next time.
    with contextlib.suppress(OSError):
        write_atomic(path, text)
    return text
