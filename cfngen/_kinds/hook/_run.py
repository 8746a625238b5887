"""`cfngen test` and `cfngen invoke` for hooks: the protocol and tests of this package, run
against the project's entrypoint in this process, offline (moto, fake credentials), with STACK
and CHANGE_SET documents served from a local URL."""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen import _schema
from cfngen._contract._results import SuiteResult, TestResult
from cfngen._contract._sandbox import Sandbox
from cfngen._contract._select import compile_expression
from cfngen._errors import CfngenError
from cfngen._kinds.hook import _inputs, _protocol, _tests
from cfngen._kinds.hook._payload import PayloadServer
from cfngen._kinds.hook._runner import DEFAULT_LIMIT, HookRunner, one_session_per_credentials
from cfngen._project import Project, load_project
from cfngen._render import Paint, plain

TYPECONFIG_HINT = (
    'a type configuration file holds {"CloudFormationConfiguration": {"HookConfiguration": '
    '{"Properties": {...}}}} (what SetTypeConfiguration takes) or the properties themselves'
)


def load_hook_project(root: Path | Project) -> tuple[Project, dict[str, Any]]:
    project = root if isinstance(root, Project) else load_project(root)
    if project.kind.name != "hook":
        raise CfngenError(f"{project.root}: not a hook project", "run it in a hook project")
    return project, _schema.load_object(project.schema_path, "run `cfngen validate`")


@dataclass
class HookSuiteResult(SuiteResult):
    """A SuiteResult that fails when no test ran: every test skipped proves nothing."""

    @property
    def ran(self) -> bool:
        return self.count("passed") + self.count("failed") > 0

    @property
    def ok(self) -> bool:
        return self.ran and self.count("failed") == 0


def load_type_configuration(path: Path | None) -> dict[str, Any] | None:
    """`--typeconfig FILE`: the official envelope or a bare object; nothing is read from the
    home folder (the official tool reads ~/.cfn-cli/typeConfiguration.json silently)."""
    if path is None:
        return None
    data = _schema.load_object(path, TYPECONFIG_HINT)
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


@contextlib.contextmanager
def hook_process(
    project: Project,
    *,
    region: str | None,
    limit: float,
    type_configuration: Mapping[str, Any] | None,
    profile: str | None = None,
) -> Iterator[tuple[HookRunner, _protocol.Context]]:
    """The sandbox, the payload server, the imported hook and the request context."""
    with (
        Sandbox(project.src_dir.resolve(), region=region, profile=profile) as sandbox,
        one_session_per_credentials(),
        PayloadServer() as payloads,
    ):
        runner = HookRunner(project, sandbox, limit=limit)
        context = _protocol.Context(
            type_name=str(project.type_name),
            account_id=sandbox.account_id,
            region=sandbox.region,
            credentials=sandbox.credentials.as_request(),
            type_configuration=type_configuration,
            payload_url=payloads.publish,
        )
        yield runner, context


# --------------------------------------------------------------------------- test


