"""A project's handler module, imported into this process, whatever its protocol.

The entrypoint of `.rpdk-config` (`pkg.handlers.resource`, `pkg.handlers.hook`) is imported
with what it prints captured; its registered handler functions (the runtime library keeps them
in `_handlers`, for Resource and Hook alike) are wrapped so that an exception escaping one is
kept before the library turns it into a bare InternalFailure, and read for the STUB marker of
`cfngen init`.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from cfngen._contract._capture import Sink, current_sink, set_sink
from cfngen._contract._compiled import compiled_once
from cfngen._contract._requirements import REQUIREMENTS_FILE, install_requirements, to_install
from cfngen._contract._returned import NotAProgressEvent, is_progress_event, not_a_progress_event
from cfngen._contract._stub_markers import Stub, find_stubs
from cfngen._errors import CfngenError, ExitCode
from cfngen._languages._python import Located

#: What the next Entrypoint made in this process calls first, once, before it reads anything of
#: the project's code (`gate_import`).
_gate: list[Callable[[], None]] = []


def gate_import(wait: Callable[[], None]) -> None:
    """Have the next Entrypoint made in this process (or `before_project_code`) call `wait()`
    before it imports the project's code: a watch session's run forked ahead of the save
    waits there for it (cfngen/_watch_standby.py); `wait` raises to end the run instead."""
    _gate[:] = [wait]


def before_project_code() -> None:
    """What runs before the project's code is first imported, outside an Entrypoint too (a
    Lambda function's init, imported once before the tests): the gate, if one is set."""
    while _gate:
        _gate.pop()()


class HandlerProject(Located, Protocol):
    """What the runner needs of a project: its folder and its language, which says where
    the handlers are and whether they can be imported (`language.layout(project)`; a
    `cfngen._project.Project` is one; the runner knows no kind)."""


def handlers_folder(project: HandlerProject) -> Path:
    """The folder the sandbox puts on sys.path: Python's src/, which the handlers are imported
    from; the plugin's src/ for a language whose handlers run in a runtime of their own
    (nothing is imported from it)."""
    if project.language.runtime is not None:
        return project.root / "src"
    return project.language.layout(project).src_dir


@dataclass
class HandlerCrash:
    """An exception that escaped a handler function, or a return value the runtime library
    cannot read (which crashes inside it, far from the handler)."""

    type: str
    message: str
    #: "file:line in function" and the source line, for the frames in the project's own files.
    frames: list[str]
    #: The deepest of those frames (where it happened): path relative to the project, line.
    location: tuple[str, int] | None = None
    #: What the handler returned instead of a progress event ("None", "a dict"), if that
    #: was the crash.
    returned: str | None = None

    @property
    def headline(self) -> str:
        if self.returned is not None:
            return self.message
        if self.type == "NotImplementedError" and "not implemented" not in self.message.lower():
            return f"NotImplementedError: {self.message or 'the handler'} (not implemented)"
        return f"{self.type}: {self.message}" if self.message else self.type

    @property
    def account(self) -> str:
        """What the handler did, after "the handler": "raised KeyError: 'x'", "returned None;
        it must return a ProgressEvent"."""
        if self.returned is not None:
            return f"returned {self.returned}; it must return a ProgressEvent"
        return f"raised {self.headline}"

    @property
    def cause(self) -> str:
        """The crash in one line, the same for every test it made fail."""
        where = f" at {self.location[0]}:{self.location[1]}" if self.location else ""
        return f"{self.account}{where}"


@dataclass(frozen=True)
class Source:
    """Where an entrypoint is when it is not `.rpdk-config`'s (a custom resource's function,
    found in its template): the folder put on sys.path and `module.attribute` in it."""

    directory: Path
    name: str


