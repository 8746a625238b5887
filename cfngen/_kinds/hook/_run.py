"""`cfngen test` and `cfngen invoke` for hooks: the protocol and tests of this package
(_hook_protocol.py, _hook_tests.py), run by cfngen/_contract's runner against the project's
entrypoint, offline (moto, fake credentials), with STACK and CHANGE_SET documents served from a
local URL."""

from __future__ import annotations

import contextlib
import functools
import os
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from cfngen import _schema
from cfngen._contract._isolate import ChildExit
from cfngen._contract._protocol import DEFAULT_MAX_REINVOKE, Listener, Settings, lib_statuses
from cfngen._contract._results import InvokeResult, SuiteResult, TestResult, run_test
from cfngen._contract._runner import Runner
from cfngen._contract._select import compile_expression
from cfngen._errors import CfngenError, ExitCode
from cfngen._kinds.hook import _hook_protocol, _hook_tests, _inputs
from cfngen._kinds.hook._payload import PayloadServer
from cfngen._kinds.hook._schema import type_configuration_problems
from cfngen._project import Project, load_project

#: The official tool's limit for one hook invocation (HookClient's timeout_in_seconds, 60 s);
#: the hooks user guide gives no shorter one.
DEFAULT_LIMIT = 60.0
R_EXIT = (
    "a handler must return a progress event, never end its process "
    "(os._exit, sys.exit in a thread, a crash in native code)"
)

TYPECONFIG_HINT = (
    'a type configuration file holds {"CloudFormationConfiguration": {"HookConfiguration": '
    '{"Properties": {...}}}} (what SetTypeConfiguration takes) or the properties themselves'
)


def load_hook_project(root: Path | Project) -> tuple[Project, dict[str, Any]]:
    project = root if isinstance(root, Project) else load_project(root)
    if project.kind.name != "hook":
        raise CfngenError(f"{project.root}: not a hook project", "run it in a hook project")
    return project, _schema.load_object(project.schema_path, "run `cfngen validate`")


def load_type_configuration(
    path: Path | None, schema: Mapping[str, Any] | None = None
) -> dict[str, Any] | None:
    """`--typeconfig FILE`: the official envelope or a bare object; nothing is read from the
    home folder (the official tool reads ~/.cfn-cli/typeConfiguration.json silently). With the
    hook's `schema`, a configuration its typeConfiguration refuses is a usage error, as
    CloudFormation's SetTypeConfiguration refuses it: a handler never runs with one."""
    if path is None:
        return None
    properties = _unwrap_type_configuration(path, _schema.load_object(path, TYPECONFIG_HINT))
    if schema is not None:
        check_type_configuration(schema, properties, str(path))
    return properties


def check_type_configuration(schema: Mapping[str, Any], properties: Any, where: str) -> None:
    problems = type_configuration_problems(dict(schema), properties)
    if problems:
        raise CfngenError(
            f"{where}: the type configuration does not fit the hook's typeConfiguration: "
            + "; ".join(problems),
            "fix the configuration (CloudFormation's SetTypeConfiguration refuses it too)",
        )


