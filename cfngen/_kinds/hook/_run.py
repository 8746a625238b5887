"""`cfngen test` and `cfngen invoke` for hooks: the protocol and tests of this package
(_hook_protocol.py, _hook_tests.py), run by cfngen/_contract's runner against the project's
entrypoint, offline (moto, fake credentials), with STACK and CHANGE_SET documents served from a
local URL.

What the handlers run with: _context.py (the type configuration: cfngen/_contract/
_type_configuration.py, one reader for every kind); one
`cfngen invoke`: _invoke.py.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from cfngen._contract._isolate import ChildExit
from cfngen._contract._permissions import Declared, declared_handlers, permission_tests
from cfngen._contract._protocol import DEFAULT_MAX_REINVOKE, Listener, Settings, lib_statuses
from cfngen._contract._results import InvokeResult, SuiteResult, TestResult, run_test
from cfngen._contract._runner import Runner
from cfngen._contract._select import compile_expression
from cfngen._contract._type_configuration import for_run, model_class_note
from cfngen._errors import CfngenError
from cfngen._kinds.hook import _hook_protocol, _hook_tests, _inputs
from cfngen._kinds.hook._context import DEFAULT_LIMIT, _carrier, _hook_context, load_hook_project
from cfngen._kinds.hook._invoke import _invoke
from cfngen._project import Project

R_EXIT = (
    "a handler must return a progress event, never end its process "
    "(os._exit, sys.exit in a thread, a crash in native code)"
)


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
    runner: Runner[Project],
    listener: Listener,
    *,
    typeconfig: Path | None = None,
    exports: Mapping[str, str] | None = None,
) -> SuiteResult:
    started = time.perf_counter()
    project, schema = load_hook_project(runner.project)
    keyword = runner.settings.keyword
    configuration = for_run(runner, schema, typeconfig)
    select = compile_expression(keyword or "")
    input_sets, notes = _inputs.load_input_sets(project.root, schema, exports)
    points = _points(schema)
    for input_set in input_sets:
        notes.extend(_undeclared(schema, input_set))
    notes.extend(configuration.report())
    result = SuiteResult(notes=notes, needs_a_test=True)
    plan = [p for p in _planned(input_sets, points) if select(p[4]) or select(p[3])]
    first = runner.settings.first
    plan.sort(key=lambda p: p[4] not in first and p[3] not in first)
    permissions = _declared(project, points)
    if not points:
        result.notes.append("the schema declares no handler: there is nothing to test")
    elif not plan and not any(select(d.test) for d in permissions):
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
    with runner.open(), _hook_context(runner, configuration.for_handler) as context:
        result.notes.extend(runner.entrypoint.notes)  # requirements installed for the run
        model_note = model_class_note(runner.entrypoint.function, configuration)
        if model_note is not None:
            result.notes.append(model_note)
        if runner.entrypoint.import_output:
            result.notes.append(
                "output while importing the handlers: "
                + " | ".join(runner.entrypoint.import_output[-5:])
            )
        carry = _carrier(runner, context, limit)
        cases = {id(s): _hook_tests.Case(carry, s, schema) for s in input_sets}

        def unit(input_set: Any, point: str, test: Any, name: str, _base: str) -> TestResult:
            return run_test(name, lambda: test(cases[id(input_set)], point))

        def done(index: int, found: TestResult | ChildExit) -> None:
            if isinstance(found, ChildExit):
                found = TestResult(plan[index][3], "failed", f"{found.how}\n  rule: {R_EXIT}", 0.0)
            listener.add(result, found)

        units = [functools.partial(unit, *planned) for planned in plan]
        # Runs are shared by the tests of an input set: one worker keeps them (fresh=False).
        runner.each(units, done, fresh=False)
    for test in permission_tests(
        permissions,
        runner.calls,
        runner.ran,
        strict=runner.settings.strict,
        selected=select,
        suite=result,
    ):
        listener.add(result, test)
    result.seconds = time.perf_counter() - started
    if not result.ran:
        result.notes.append("no test ran: every test was skipped (the reasons are above)")
    return result


Planned = tuple[_inputs.InputSet, str, _hook_tests.Test, str, str]


def _test_names(
    runner: Runner[Project],
    *,
    typeconfig: Path | None = None,
    exports: Mapping[str, str] | None = None,
) -> list[str]:
    """The names _run_tests reports with no keyword (`typeconfig` does not change them)."""
    project, schema = load_hook_project(runner.project)
    input_sets, _notes = _inputs.load_input_sets(project.root, schema, exports)
    points = _points(schema)
    names = [planned[3] for planned in _planned(input_sets, points)]
    return names + [d.test for d in _declared(project, points)]


def _declared(project: Project, points: list[str]) -> list[Declared]:
    """The handlers the schema declares, for the permission tests
    (`contract_pre_<action>_permissions`)."""
    return declared_handlers(
        project.schema_path,
        project.root,
        [
            (p, _hook_protocol.HANDLER_OF[p], _hook_tests.test_name(p, "permissions"))
            for p in points
        ],
    )


def _points(schema: Mapping[str, Any]) -> list[str]:
    """The invocation points the schema declares a handler for, in contract order."""
    found = schema.get("handlers")
    handlers = found if isinstance(found, dict) else {}
    return [p for p in _hook_protocol.POINTS if _hook_protocol.HANDLER_OF[p] in handlers]


def _planned(input_sets: list[_inputs.InputSet], points: list[str]) -> list[Planned]:
    """(input set, point, test, name, name without the set's label) for every test."""
    labelled = len(input_sets) > 1
    return [
        (input_set, point, test, name, base)
        for input_set in input_sets
        for point in points
        for suffix, test in _hook_tests.TESTS
        for base in [_hook_tests.test_name(point, suffix)]
        for name in [f"{base}[{input_set.label}]" if labelled else base]
    ]


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


class HookProtocol:
    """The hook handler protocol (a `ContractProtocol`)."""

    label = "hook handler"
    #: Options beyond the runner's own that `invoke` and `run_tests` take.
    options: tuple[str, ...] = ("typeconfig", "exports")
    #: What a hook's SetTypeConfiguration wraps the properties in (accepted by --typeconfig).
    typeconfig_envelope: tuple[str, ...] = (
        "CloudFormationConfiguration",
        "HookConfiguration",
        "Properties",
    )
    request_optional = False
    upgrade_identifiers = None
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
        runner: Runner[Project],
        action: str,
        request_file: Path | None,
        listener: Listener,
        **options: Any,
    ) -> InvokeResult:
        assert request_file is not None  # request_optional is False: the runner checked
        return _invoke(runner, action, request_file, listener, **options)

    def run_tests(self, runner: Runner[Project], listener: Listener, **options: Any) -> SuiteResult:
        return _run_tests(runner, listener, **options)

    def test_names(self, runner: Runner[Project], **options: Any) -> list[str]:
        return _test_names(runner, **options)


CONTRACT = HookProtocol()