def run_hook_tests(
    root: Path | Project,
    *,
    keyword: str | None = None,
    enforce_timeout: float | None = None,
    max_reinvoke: int = 100,
    region: str | None = None,
    typeconfig: Path | None = None,
    exports: Mapping[str, str] | None = None,
    on_result: Callable[[TestResult], None] | None = None,
) -> HookSuiteResult:
    started = time.perf_counter()
    project, schema = load_hook_project(root)
    type_configuration = load_type_configuration(typeconfig)
    select = compile_expression(keyword or "")
    input_sets, notes = _inputs.load_input_sets(project.root, schema, exports)
    found = schema.get("handlers")
    handlers = found if isinstance(found, dict) else {}
    points = [p for p in _protocol.POINTS if _protocol.HANDLER_OF[p] in handlers]
    for input_set in input_sets:
        notes.extend(_undeclared(schema, input_set))
    result = HookSuiteResult(notes=notes)
    labelled = len(input_sets) > 1
    plan = [
        (input_set, point, suffix, test, name)
        for input_set in input_sets
        for point in points
        for suffix, test in _tests.TESTS
        for base in [_tests.test_name(point, suffix)]
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
                for n in _tests.TEST_NAMES
                if any(f"_{_protocol.FILE_PART[p]}_" in n for p in points)
            ),
        )
    limit = enforce_timeout or DEFAULT_LIMIT
    with hook_process(
        project, region=region, limit=limit, type_configuration=type_configuration
    ) as (runner, context):
        if runner.import_output:
            result.notes.append(
                "output while importing the handlers: " + " | ".join(runner.import_output[-5:])
            )
        cases = {
            id(s): _tests.Case(runner.call, context, s, schema, max_reinvoke) for s in input_sets
        }
        for input_set, point, _suffix, test, name in plan:
            began = time.perf_counter()
            try:
                test(cases[id(input_set)], point)
            except _tests.Failed as failure:
                outcome: TestResult = TestResult(name, "failed", str(failure), 0.0)
            except _tests.Skipped as skipped:
                outcome = TestResult(name, "skipped", str(skipped), 0.0)
            else:
                outcome = TestResult(name, "passed", None, 0.0)
            outcome.seconds = time.perf_counter() - began
            result.tests.append(outcome)
            if on_result is not None:
                on_result(outcome)
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
            if not isinstance(handlers, Mapping) or _protocol.HANDLER_OF[point] not in handlers:
                continue  # a point the hook does not handle: its inputs are never sent
            names = _inputs.declared(schema, point)
            extra = sorted(t for t in documents if not _inputs.covers(names, t))
            if extra and not input_set.generated:
                handler = _protocol.FILE_PART[point]
                notes.append(
                    f"{input_set.label}_{kind}{handler}: {', '.join(extra)} "
                    f"{'is' if len(extra) == 1 else 'are'} not among the targets of "
                    f"{_protocol.HANDLER_OF[point]}: not sent"
                )
    return notes


# --------------------------------------------------------------------------- invoke


@dataclass
class HookInvocation:
    run: _protocol.Run
    warnings: list[str] = field(default_factory=list)

    @property
    def succeeded(self) -> bool:
        return self.run.status == "SUCCESS"

    def verdict(self) -> str:
        from cfngen._kinds.hook._report import render_verdict

        return render_verdict(self.run)


@dataclass
class ShownAnswer:
    """One call as `cfngen invoke` shows it while the run goes on."""

    answer: _protocol.Answer
    number: int

    def render(self, paint: Paint = plain) -> str:
        from cfngen._kinds.hook._report import render_answer

        return render_answer(self.answer, self.number, paint)


def read_invoke_file(
    path: Path, text: str | None = None
) -> tuple[_protocol.Target, str | None, list[str]]:
    """The target of `cfngen invoke`: an inputs-format file holding one target, or a full hook
    request. Returns the target, the invocation point the file names (a full request), and
    warnings. `text` is the file's text when it was already read (exports replaced)."""
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
        target = _protocol.Target(
            name, document if isinstance(document, dict) else {}, str(logical or "MyResource")
        )
        return target, point if isinstance(point, str) else None, []
    if len(data) != 1:
        raise CfngenError(
            f"{path}: names {len(data)} targets ({', '.join(data) or 'none'}); invoke runs one",
            "keep one target in the file, or use `cfngen test` for several",
        )
    ((name, document),) = data.items()
    if not isinstance(document, dict):
        raise CfngenError(f"{path}: {name} must map to a JSON object", "see inputs/ files")
    return _protocol.Target(name, document, _tests._logical_id(name)), None, []