class Entrypoint:
    """The project's entrypoint object, imported once (`reload` imports it again)."""

    def __init__(
        self,
        project: HandlerProject,
        adapt: Callable[[Any], None] | None = None,
        source: Source | None = None,
    ) -> None:
        self.project = project
        self._adapt = adapt
        self._source = source
        #: What the handler module printed or logged while it was imported.
        self.import_output: list[str] = []
        #: Actions whose handler is still a stub of `cfngen init` (found at each import).
        self.stubs: dict[str, Stub] = {}
        #: Handlers that outlived their limit, by `handler_key`: calling them again would
        #: only wait again. Why, as shown to the user.
        self.hung: dict[str, str] = {}
        #: Folders of requirements installed for the run (on sys.path until `close`), and
        #: what the user should know about them.
        self.installed: list[str] = []
        self.notes: list[str] = []
        before_project_code()
        try:
            self.function: Callable[[dict[str, Any], Any], Any] = self._load()
        except BaseException:
            self.close()
            raise

    def reload(self) -> None:
        """Import the project's package again: module-level state (caches, clients, an
        in-memory store) starts afresh, as in a new Lambda container. Only the project's own
        modules are imported again (a few milliseconds), not the libraries."""
        self.function = self._load()

    def handler_key(self, name: str) -> str:
        """Which handler function serves `name` (an action, an invocation point): one
        function may serve several, and a hung function hangs them all."""
        handlers = getattr(self.function, "_handlers", None)
        if isinstance(handlers, dict):
            for key, function in handlers.items():
                if str(getattr(key, "value", key)) == name:
                    # By name, not identity: the same after the module is imported again.
                    original = inspect.unwrap(function)
                    module = getattr(original, "__module__", "?")
                    return f"{module}.{getattr(original, '__qualname__', name)}"
        return name

    def _load(self) -> Callable[[dict[str, Any], Any], Any]:
        project = self.project
        if self._source is None:
            problem = project.language.handler_problem(project)
            if problem is not None:  # `os.system` must not be imported as the project's handlers
                raise problem
            name = project.language.layout(project).entrypoint
        else:
            name = self._source.name
        module_name, _, attribute = name.rpartition(".")
        package = module_name.split(".")[0]
        # Another project's package of the same name may be loaded (tests, or a second run).
        for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
            del sys.modules[name]
        importlib.invalidate_caches()
        # What the module prints or logs while it is imported is handler output too.
        sink = Sink()
        set_sink(sink)
        try:
            with compiled_once(self.project.root):
                module = self._import(module_name, package)
        except CfngenError:
            raise
        except Exception as exc:
            crash = self.crash(exc)
            raise CfngenError(
                "\n".join([f"importing {module_name} failed: {crash.headline}", *crash.frames]),
                "fix the error in the handler module",
                exit_code=ExitCode.FAILED,
            ) from None
        finally:
            set_sink(None)
        self.import_output = sink.lines
        entrypoint = getattr(module, attribute, None)
        if not callable(entrypoint):
            raise CfngenError(
                f"{module_name} has no callable {attribute!r} (the entrypoint in .rpdk-config)",
                f"define `{attribute} = Resource(TYPE_NAME, ResourceModel)` in {module_name}",
            )
        if self._adapt is not None:
            self._adapt(entrypoint)
        self.stubs = find_stubs(entrypoint, self.project.root)
        _record_crashes(entrypoint, self.project.root)
        return entrypoint  # type: ignore[no-any-return]

    def _import(self, module_name: str, package: str) -> Any:
        """The handler module; when a module it imports is missing, the project's
        requirements.txt installed for the run first (cfngen/_contract/_requirements.py)."""
        try:
            return importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            missing = (exc.name or "").split(".")[0]
            requirements = self.project.root / REQUIREMENTS_FILE
            if (
                self._source is not None  # a custom resource's function installs its own
                or missing in ("", package)
                or self.installed
                or to_install(requirements) is None
            ):
                raise self._import_error(module_name, exc) from None
            folder = install_requirements(requirements)
            self.installed.append(folder)
            sys.path.append(folder)  # last: cfngen's own packages come first
            self.notes.append(
                f"No module named {missing!r}: installed {REQUIREMENTS_FILE} for the run ({folder})"
            )
            for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
                del sys.modules[name]
            importlib.invalidate_caches()
            try:
                return importlib.import_module(module_name)
            except ImportError as again:
                raise self._import_error(module_name, again) from None
        except ImportError as exc:
            raise self._import_error(module_name, exc) from None

    def _import_error(self, module_name: str, exc: ImportError) -> CfngenError:
        """What to do about a module the handlers import that is not there: name it."""
        missing = (getattr(exc, "name", None) or "").split(".")[0]
        message = f"cannot import {module_name}: {type(exc).__name__}: {exc}"
        package = module_name.split(".", maxsplit=1)[0]
        if not isinstance(exc, ModuleNotFoundError) or missing in ("", package):
            return CfngenError(
                message,
                "run `cfngen generate` if models.py is missing, and install the project's "
                "requirements into the environment cfngen runs in",
            )
        requirements = self.project.root / REQUIREMENTS_FILE
        install = f"`{sys.executable} -m pip install <the distribution that provides {missing}>`"
        if self.installed:
            return CfngenError(
                message + f" (after installing {REQUIREMENTS_FILE} for the run)",
                f"add the distribution that provides {missing} to {REQUIREMENTS_FILE}, "
                f"or install it where cfngen runs: {install}",
            )
        return CfngenError(
            message,
            f"list the distribution that provides {missing} in {REQUIREMENTS_FILE} "
            f"({requirements}; cfngen installs it for the run), or install it where cfngen "
            f"runs: {install}",
        )

    def close(self) -> None:
        """Take the folders installed for the run off sys.path again, and forget the modules
        imported from them (another project's run must import its own)."""
        for folder in self.installed:
            with contextlib.suppress(ValueError):
                sys.path.remove(folder)
        prefixes = tuple(folder + os.sep for folder in self.installed)
        for name, module in list(sys.modules.items()) if prefixes else ():
            if (getattr(module, "__file__", None) or "").startswith(prefixes):
                del sys.modules[name]

    def crash(self, exc: BaseException) -> HandlerCrash:
        """The exception with the frames that are in the project's own files."""
        if isinstance(exc, NotAProgressEvent):
            return HandlerCrash(
                type(exc).__name__,
                str(exc),
                [f"  {exc.where[0]}:{exc.where[1]} in {exc.function}"],
                exc.where,
                exc.returned,
            )
        root = self.project.root.resolve()
        frames: list[str] = []
        location: tuple[str, int] | None = None
        for frame in traceback.extract_tb(exc.__traceback__):
            path = Path(frame.filename)
            if not path.is_absolute():  # <frozen importlib...>, <string>
                continue
            try:
                shown = path.resolve().relative_to(root)
            except (ValueError, OSError):
                continue
            frames.append(f"  {shown}:{frame.lineno} in {frame.name}")
            location = (shown.as_posix(), frame.lineno or 1)
            if frame.line:
                frames.append(f"    {frame.line.strip()}")
        if isinstance(exc, SyntaxError) and exc.filename:
            where = Path(exc.filename)
            with contextlib.suppress(ValueError, OSError):
                where = where.resolve().relative_to(root)
            frames.append(f"  {where}:{exc.lineno}")
            if not where.is_absolute():
                location = (where.as_posix(), exc.lineno or 1)
            if exc.text:
                frames.append(f"    {exc.text.strip()}")
        return HandlerCrash(type(exc).__name__, str(exc), frames, location)


def _record_crashes(entrypoint: Any, root: Path) -> None:
    """Note every exception that escapes a handler function before the lib swallows it, and
    every return value that is no progress event (the lib would crash reading it).

    The contract's own error exceptions (`exceptions.NotFound(...)` and friends, which have
    to_progress_event) are how a handler returns FAILED on purpose: those are not crashes.
    """
    handlers = getattr(entrypoint, "_handlers", None)
    if not isinstance(handlers, dict):
        return
    for action, function in list(handlers.items()):
        if getattr(function, "__cfngen__", False):
            continue
        handlers[action] = _recording(function, str(getattr(action, "name", action)), root)


def _recording(function: Callable[..., Any], action: str, root: Path) -> Callable[..., Any]:
    @functools.wraps(function)
    def handler(*args: Any, **kwargs: Any) -> Any:
        try:
            returned = function(*args, **kwargs)
            if not is_progress_event(returned):
                raise not_a_progress_event(function, action, returned, root)
            return returned
        except BaseException as exc:
            sink = current_sink()
            if sink is not None:
                sink.escaped = exc
                if not hasattr(exc, "to_progress_event"):
                    sink.crash = exc
            raise

    handler.__cfngen__ = True  # type: ignore[attr-defined]
    return handler
