"""What a handler prints and logs, and the exception it raised, kept per handler call.

Handlers run in a worker thread (so a hung one cannot hang cfngen) of the runner's worker
process. While a run is in progress, sys.stdout, sys.stderr and the root logger send whatever
a worker thread writes to that thread's Sink; everything else passes through untouched. The
runtime library reports a handler exception by printing its traceback (or logging it): that
output is dropped here because the Sink already holds the exception itself (shown as type,
message and the handler's own frames), and for the contract's error exceptions the progress
event says it all.
"""

from __future__ import annotations

import logging
import sys
import threading
from typing import Any, TextIO

_local = threading.local()

#: Libraries whose INFO/DEBUG records are noise next to the handler's own log lines.
_QUIET_LOGGERS = ("botocore", "boto3", "urllib3", "s3transfer", "moto", "responses", "werkzeug")


class Sink:
    """Output and exception of one handler call, in the order they happened."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        #: The exception that escaped a handler function (not one of the contract's error
        #: exceptions, which are the handler's way to return FAILED with an error code).
        self.crash: BaseException | None = None
        #: Any exception that escaped a handler function, crash or contract error: the
        #: runtime library prints its traceback, which says nothing the event does not.
        self.escaped: BaseException | None = None

    def write(self, text: str) -> None:
        self._parts.append(text)

    @property
    def lines(self) -> list[str]:
        return "".join(self._parts).splitlines()

    def reports_escape(self, exc: BaseException | None) -> bool:
        """Whether output is the library's report of the exception a handler raised, or of
        one raised from it (cfngen's runtime re-raises a crash as InternalFailure)."""
        seen: set[int] = set()
        while exc is not None and id(exc) not in seen:
            if exc is self.escaped:
                return True
            seen.add(id(exc))
            exc = exc.__cause__ or exc.__context__
        return False


#: Handler threads that outlived their time limit and were left to die (see _handlers).
_abandoned: list[threading.Thread] = []


def abandon(thread: threading.Thread) -> None:
    _abandoned.append(thread)


def current_sink() -> Sink | None:
    sink: Sink | None = getattr(_local, "sink", None)
    return sink


def set_sink(sink: Sink | None) -> None:
    _local.sink = sink


class _Router:
    """A stand-in for sys.stdout/sys.stderr that diverts writes made by handler threads."""

    def __init__(self, target: TextIO) -> None:
        self._target = target

    def write(self, text: str) -> int:
        sink = current_sink()
        if sink is None:
            return self._target.write(text)
        if not sink.reports_escape(sys.exc_info()[1]):
            sink.write(text)
        return len(text)

    def flush(self) -> None:
        if current_sink() is None:
            self._target.flush()

    def isatty(self) -> bool:
        return current_sink() is None and self._target.isatty()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)


class _LogHandler(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        sink = current_sink()
        if sink is None:
            return
        if record.levelno < logging.WARNING and record.name.startswith(_QUIET_LOGGERS):
            return
        if record.exc_info and sink.reports_escape(record.exc_info[1]):
            return
        try:
            sink.write(self.format(record) + "\n")
        except Exception:  # a handler's bad log call must not break the run
            self.handleError(record)


class Capture:
    """Installs the routers and the log handler for the length of a run (a context manager)."""

    def __init__(self) -> None:
        self._saved: tuple[Any, ...] | None = None
        self._handler = _LogHandler()

    def __enter__(self) -> Capture:
        root = logging.getLogger()
        self._saved = (sys.stdout, sys.stderr, list(root.handlers), root.level)
        sys.stdout = _Router(sys.stdout)
        sys.stderr = _Router(sys.stderr)
        # Only our handler on the root logger: a handler module that calls basicConfig would
        # otherwise print every record twice (once through its handler, once through ours).
        root.handlers = [self._handler]
        root.setLevel(logging.INFO)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._saved is not None
        stdout, stderr, handlers, level = self._saved
        _abandoned[:] = [thread for thread in _abandoned if thread.is_alive()]
        if not _abandoned:
            sys.stdout, sys.stderr = stdout, stderr
        # else the routers stay: a hung handler that wakes up later must not print into
        # cfngen's own output (say, the JSON document of `cfngen test --format json`). For
        # every other thread they pass writes straight through.
        root = logging.getLogger()
        root.handlers = handlers
        root.setLevel(level)
