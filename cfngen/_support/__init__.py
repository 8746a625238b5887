"""Files cfngen writes verbatim into users' projects (beside their handlers).

They run on the project's Lambda runtime, not on cfngen's Python: standard library and
cloudformation-cli-python-lib only, and code that every runtime a project may declare accepts.
`cfngen generate` copies them with its header line; `source(name)` is their text.
"""

from __future__ import annotations

import functools
from pathlib import Path


@functools.cache
def source(name: str) -> str:
    """The text of the support file `name` (e.g. "cfngen_runtime.py")."""
    return Path(__file__).with_name(name).read_text(encoding="utf-8")
