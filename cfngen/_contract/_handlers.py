"""A project's handlers, imported into this process and called through their entrypoint.

`resource(event, None)` is exactly what Lambda calls, so a handler sees the same request, the
same boto3 session and the same error handling as in production. Two defects of
cloudformation-cli-python-lib 2.1.20's entrypoint are worked around here, for projects that use
its Resource directly (the official `cfn init` layout):
- it drops the event's top-level nextToken, so LIST could never page;
- it turns a handler exception into a bare InternalFailure; we keep the exception itself.
"""

from __future__ import annotations

import contextlib
import copy
import ctypes
import functools
import importlib
import inspect
import json
import linecache
import re
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen._contract._capture import Sink, abandon, current_sink, set_sink
from cfngen._contract._sandbox import Sandbox
from cfngen._errors import CfngenError, ExitCode
from cfngen._project import Project

MUTATING = ("CREATE", "UPDATE", "DELETE")
STATUSES = ("SUCCESS", "FAILED", "IN_PROGRESS")

#: The line `cfngen init` puts in every stub handler it writes: the handler is not written yet.
#: Its return values only have the contract's shapes, so testing it would test the template.
STUB_MARKER = re.compile(r"^\s*#\s*STUB:")


# --------------------------------------------------------------------------- limits


@dataclass(frozen=True)
class Limits:
    """Seconds a single handler call may take (the handler contract: 60 s and 30 s)."""

    mutating: float = 60.0
    read_list: float = 30.0

    @classmethod
    def enforce(cls, seconds: float | None) -> Limits:
        """`--enforce-timeout S`: read and list get S seconds, the others 2S (as `cfn test`)."""
        if seconds is None:
            return cls()
        return cls(mutating=2 * seconds, read_list=seconds)

    def for_action(self, action: str) -> float:
        return self.mutating if action in MUTATING else self.read_list


# --------------------------------------------------------------------------- requests


@dataclass
class Request:
    """What a handler is asked: the fields of a `cfn invoke` request file."""

    desired: dict[str, Any] | None = None
    previous: dict[str, Any] | None = None
    logical_id: str = "MyResource"
    type_configuration: dict[str, Any] | None = None
    next_token: str | None = None
    desired_tags: dict[str, Any] | None = None
    previous_tags: dict[str, Any] | None = None
    system_tags: dict[str, Any] | None = None
    previous_system_tags: dict[str, Any] | None = None
    client_request_token: str | None = None


