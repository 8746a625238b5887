"""The project's modules compiled once per content, however often they are imported.

The handler package is imported again for every test, as a new Lambda container would import
it. Python reads a module's code from its `__pycache__` when it can; when it cannot (the
folder is read-only, or PYTHONDONTWRITEBYTECODE is set, as on many CI and sandbox machines) it
compiles the source again at every import: 16 times a run for the example's handlers. Within
`compiled_once(root)`, the source files under `root` that Python compiles are compiled once per
(path, source bytes) and the same code object, which nothing can change, is executed at each
import; the module itself is still made and executed afresh every time.

The same goes for the methods `dataclasses` writes for each dataclass (`__init__`, `__repr__`,
`__eq__`, ...): it renders their source and hands it to `exec`, which compiles it again at every
import, and that was three quarters of importing the example's handler package (its models,
the runtime module's classes: 36 methods, 4 of the 6 ms). Within the block, the `exec` that
`dataclasses` calls compiles each source text once (as `exec` does: no inherited flags) and runs
the same code object; every class still gets its own new functions.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import importlib.machinery
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cfngen._files import sha256

#: Code objects by (path, digest of the source).
_CODE: dict[tuple[str, str], Any] = {}
#: Code objects of the methods dataclasses wrote, by their source.
_METHODS: dict[str, Any] = {}


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
    # dataclasses finds `exec` among the builtins; a name of its own goes first.
    namespace = vars(dataclasses)
    previous = namespace.get("exec", builtins)
    namespace["exec"] = _exec_compiled_once
    try:
        yield
    finally:
        loader.source_to_code = original  # type: ignore[method-assign]
        if previous is builtins:
            namespace.pop("exec", None)
        else:
            namespace["exec"] = previous


def _exec_compiled_once(source: Any, globals_: Any = None, locals_: Any = None) -> None:
    """`exec` for dataclasses: a source text compiled once, as `exec` itself compiles it."""
    if isinstance(source, str):
        code = _METHODS.get(source)
        if code is None:
            code = _METHODS[source] = compile(source, "<string>", "exec", dont_inherit=True)
        source = code
    exec(source, globals_, locals_)


def compile_ahead(paths: list[Path]) -> None:
    """Compile `paths` (Python sources) into the cache without running them: a watch session
    does it after each run, so its next run's imports find the files that did not change
    compiled. A file that does not compile is left to the import, which reports it."""
    loader = importlib.machinery.SourceFileLoader
    for path in paths:
        name = str(path)
        try:
            data = path.read_bytes()
        except OSError:
            continue
        key = (name, sha256(data))
        if key in _CODE:
            continue
        try:
            _CODE[key] = loader(path.stem, name).source_to_code(data, name)
        except (SyntaxError, ValueError):
            continue
