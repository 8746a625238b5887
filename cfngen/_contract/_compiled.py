"""The project's modules compiled once per content, however often they are imported.

The handler package is imported again for every test, as a new Lambda container would import
it. Python reads a module's code from its `__pycache__` when it can; when it cannot (the
folder is read-only, or PYTHONDONTWRITEBYTECODE is set, as on many CI and sandbox machines) it
compiles the source again at every import: 16 times a run for the example's handlers. Within
`compiled_once(root)`, the source files under `root` that Python compiles are compiled once per
(path, source bytes) and the same code object, which nothing can change, is executed at each
import; the module itself is still made and executed afresh every time.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cfngen._files import sha256

#: Code objects by (path, digest of the source).
_CODE: dict[tuple[str, str], Any] = {}


@contextlib.contextmanager
def compiled_once(root: Path) -> Iterator[None]:
    """For the length of the block, sources under `root` are compiled once per content."""
    loader = importlib.machinery.SourceFileLoader
    original = loader.source_to_code
    prefix = str(root.resolve()) + os.sep

    def source_to_code(self: Any, data: Any, path: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(path, str) or not os.path.abspath(path).startswith(prefix):
            return original(self, data, path, *args, **kwargs)
        key = (path, sha256(bytes(data)))
        code = _CODE.get(key)
        if code is None:
            code = _CODE[key] = original(self, data, path, *args, **kwargs)
        return code

    loader.source_to_code = source_to_code  # type: ignore[method-assign]
    try:
        yield
    finally:
        loader.source_to_code = original  # type: ignore[method-assign]
