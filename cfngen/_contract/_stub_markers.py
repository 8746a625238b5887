"""The handlers a project registered that still carry the STUB marker line of a new project's
template (`# STUB:`): not written yet, so their tests say so instead of failing."""

from __future__ import annotations

import contextlib
import inspect
import linecache
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The line `cfngen init` puts in every stub handler it writes: the handler is not written yet.
#: Its return values only have the contract's shapes, so testing it would test the template.
STUB_MARKER = re.compile(r"^\s*#\s*STUB:")


@dataclass(frozen=True)
class Stub:
    """A registered handler whose source still carries the STUB marker line."""

    action: str
    #: The handler function's name, e.g. create_handler.
    function: str
    #: "src/pkg/handlers.py:57": where the marker is, relative to the project.
    where: str
    #: The marker line itself, stripped.
    line: str


def find_stubs(entrypoint: Any, root: Path) -> dict[str, Stub]:
    """The registered handlers whose own source still has the STUB marker line, by action.

    Read from the functions' source as imported (the lib keeps them in `_handlers`); a handler
    whose source cannot be read (built at run time, a C function) is never a stub.
    """
    handlers = getattr(entrypoint, "_handlers", None)
    if not isinstance(handlers, dict):
        return {}
    found: dict[str, Stub] = {}
    for action, function in handlers.items():
        name = str(getattr(action, "value", action))
        original = inspect.unwrap(function)
        marker = _stub_marker(original)
        if marker is None:
            continue
        filename, number, text = marker
        where = Path(filename)
        with contextlib.suppress(ValueError, OSError):
            where = where.resolve().relative_to(root.resolve())
        found[name] = Stub(
            action=name,
            function=getattr(original, "__name__", repr(original)),
            where=f"{where.as_posix()}:{number}",
            line=text,
        )
    return found


#: `_stub_marker` by (file, its size and mtime, the function's first line): the project's
#: package is imported again for every test, and reading a function's source tokenizes its
#: file (a quarter of the time of an import of the example's package).
_MARKERS: dict[tuple[str, int, int, int], tuple[str, int, str] | None] = {}


def _stub_marker(function: Any) -> tuple[str, int, str] | None:
    """(file, line number, line) of the STUB marker in the function's own source, or None."""
    code = getattr(function, "__code__", None)
    try:
        filename = inspect.getsourcefile(function)
        stat = os.stat(filename) if filename is not None else None
    except (OSError, TypeError):
        return None
    key = None
    if filename is not None and stat is not None and code is not None:
        key = (filename, stat.st_size, stat.st_mtime_ns, code.co_firstlineno)
        if key in _MARKERS:
            return _MARKERS[key]
    try:
        if filename is not None:
            # The file may have changed since an earlier import in this process.
            linecache.checkcache(filename)
        lines, start = inspect.getsourcelines(function)
    except (OSError, TypeError):
        return None
    found = None
    for offset, text in enumerate(lines):
        if STUB_MARKER.match(text):
            found = (filename or "?", start + offset, text.strip())
            break
    if key is not None:
        _MARKERS[key] = found
    return found