def _unwrap_type_configuration(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    envelope = data.get("CloudFormationConfiguration")
    if envelope is None:
        return data
    hook = envelope.get("HookConfiguration") if isinstance(envelope, dict) else None
    properties = hook.get("Properties", {}) if isinstance(hook, dict) else None
    if not isinstance(properties, dict):
        raise CfngenError(
            f"{path}: CloudFormationConfiguration.HookConfiguration.Properties is not an object",
            TYPECONFIG_HINT,
        )
    return properties


class _Payloads:
    """STACK and CHANGE_SET documents served from the process that runs the handlers (the
    runner's worker): a server started in cfngen's own process would not see what a worker
    publishes."""

    def __init__(self) -> None:
        self._server: PayloadServer | None = None
        self._pid = 0

    def publish(self, document: Mapping[str, Any]) -> str:
        if self._server is None or self._pid != os.getpid():
            self._server = PayloadServer().__enter__()
            self._pid = os.getpid()
        return self._server.publish(document)

    def close(self) -> None:
        if self._server is not None and self._pid == os.getpid():
            self._server.__exit__()
        self._server = None


@contextlib.contextmanager
def _hook_context(
    runner: Runner, type_configuration: Mapping[str, Any] | None
) -> Iterator[_hook_protocol.Context]:
    """The request context, inside an open runner."""
    sandbox = runner.sandbox
    payloads = _Payloads()
    try:
        yield _hook_protocol.Context(
            type_name=str(runner.project.type_name),
            account_id=sandbox.account_id,
            region=sandbox.region,
            credentials=sandbox.credentials.as_request(),
            type_configuration=type_configuration,
            payload_url=payloads.publish,
        )
    finally:
        payloads.close()


def _carrier(
    runner: Runner, context: _hook_protocol.Context, limit: float
) -> Callable[[str, _hook_protocol.Target], _hook_protocol.Run]:
    """The `carry` collaborator of the tests: one point for one target, in the runner."""

    def carry(point: str, target: _hook_protocol.Target) -> _hook_protocol.Run:
        exchange = _hook_protocol.HookExchange(
            point, target, context, limit=limit, token=str(uuid.uuid4())
        )
        outcome = runner.carry(exchange, handler=point, max_delay=0.0)
        return _hook_protocol.as_run(outcome, point, target)

    return carry


# --------------------------------------------------------------------------- test


def run_hook_tests(
    root: Path | Project,
    *,
    keyword: str | None = None,
    enforce_timeout: float | None = None,
    max_reinvoke: int = DEFAULT_MAX_REINVOKE,
    region: str | None = None,
    typeconfig: Path | None = None,
    exports: Mapping[str, str] | None = None,
    on_result: Callable[[TestResult], None] | None = None,
) -> SuiteResult:
    """`cfngen test` on a hook project (what `cfngen._contract.run_contract_tests` runs)."""
    project, _schema_data = load_hook_project(root)
    settings = Settings(
        region=region, enforce_timeout=enforce_timeout, max_reinvoke=max_reinvoke, keyword=keyword
    )
    return CONTRACT.run_tests(
        Runner(project, CONTRACT, settings),
        Listener(on_result=on_result),
        typeconfig=typeconfig,
        exports=exports,
    )


def _run_tests(
    runner: Runner,
    listener: Listener,
    *,
    typeconfig: Path | None = None,
    exports: Mapping[str, str] | None = None,
) -> SuiteResult:
    started = time.perf_counter()
    project, schema = load_hook_project(runner.project)
    keyword = runner.settings.keyword
    type_configuration = load_type_configuration(typeconfig, schema)
    select = compile_expression(keyword or "")
    input_sets, notes = _inputs.load_input_sets(project.root, schema, exports)
    found = schema.get("handlers")
    handlers = found if isinstance(found, dict) else {}
    points = [p for p in _hook_protocol.POINTS if _hook_protocol.HANDLER_OF[p] in handlers]
    for input_set in input_sets:
        notes.extend(_undeclared(schema, input_set))
    result = SuiteResult(notes=notes, needs_a_test=True)
    labelled = len(input_sets) > 1
    plan = [
        (input_set, point, test, name)
        for input_set in input_sets
        for point in points
        for suffix, test in _hook_tests.TESTS
        for base in [_hook_tests.test_name(point, suffix)]
        for name in [f"{base}[{input_set.label}]" if labelled else base]
        if select(base) or select(name)
    ]
    if not points:
        result.notes.append("the schema declares no handler: there is nothing to test")
    elif not plan:
        raise CfngenError(
            f"-k {keyword!r} selects none of the tests",
            "test names are: "
            + ", ".join(
                n
                for n in _hook_tests.TEST_NAMES
                if any(f"_{_hook_protocol.FILE_PART[p]}_" in n for p in points)
            ),
        )
    limit = runner.settings.enforce_timeout or DEFAULT_LIMIT
    with runner.open(), _hook_context(runner, type_configuration) as context:
        if runner.entrypoint.import_output:
            result.notes.append(
                "output while importing the handlers: "
                + " | ".join(runner.entrypoint.import_output[-5:])
            )
        carry = _carrier(runner, context, limit)
        cases = {id(s): _hook_tests.Case(carry, s, schema) for s in input_sets}

        def unit(input_set: Any, point: str, test: Any, name: str) -> TestResult:
            return run_test(name, lambda: test(cases[id(input_set)], point))

        def done(index: int, found: TestResult | ChildExit) -> None:
            if isinstance(found, ChildExit):
                found = TestResult(plan[index][3], "failed", f"{found.how}\n  rule: {R_EXIT}", 0.0)
            result.tests.append(found)
            if listener.on_result is not None:
                listener.on_result(found)

        units = [functools.partial(unit, *planned) for planned in plan]
        # Runs are shared by the tests of an input set: one worker keeps them (fresh=False).
        runner.each(units, done, fresh=False)
    result.seconds = time.perf_counter() - started
    if not result.ran:
        result.notes.append("no test ran: every test was skipped (the reasons are above)")
    return result


def no_test_ran(result: SuiteResult) -> bool:
    return result.count("passed") + result.count("failed") == 0


def _undeclared(schema: Mapping[str, Any], input_set: _inputs.InputSet) -> list[str]:
    """Inputs naming targets a point does not declare: CloudFormation never sends them, so
    they are not sent (the official suite drops them without a word)."""
    notes = []
    handlers = schema.get("handlers")
    for kind, table in (("", input_set.compliant), ("invalid_", input_set.non_compliant)):
        for point, documents in table.items():
            if (
                not isinstance(handlers, Mapping)
                or _hook_protocol.HANDLER_OF[point] not in handlers
            ):
                continue  # a point the hook does not handle: its inputs are never sent
            names = _inputs.declared(schema, point)
            extra = sorted(t for t in documents if not _inputs.covers(names, t))
            if extra and not input_set.generated:
                handler = _hook_protocol.FILE_PART[point]
                notes.append(
                    f"{input_set.label}_{kind}{handler}: {', '.join(extra)} "
                    f"{'is' if len(extra) == 1 else 'are'} not among the targets of "
                    f"{_hook_protocol.HANDLER_OF[point]}: not sent"
                )
    return notes


# --------------------------------------------------------------------------- invoke


def render_verdict(run: _hook_protocol.Run) -> str:
    what = f"{run.point} {run.target.name}"
    if run.guard is not None:
        return f"{what} did not finish: {run.guard}"
    if run.status == "SUCCESS":
        return f"{what}: SUCCESS (compliant)"
    if run.status == "FAILED":
        code = run.error_code or "no errorCode"
        message = run.message
        return f"{what}: FAILED {code}" + (f": {message}" if message else "")
    return f"{what} answered {run.status!r}"


def read_invoke_file(
    path: Path, text: str | None = None
) -> tuple[_hook_protocol.Target, str | None, dict[str, Any] | None]:
    """The target of `cfngen invoke`: an inputs-format file holding one target, or a full hook
    request. Returns the target, the invocation point and the type configuration (`hookModel`)
    the file names (a full request). `text` is the file's text when it was already read
    (exports replaced)."""
    data = _schema.load_object(
        path,
        'write {"AWS::S3::Bucket": {"resourceProperties": {...}}} (the inputs/ format) or a '
        "full hook request",
        text=text,
    )
    if "requestData" in data:  # a full request, as CloudFormation sends it
        request_data = data["requestData"] if isinstance(data["requestData"], dict) else {}
        name = request_data.get("targetName")
        if not isinstance(name, str):
            raise CfngenError(f"{path}: requestData has no targetName", "add the target's type")
        document = request_data.get("targetModel") or {}
        point = data.get("actionInvocationPoint")
        logical = request_data.get("targetLogicalId")
        target = _hook_protocol.Target(
            name, document if isinstance(document, dict) else {}, str(logical or "MyResource")
        )
        hook_model = data.get("hookModel")
        if hook_model is not None and not isinstance(hook_model, dict):
            raise CfngenError(f"{path}: hookModel is not a JSON object", "write its settings")
        return target, point if isinstance(point, str) else None, hook_model
    if len(data) != 1:
        raise CfngenError(
            f"{path}: names {len(data)} targets ({', '.join(data) or 'none'}); invoke runs one",
            "keep one target in the file, or use `cfngen test` for several",
        )
    ((name, document),) = data.items()
    if not isinstance(document, dict):
        raise CfngenError(f"{path}: {name} must map to a JSON object", "see inputs/ files")
    return _hook_protocol.Target(name, document, _hook_tests._logical_id(name)), None, None


def _invoke(
    runner: Runner,
    point: str,
    target_file: Path,
    listener: Listener,
    *,
    typeconfig: Path | None = None,
    exports: Mapping[str, str] | None = None,
) -> InvokeResult:
    _project, schema = load_hook_project(runner.project)
    chosen = _hook_protocol.point_name(point)
    if chosen is None:
        raise CfngenError(
            f"unknown invocation point {point!r}",
            f"use one of {', '.join(_hook_protocol.POINTS)} (or preCreate, preUpdate, preDelete)",
        )
    used: dict[str, str] = {}
    text = _inputs.render_exports(
        _schema.read_text(target_file, not_utf8=ExitCode.USAGE), exports or {}, used
    )
    target, file_point, hook_model = read_invoke_file(target_file, text)
    warnings: list[str] = []
    if file_point and _hook_protocol.point_name(file_point) != chosen:
        warnings.append(f"{target_file}: the request is for {file_point}; invoking {chosen}")
    handler = _hook_protocol.HANDLER_OF[chosen]
    names = _inputs.declared(schema, chosen)
    if not names:
        warnings.append(
            f"the schema declares no {handler} handler with targets: "
            "CloudFormation would never call it"
        )
    elif not _inputs.covers(names, target.name):
        warnings.append(
            f"{target.name} is not among the targets of {handler}: "
            "CloudFormation would never send it"
        )
    for name, value in sorted(used.items()):
        if value == f"cfngen-export-{name}":
            warnings.append(f"{{{{{name}}}}} is a CloudFormation export: stand-in value {value}")
    # --typeconfig wins over the request's hookModel (the configuration CloudFormation sends).
    type_configuration = load_type_configuration(typeconfig, schema)
    if type_configuration is None and hook_model is not None:
        check_type_configuration(schema, hook_model, f"{target_file}: hookModel")
        type_configuration = hook_model
    for warning in warnings:
        listener.warn(warning)
    limit = runner.settings.enforce_timeout or DEFAULT_LIMIT
    with runner.open(), _hook_context(runner, type_configuration) as context:
        if runner.entrypoint.import_output and listener.on_import_output is not None:
            listener.on_import_output(runner.entrypoint.import_output)
        exchange = _hook_protocol.HookExchange(
            chosen, target, context, limit=limit, token=str(uuid.uuid4())
        )
        try:
            outcome = runner.isolated(
                lambda: runner.carry(
                    exchange, handler=chosen, max_delay=0.0, on_invocation=runner.send
                ),
                listener.on_invocation,
            )
        except ChildExit as exc:
            raise CfngenError(
                f"{exchange.label} did not finish: {exc.how}",
                "a handler must return a progress event: never call os._exit or sys.exit",
                exit_code=ExitCode.FAILED,
            ) from None
    run = _hook_protocol.as_run(outcome, chosen, target)
    return InvokeResult(run, render_verdict(run), run.status == "SUCCESS", warnings)


class HookProtocol:
    """The hook handler protocol (a `ContractProtocol`)."""

    label = "hook handler"
    #: Options beyond the runner's own that `invoke` and `run_tests` take.
    options: tuple[str, ...] = ("typeconfig", "exports")
    request_optional = False
    extra: str | None = "test"
    status_key = _hook_protocol.STATUS_KEY
    in_progress: str | None = "IN_PROGRESS"
    session_module: str | None = "cloudformation_cli_python_lib.hook"

    # Read from the library when first asked, after the runner checked the "test" extra.
    @functools.cached_property
    def statuses(self) -> frozenset[str]:
        return lib_statuses(hook=True)

    @functools.cached_property
    def error_codes(self) -> frozenset[str]:
        return _hook_protocol.hook_error_codes()

    def adapt(self, entrypoint: Any) -> None:
        pass

    def invoke(
        self,
        runner: Runner,
        action: str,
        request_file: Path | None,
        listener: Listener,
        **options: Any,
    ) -> InvokeResult:
        assert request_file is not None  # request_optional is False: the runner checked
        return _invoke(runner, action, request_file, listener, **options)

    def run_tests(self, runner: Runner, listener: Listener, **options: Any) -> SuiteResult:
        return _run_tests(runner, listener, **options)


CONTRACT = HookProtocol()