def lambda_event(
    action: str,
    request: Request,
    *,
    type_name: str,
    sandbox: Sandbox,
    bearer_token: str,
    callback_context: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The event CloudFormation sends the handler's Lambda function.

    No providerLogGroupName: with one, the runtime library ships logs to CloudWatch.
    """
    request_data: dict[str, Any] = {
        "callerCredentials": sandbox.credentials.as_request(),
        "resourceProperties": request.desired,
        "previousResourceProperties": request.previous,
        "logicalResourceId": request.logical_id,
        "typeConfiguration": request.type_configuration,
        "stackTags": request.desired_tags,
        "previousStackTags": request.previous_tags,
        "systemTags": request.system_tags,
        "previousSystemTags": request.previous_system_tags,
    }
    event: dict[str, Any] = {
        "awsAccountId": sandbox.account_id,
        "bearerToken": bearer_token,
        "region": sandbox.region,
        "action": action,
        "resourceType": type_name,
        "resourceTypeVersion": "00000001",
        "stackId": (
            f"arn:aws:cloudformation:{sandbox.region}:{sandbox.account_id}:stack/"
            f"cfngen-local/{uuid.UUID(int=0)}"
        ),
        "requestData": {k: v for k, v in request_data.items() if v is not None},
        "callbackContext": dict(callback_context) if callback_context else None,
        "nextToken": request.next_token,
    }
    # The runtime library edits the dicts it is given while it builds models: send copies.
    return copy.deepcopy({k: v for k, v in event.items() if v is not None})


# --------------------------------------------------------------------------- results


@dataclass
class HandlerCrash:
    """An exception that escaped a handler function."""

    type: str
    message: str
    #: "file:line in function" and the source line, for the frames in the project's own files.
    frames: list[str]

    @property
    def headline(self) -> str:
        if self.type == "NotImplementedError" and "not implemented" not in self.message.lower():
            return f"NotImplementedError: {self.message or 'the handler'} (not implemented)"
        return f"{self.type}: {self.message}" if self.message else self.type


@dataclass
class Invocation:
    """One call of the entrypoint."""

    action: str
    number: int
    request: dict[str, Any]
    response: dict[str, Any] | None
    seconds: float
    limit: float
    output: list[str] = field(default_factory=list)
    crash: HandlerCrash | None = None
    timed_out: bool = False
    #: Set when the call was refused because an earlier call of this action hung.
    not_called: str | None = None

    @property
    def status(self) -> str | None:
        if self.response is None:
            return None
        status = self.response.get("status")
        return status if isinstance(status, str) else None


@dataclass
class Outcome:
    """One action carried to its end: the first call and every re-invocation."""

    action: str
    invocations: list[Invocation]
    #: Why the loop stopped before a final status: a time limit or too many re-invocations.
    guard: str | None = None

    @property
    def last(self) -> Invocation:
        return self.invocations[-1]

    @property
    def response(self) -> dict[str, Any]:
        return self.last.response or {}

    @property
    def status(self) -> str | None:
        return None if self.guard else self.last.status

    @property
    def error_code(self) -> str | None:
        code = self.response.get("errorCode")
        return code if isinstance(code, str) else None

    @property
    def crash(self) -> HandlerCrash | None:
        return next((i.crash for i in reversed(self.invocations) if i.crash), None)


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


class HandlerTimeout(BaseException):
    """Raised inside a handler thread that outlived its time limit (see _stop_thread)."""


# --------------------------------------------------------------------------- loading


class Handlers:
    """The project's entrypoint, imported once, called in-process inside a Sandbox."""

    def __init__(self, project: Project, sandbox: Sandbox) -> None:
        self.project = project
        self.sandbox = sandbox
        self.type_name = str(project.type_name)
        self._src = project.src_dir.resolve()
        #: What the handler module printed or logged while it was imported.
        self.import_output: list[str] = []
        #: Actions whose handler is still a stub of `cfngen init` (found at each import).
        self.stubs: dict[str, Stub] = {}
        self._entrypoint = self._load()
        self._fresh = True
        #: Actions whose handler outlived its limit: calling them again would only wait again.
        self._hung: dict[str, str] = {}

    def reload(self) -> None:
        """Import the project's package again: module-level state (caches, clients, an
        in-memory store) starts afresh, as in a new Lambda container. Only the project's own
        modules are imported again (a few milliseconds), not the libraries."""
        if self._fresh:
            self._fresh = False
            return
        self._entrypoint = self._load()

    def _entrypoint_name(self) -> tuple[str, str]:
        module, _, attribute = self.project.entrypoint.rpartition(".")
        return module, attribute

    def _load(self) -> Callable[[dict[str, Any], Any], Any]:
        module_name, attribute = self._entrypoint_name()
        package = module_name.split(".")[0]
        problem = self.project.entrypoint_problem()
        if problem is not None:  # `os.system` must not be imported as the project's handlers
            raise problem
        # Another project's package of the same name may be loaded (tests, or a second run).
        for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
            del sys.modules[name]
        importlib.invalidate_caches()
        # What the module prints or logs while it is imported is handler output too.
        sink = Sink()
        set_sink(sink)
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise CfngenError(
                f"cannot import {module_name}: {type(exc).__name__}: {exc}",
                "run `cfngen generate` if models.py is missing, and install the project's "
                "requirements into the environment cfngen runs in",
            ) from None
        except Exception as exc:
            crash = self._crash(exc)
            raise CfngenError(
                "\n".join([f"importing {module_name} failed: {crash.headline}", *crash.frames]),
                "fix the error in the handler module",
                exit_code=ExitCode.FAILED,
            ) from None
        finally:
            set_sink(None)
        self.import_output = sink.lines
        resource = getattr(module, attribute, None)
        if not callable(resource):
            raise CfngenError(
                f"{module_name} has no callable {attribute!r} (the entrypoint in .rpdk-config)",
                f"define `{attribute} = Resource(TYPE_NAME, ResourceModel)` in {module_name}",
            )
        _keep_next_token(resource)
        self.stubs = find_stubs(resource, self.project.root)
        _record_crashes(resource)
        return resource  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ calling

    def invoke(
        self,
        action: str,
        request: Request,
        *,
        limit: float,
        number: int = 1,
        bearer_token: str | None = None,
        callback_context: Mapping[str, Any] | None = None,
    ) -> Invocation:
        """Call the entrypoint once, in a worker thread, for at most `limit` seconds."""
        event = lambda_event(
            action,
            request,
            type_name=self.type_name,
            sandbox=self.sandbox,
            bearer_token=bearer_token or request.client_request_token or str(uuid.uuid4()),
            callback_context=callback_context,
        )
        shown = _without_credentials(event)
        if action in self._hung:
            return Invocation(
                action, number, shown, None, 0.0, limit, not_called=self._hung[action]
            )

        sink = Sink()
        box: dict[str, Any] = {}

        def work() -> None:
            # HandlerTimeout may arrive anywhere in an abandoned thread: it must end it quietly.
            try:
                set_sink(sink)
                try:
                    box["response"] = self._entrypoint(event, None)
                except HandlerTimeout:
                    pass
                except BaseException as exc:  # the entrypoint itself failed: report, don't die
                    box["error"] = exc
                finally:
                    set_sink(None)
            except HandlerTimeout:
                pass

        worker = threading.Thread(target=work, name=f"cfngen-{action.lower()}", daemon=True)
        started = time.perf_counter()
        worker.start()
        worker.join(limit)
        seconds = time.perf_counter() - started
        invocation = Invocation(action, number, shown, None, seconds, limit, sink.lines)
        if worker.is_alive():
            _stop_thread(worker)
            invocation.timed_out = True
            self._hung[action] = f"it outlived its {limit:g} s limit in an earlier call"
            return invocation
        if "error" in box:
            invocation.crash = self._crash(box["error"])
            invocation.response = {
                "status": "FAILED",
                "errorCode": "InternalFailure",
                "message": f"the entrypoint raised {invocation.crash.headline}",
            }
        else:
            invocation.response = _json_response(box.get("response"))
        if sink.crash is not None:
            invocation.crash = self._crash(sink.crash)
        return invocation

    def run(
        self,
        action: str,
        request: Request,
        *,
        limits: Limits,
        max_reinvoke: int,
        max_delay: float,
        on_invocation: Callable[[Invocation], None] | None = None,
        on_wait: Callable[[float, float], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> Outcome:
        """Call, then call again while IN_PROGRESS with the callbackContext it returned."""
        token = request.client_request_token or str(uuid.uuid4())
        current = copy.deepcopy(request)
        context: Mapping[str, Any] | None = None
        invocations: list[Invocation] = []
        limit = limits.for_action(action)
        while True:
            invocation = self.invoke(
                action,
                current,
                limit=limit,
                number=len(invocations) + 1,
                bearer_token=token,
                callback_context=context,
            )
            invocations.append(invocation)
            if on_invocation is not None:
                on_invocation(invocation)
            if invocation.not_called:
                return Outcome(action, invocations, guard=invocation.not_called)
            if invocation.timed_out:
                return Outcome(
                    action,
                    invocations,
                    guard=f"{action} did not return within its {limit:g} s limit",
                )
            response = invocation.response or {}
            if response.get("status") != "IN_PROGRESS" or action not in MUTATING:
                return Outcome(action, invocations)
            if len(invocations) > max_reinvoke:
                return Outcome(
                    action,
                    invocations,
                    guard=(f"{action} was still IN_PROGRESS after {max_reinvoke} re-invocations"),
                )
            delay = response.get("callbackDelaySeconds") or 0
            if isinstance(delay, (int, float)) and delay > 0:
                wait = min(float(delay), max(max_delay, 0.0))
                if on_wait is not None:
                    on_wait(wait, float(delay))
                if wait > 0:
                    sleep(wait)
            context = response.get("callbackContext")
            if isinstance(response.get("resourceModel"), dict):
                current.desired = response["resourceModel"]

    # ------------------------------------------------------------------ exceptions

    def _crash(self, exc: BaseException) -> HandlerCrash:
        """The exception with the frames that are in the project's own files."""
        frames: list[str] = []
        for frame in traceback.extract_tb(exc.__traceback__):
            path = Path(frame.filename)
            if not path.is_absolute():  # <frozen importlib...>, <string>
                continue
            try:
                shown = path.resolve().relative_to(self.project.root.resolve())
            except (ValueError, OSError):
                continue
            frames.append(f"  {shown}:{frame.lineno} in {frame.name}")
            if frame.line:
                frames.append(f"    {frame.line.strip()}")
        if isinstance(exc, SyntaxError) and exc.filename:
            where = Path(exc.filename)
            with contextlib.suppress(ValueError, OSError):
                where = where.resolve().relative_to(self.project.root.resolve())
            frames.append(f"  {where}:{exc.lineno}")
            if exc.text:
                frames.append(f"    {exc.text.strip()}")
        return HandlerCrash(type(exc).__name__, str(exc), frames)


def _json_response(value: Any) -> dict[str, Any] | None:
    """The entrypoint's answer as JSON data; anything else is reported as it is."""
    if isinstance(value, Mapping):
        try:
            loaded = json.loads(json.dumps(value, default=str))
        except (TypeError, ValueError):
            return {"status": None, "message": f"not JSON: {value!r}"}
        return loaded if isinstance(loaded, dict) else None
    return {
        "status": None,
        "message": f"the entrypoint returned {type(value).__name__}, not a dict",
    }


def _without_credentials(event: dict[str, Any]) -> dict[str, Any]:
    shown = copy.deepcopy(event)
    request_data = shown.get("requestData", {})
    if "callerCredentials" in request_data:
        request_data["callerCredentials"] = "<redacted>"
    return shown


# --------------------------------------------------------------------------- lib fixes


def _keep_next_token(resource: Any) -> None:
    """The lib's entrypoint builds the handler request without the event's nextToken.

    We wrap its request builder on this instance so LIST pages arrive. A Resource that already
    passes the token (cfngen's runtime) is unaffected: the wrapper only fills a missing token.
    """
    cast = getattr(resource, "_cast_resource_request", None)
    if not callable(cast) or getattr(cast, "__cfngen__", False):
        return

    @functools.wraps(cast)
    def with_next_token(event: Any) -> Any:
        request = cast(event)
        token = getattr(event, "nextToken", None)
        if token is not None and getattr(request, "nextToken", None) is None:
            request.nextToken = token
        return request

    with_next_token.__cfngen__ = True  # type: ignore[attr-defined]
    resource._cast_resource_request = with_next_token


def find_stubs(resource: Any, root: Path) -> dict[str, Stub]:
    """The registered handlers whose own source still has the STUB marker line, by action.

    Read from the functions' source as imported (the lib keeps them in `_handlers`); a handler
    whose source cannot be read (built at run time, a C function) is never a stub.
    """
    handlers = getattr(resource, "_handlers", None)
    if not isinstance(handlers, dict):
        return {}
    found: dict[str, Stub] = {}
    for action, function in handlers.items():
        name = str(getattr(action, "value", action))
        original = inspect.unwrap(function)
        try:
            filename = inspect.getsourcefile(original)
            if filename is not None:
                # The file may have changed since an earlier import in this process.
                linecache.checkcache(filename)
            lines, start = inspect.getsourcelines(original)
        except (OSError, TypeError):
            continue
        for offset, text in enumerate(lines):
            if STUB_MARKER.match(text):
                where = Path(filename or "?")
                with contextlib.suppress(ValueError, OSError):
                    where = where.resolve().relative_to(root.resolve())
                found[name] = Stub(
                    action=name,
                    function=getattr(original, "__name__", repr(original)),
                    where=f"{where.as_posix()}:{start + offset}",
                    line=text.strip(),
                )
                break
    return found


def _record_crashes(resource: Any) -> None:
    """Note every exception that escapes a handler function before the lib swallows it.

    The contract's own error exceptions (`exceptions.NotFound(...)` and friends, which have
    to_progress_event) are how a handler returns FAILED on purpose: those are not crashes.
    """
    handlers = getattr(resource, "_handlers", None)
    if not isinstance(handlers, dict):
        return
    for action, function in list(handlers.items()):
        if getattr(function, "__cfngen__", False):
            continue
        handlers[action] = _recording(function)


def _recording(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def handler(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except BaseException as exc:
            sink = current_sink()
            if sink is not None:
                sink.escaped = exc
                if not hasattr(exc, "to_progress_event"):
                    sink.crash = exc
            raise

    handler.__cfngen__ = True  # type: ignore[attr-defined]
    return handler


def _stop_thread(thread: threading.Thread) -> None:
    """Ask a runaway handler thread to stop; Python offers no way to force it.

    The HandlerTimeout exception is raised in the thread at its next Python instruction, so a
    handler looping or polling stops at once; one blocked inside C code (a long socket read,
    time.sleep) stops when that call returns. Until then it is a daemon thread whose output is
    discarded and which dies with the process.
    """
    if thread.ident is None:
        return
    abandon(thread)
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread.ident), ctypes.py_object(HandlerTimeout)
    )