def invoke_hook(
    root: Path | Project,
    point: str,
    target_file: Path,
    *,
    region: str | None = None,
    enforce_timeout: float | None = None,
    max_reinvoke: int = 100,
    typeconfig: Path | None = None,
    exports: Mapping[str, str] | None = None,
    profile: str | None = None,
    on_answer: Callable[[_protocol.Answer], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
    on_import_output: Callable[[list[str]], None] | None = None,
) -> HookInvocation:
    project, schema = load_hook_project(root)
    chosen = _protocol.point_name(point)
    if chosen is None:
        raise CfngenError(
            f"unknown invocation point {point!r}",
            f"use one of {', '.join(_protocol.POINTS)} (or preCreate, preUpdate, preDelete)",
        )
    used: dict[str, str] = {}
    text = _inputs.render_exports(_schema.read_text(target_file), exports or {}, used)
    target, file_point, warnings = read_invoke_file(target_file, text)
    if file_point and _protocol.point_name(file_point) != chosen:
        warnings.append(f"{target_file}: the request is for {file_point}; invoking {chosen}")
    names = _inputs.declared(schema, chosen)
    if not names:
        warnings.append(
            f"the schema declares no {_protocol.HANDLER_OF[chosen]} handler with targets: "
            "CloudFormation would never call it"
        )
    elif not _inputs.covers(names, target.name):
        warnings.append(
            f"{target.name} is not among the targets of {_protocol.HANDLER_OF[chosen]}: "
            "CloudFormation would never send it"
        )
    for name, value in sorted(used.items()):
        if value == f"cfngen-export-{name}":
            warnings.append(f"{{{{{name}}}}} is a CloudFormation export: stand-in value {value}")
    type_configuration = load_type_configuration(typeconfig)
    for warning in warnings:
        if on_warning is not None:
            on_warning(warning)
    with hook_process(
        project,
        region=region,
        limit=enforce_timeout or DEFAULT_LIMIT,
        type_configuration=type_configuration,
        profile=profile,
    ) as (runner, context):
        if runner.import_output and on_import_output is not None:
            on_import_output(runner.import_output)
        run = _protocol.carry(
            runner.call,
            chosen,
            target,
            context,
            max_reinvoke=max_reinvoke,
            token=str(uuid.uuid4()),
            on_answer=on_answer,
        )
    return HookInvocation(run, warnings)


class HookContract:
    """What cfngen/_contract asks of a kind: `invoke` and `run_tests` (the engine passes the
    options of its own, and `typeconfig` and `exports` when the user gave them)."""

    #: Options beyond the engine's own that these functions take.
    options = ("typeconfig", "exports")

    def invoke(
        self,
        project: Project,
        action: str,
        request_file: Path,
        *,
        profile: str | None,
        region: str | None,
        enforce_timeout: float | None,
        max_reinvoke: int,
        max_delay: float,
        on_invocation: Callable[[Any], None] | None = None,
        on_wait: Callable[[float, float], None] | None = None,
        on_warning: Callable[[str], None] | None = None,
        on_import_output: Callable[[list[str]], None] | None = None,
        typeconfig: Path | None = None,
        exports: Mapping[str, str] | None = None,
    ) -> HookInvocation:
        del max_delay, on_wait  # a hook's callbackDelaySeconds is not slept offline
        count = {"n": 0}

        def shown(answer: _protocol.Answer) -> None:
            count["n"] += 1
            if on_invocation is not None:
                on_invocation(ShownAnswer(answer, count["n"]))

        return invoke_hook(
            project,
            action,
            request_file,
            region=region,
            enforce_timeout=enforce_timeout,
            max_reinvoke=max_reinvoke,
            typeconfig=typeconfig,
            exports=exports,
            profile=profile,
            on_answer=shown,
            on_warning=on_warning,
            on_import_output=on_import_output,
        )

    def run_tests(
        self,
        project: Project,
        *,
        keyword: str | None,
        enforce_timeout: float | None,
        max_reinvoke: int,
        region: str | None,
        on_result: Callable[[TestResult], None] | None = None,
        typeconfig: Path | None = None,
        exports: Mapping[str, str] | None = None,
    ) -> HookSuiteResult:
        return run_hook_tests(
            project,
            keyword=keyword,
            enforce_timeout=enforce_timeout,
            max_reinvoke=max_reinvoke,
            region=region,
            typeconfig=typeconfig,
            exports=exports,
            on_result=on_result,
        )


CONTRACT = HookContract()
