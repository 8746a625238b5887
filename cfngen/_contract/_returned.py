"""What a handler returns: the runtime library reads only its ProgressEvent, and fails on
anything else far from the handler (`'NoneType' object has no attribute 'status'`), naming
neither the handler nor what it returned. cfngen's wrapper around each registered handler
(cfngen/_contract/_entrypoint.py) checks the value first and says both."""

from __future__ import annotations

import contextlib
import inspect
import linecache
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


class NotAProgressEvent(TypeError):
    """A handler returned something other than a progress event: the runtime library would
    fail reading it (`'NoneType' object has no attribute 'status'`), naming neither."""

    def __init__(self, message: str, returned: str, where: tuple[str, int], function: str):
        super().__init__(message)
        self.returned = returned
        self.where = where
        self.function = function


def is_progress_event(value: Any) -> bool:
    """Whether `value` is the runtime library's ProgressEvent (the only answer it reads)."""
    interface = sys.modules.get("cloudformation_cli_python_lib.interface")
    event_type = getattr(interface, "ProgressEvent", None)
    return not isinstance(event_type, type) or isinstance(value, event_type)


def not_a_progress_event(
    function: Callable[..., Any], action: str, returned: Any, root: Path
) -> NotAProgressEvent:
    original = inspect.unwrap(function)
    name = getattr(original, "__name__", repr(original))
    code = getattr(original, "__code__", None)
    path = Path(code.co_filename) if code is not None else Path("?")
    with contextlib.suppress(ValueError, OSError):
        path = path.resolve().relative_to(root.resolve())
    where = (path.as_posix(), _def_line(code) if code is not None else 1)
    what = "None" if returned is None else f"a {type(returned).__name__}"
    if returned is not None:
        shown = repr(returned)
        what += f" ({shown if len(shown) <= 60 else shown[:57] + '...'})"
    return NotAProgressEvent(
        f"the {action} handler {name} ({where[0]}:{where[1]}) returned {what}; it must return "
        "a ProgressEvent",
        what,
        where,
        name,
    )


def _def_line(code: Any) -> int:
    """The line of a function's `def` (its code's first line is its first decorator's)."""
    line: int = code.co_firstlineno
    for offset in range(50):
        text = linecache.getline(code.co_filename, line + offset).lstrip()
        if text.startswith(("def ", "async def ")):
            return line + offset
    return line
