"""`cfngen test` for a resource type: the contract, checked in-process against moto.

The tests keep the official suite's names (`cfn test`), and add what it misses
(_resource_tests.py). Each test runs in a child process of its own (`Runner.isolated`): it
starts from the handlers as freshly imported and an empty moto account, and a handler that
ends its process fails that test alone. Rules about single responses are checked on every
handler call of every test (_response_checks.py); the tests add the rules about sequences
(create then read, delete then read...).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from cfngen._contract._isolate import ChildExit
from cfngen._contract._permissions import Declared, declared_handlers, permission_tests
from cfngen._contract._protocol import Listener
from cfngen._contract._references import Seeds, resolve_model
from cfngen._contract._results import Failed, SuiteResult, TestResult, run_test
from cfngen._contract._runner import Runner
from cfngen._contract._select import compile_expression
from cfngen._contract._stub_markers import Stub
from cfngen._contract._target import Waited
from cfngen._contract._type_configuration import for_run, model_class_note
from cfngen._errors import CfngenError
from cfngen._generate import models_older_than_schema
from cfngen._kinds.resource._view import ResourceSchema
from cfngen._kinds.resource.contract._case import Case
from cfngen._kinds.resource.contract._inputs import (
    InputSet,
    check_user_inputs,
    load_input_sets,
)
from cfngen._kinds.resource.contract._leftovers import Ledger, still_listed, swept_note
from cfngen._kinds.resource.contract._messages import R_EXIT
from cfngen._kinds.resource.contract._request import Limits
from cfngen._kinds.resource.contract._resource_tests import TEST_NAMES as CALLING_TESTS
from cfngen._kinds.resource.contract._resource_tests import TESTS, ResourceTest
from cfngen._kinds.resource.contract._rules import Conformance, read_schema
from cfngen._kinds.resource.contract._suite_run import SuiteRun
from cfngen._project import Project

__all__ = ["TEST_NAMES", "run_tests", "test_names"]

#: The resource handlers, in contract order.
HANDLER_KEYS = ("create", "read", "update", "delete", "list")
#: Every test's name, in the order reported: the permission tests come last, judged on the
#: calls of the others.
TEST_NAMES = CALLING_TESTS + tuple(f"contract_{key}_permissions" for key in HANDLER_KEYS)


def run_tests(
    runner: Runner[Project],
    listener: Listener,
    *,
    exports: Mapping[str, Any] | None = None,
    typeconfig: Path | None = None,
) -> SuiteResult:
    """Run the contract tests on a resource type project (`exports`: the values of the
    CloudFormation exports inputs name as `{{Name}}`; `typeconfig`: a type configuration file).

    Raises CfngenError when they cannot run at all (no handlers, bad inputs).
    """
    started = time.perf_counter()
    keyword = runner.settings.keyword
    info = read_schema(runner.project)
    select = compile_expression(keyword or "")
    input_sets, notes = load_input_sets(runner.project.root, info, exports)
    for inputs in input_sets:
        notes.extend(_resolved_references(inputs, runner.settings.seeds))
        check_user_inputs(info, inputs)
    conformance = Conformance(info.schema)
    # Read and checked before any handler is imported: a bad one is exit 2 with no call.
    configuration = for_run(runner, info.schema, typeconfig)
    notes.extend(configuration.report())
    result = SuiteResult(notes=notes)

    plan = [p for p in _planned(input_sets, info) if select(p[0].name) or select(p[2])]
    first = runner.settings.first
    plan.sort(key=lambda p: p[0].name not in first and p[2] not in first)
    permissions = _declared(runner.project)
    if not plan and not any(select(d.test) for d in permissions):
        raise CfngenError(
            f"-k {keyword!r} selects none of the tests",
            "test names are: "
            + ", ".join(dict.fromkeys(test.name for test, _i, _n in _planned(input_sets, info))),
        )

    with runner.open():
        # Once the handlers are imported: the models' fingerprint reads their code too, and a
        # watch session's run forked ahead must not read it before the save.
        stale = models_older_than_schema(runner.project)
        if stale is not None:
            result.notes.insert(0, stale)
        result.notes.extend(runner.entrypoint.notes)  # requirements installed for the run
        _follow_the_account(runner, input_sets)
        limits = Limits.enforce(runner.settings.enforce_timeout)
        run = SuiteRun(info, runner, limits, conformance, configuration)
        model_note = model_class_note(runner.entrypoint.function, configuration)
        if model_note is not None:
            result.notes.append(model_note)
        for inputs in input_sets:
            _note_bad_inputs(run, inputs, result.notes)
        if runner.stubs:
            result.notes.append(_stub_note(runner.stubs))
        ledger = Ledger(info)
        try:
            _run_plan(run, plan, result, listener, ledger)
        finally:
            # However the run ends, Ctrl-C included (a second one stops the sweep too).
            result.notes.extend(_swept(run, ledger, input_sets))
        leftovers = _leftovers(run, ledger, input_sets)
        if leftovers is not None:
            listener.add(result, leftovers)
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
    return result


Planned = tuple[ResourceTest, InputSet, str]


def test_names(
    runner: Runner[Project],
    *,
    exports: Mapping[str, Any] | None = None,
    typeconfig: Path | None = None,
) -> list[str]:
    """The names run_tests reports with no keyword (one per test and input set)."""
    info = read_schema(runner.project)
    input_sets, _notes = load_input_sets(runner.project.root, info, exports)
    names = [name for _test, _inputs, name in _planned(input_sets, info)]
    return names + [d.test for d in _declared(runner.project)]


def _declared(project: Project) -> list[Declared]:
    """The handlers the schema declares, for the permission tests (`contract_<action>_
    permissions`)."""
    return declared_handlers(
        project.schema_path,
        project.root,
        [(key.upper(), key, f"contract_{key}_permissions") for key in HANDLER_KEYS],
    )


def _planned(input_sets: list[InputSet], info: ResourceSchema) -> list[Planned]:
    """Every test the type has, of every input set, named as reported (with the set's label
    when several)."""
    labelled = len(input_sets) > 1
    return [
        (test, inputs, f"{test.name}[{inputs.label}]" if labelled else test.name)
        for inputs in input_sets
        for test in TESTS
        if test.applies is None or test.applies(info)
    ]


def _run_plan(
    run: SuiteRun, plan: list[Planned], result: SuiteResult, listener: Listener, ledger: Ledger
) -> None:
    """Every planned test, its result reported in plan order as soon as it is known; the ones
    that call handlers run in the runner's worker process."""
    ready: dict[int, TestResult] = {}
    units: list[tuple[int, Callable[[], TestResult]]] = []
    for position, (test, inputs, name) in enumerate(plan):
        early = _without_calls(run, test, name)
        if early is not None:
            ready[position] = early
        else:
            units.append((position, functools.partial(_run_one, run, test, inputs, name)))
    shown = 0

    def flush() -> None:
        nonlocal shown
        while shown in ready:
            listener.add(result, ready[shown])
            shown += 1

    def done(index: int, found: TestResult | ChildExit) -> None:
        position = units[index][0]
        if isinstance(found, ChildExit):
            name = plan[position][2]
            found = TestResult(name, "failed", f"{found.how}\n  rule: {R_EXIT}", 0.0)
        ready[position] = found
        flush()

    flush()

    def received(message: object) -> None:
        if isinstance(message, Waited):
            if listener.on_wait is not None:
                listener.on_wait(message.seconds, message.asked, False)
        else:
            ledger.receive(message)

    run.runner.each([unit for _, unit in units], done, on_message=received)
    flush()


def _follow_the_account(runner: Runner[Project], input_sets: list[InputSet]) -> None:
    """ARNs of moto's account in the inputs (generated ones, stand-ins) name the target's
    account instead: LocalStack's 000000000000, a real account's own."""
    from cfngen._contract._sandbox import FAKE_ACCOUNT_ID
    from cfngen._contract._target import retarget

    account = runner.sandbox.account_id
    if account == FAKE_ACCOUNT_ID:
        return
    for inputs in input_sets:
        for kind in ("create", "update", "invalid"):
            model = getattr(inputs, kind)
            if model is not None:
                setattr(inputs, kind, retarget(model, account, FAKE_ACCOUNT_ID))


#: The check after the sweep against AWS (not one of the contract's tests: it runs once).
LEFTOVERS_TEST = "cleanup_leaves_nothing"
#: Its failure's code: what the run created is still there.
LEFTOVER = "cfngen/cleanup-leftover"


def _leftovers(run: SuiteRun, ledger: Ledger, input_sets: list[InputSet]) -> TestResult | None:
    """Against AWS: what the LIST handler still shows of what the run created, as a failed
    test naming each by its identifiers (None: not AWS, nothing created, no LIST, --keep)."""
    target = run.runner.sandbox.target
    if target.kind != "aws" or not ledger.made or run.runner.settings.keep:
        return None
    if "list" not in run.info.handler_names or "LIST" in run.runner.stubs:
        return None
    started = time.perf_counter()

    def listed() -> list[dict[str, Any]] | str:
        case = Case(run, input_sets[0])
        try:
            return case.list_all(case.create_input)
        except Failed as exc:
            return str(exc)

    found = run.runner.isolated(listed)
    seconds = time.perf_counter() - started
    if isinstance(found, str):
        return TestResult(
            LEFTOVERS_TEST, "failed", f"LIST could not look: {found}", seconds, code=LEFTOVER
        )
    left = still_listed(ledger, found)
    if not left:
        return TestResult(LEFTOVERS_TEST, "passed", "", seconds)
    return TestResult(
        LEFTOVERS_TEST,
        "failed",
        f"LIST still shows {len(left)} resource(s) the run created and deleted: "
        f"{ledger.names(left)}; delete them yourself",
        seconds,
        code=LEFTOVER,
    )


def _swept(run: SuiteRun, ledger: Ledger, input_sets: list[InputSet]) -> list[str]:
    """Delete what the ledger still holds when the target outlives the run (an endpoint,
    AWS); the notes that say what was done or kept."""
    target = run.runner.sandbox.target
    if target.kind not in ("endpoint", "aws") or not ledger.models or not input_sets:
        return []
    where = target.endpoint_url or "AWS"
    if run.runner.settings.keep:
        return [f"--keep: left on {where}: {ledger.names()}"]
    models = list(ledger.models)

    def sweep() -> list[dict[str, Any]]:
        case = Case(run, input_sets[0])
        return [model for model in models if not case.delete_quietly(model)]

    left = run.runner.isolated(sweep)
    note = swept_note(ledger, left, len(models) - len(left), where)
    return [] if note is None else [note]


def _without_calls(run: SuiteRun, test: ResourceTest, name: str) -> TestResult | None:
    """The result of a test that cannot call its handlers: undeclared, or still stubs."""
    missing = [action for action in test.needs if action not in run.info.handler_names]
    if missing:
        return TestResult(
            name,
            "skipped",
            f"the schema declares no {' or '.join(missing)} handler",
            0.0,
        )
    why = test.skip(run) if test.skip is not None else None
    if why is not None:
        return TestResult(name, "skipped", why, 0.0)
    stubs = [run.runner.stubs[a.upper()] for a in test.needs if a.upper() in run.runner.stubs]
    if stubs:
        # A stub's results only have the contract's shapes: judging them would judge the
        # template, and pass tests nobody has earned. Not called at all, so nothing can crash.
        return TestResult(name, "failed", _not_implemented(stubs), 0.0)
    return None


def _run_one(run: SuiteRun, test: ResourceTest, inputs: InputSet, name: str) -> TestResult:
    """One test, in the worker process."""
    case = Case(run, inputs)
    try:
        result = run_test(name, lambda: test.body(case))
        result.transforms = case.in_sync
        return result
    finally:
        case.clean_up()


def _not_implemented(stubs: list[Stub]) -> str:
    """One line per test: where the stubs are and what to do is said once, in the summary."""
    names = ", ".join(stub.function for stub in stubs)
    if len(stubs) == 1:
        return f"{names} is not implemented (the stub `cfngen init` wrote): not called"
    return f"{names} are not implemented (the stubs `cfngen init` wrote): not called"


def _stub_note(stubs: dict[str, Stub]) -> str:
    """The summary of the stubs, shown once for the whole run."""
    verb, them = ("carries", "it") if len(stubs) == 1 else ("carry", "them")
    names = ", ".join(stub.function for stub in stubs.values())
    lines = [
        f"not implemented yet: {names} still {verb} the STUB line of `cfngen init`; the tests "
        f"that need {them} failed without calling {them}:"
    ]
    lines.extend(f"  {stub.where} in {stub.function}: {stub.line}" for stub in stubs.values())
    lines.append(
        "  to do: implement each (replace its TODOs with calls to your service), then delete "
        "its STUB line; `cfngen test` calls a handler once its STUB line is gone"
    )
    return "\n".join(lines)


def _resolved_references(inputs: InputSet, seeds: Seeds) -> list[str]:
    """The set's inputs as the handlers get them: dynamic references resolved, as
    CloudFormation resolves them before it calls a handler (ssm-secure aside)."""
    notes: list[str] = []
    for kind in ("create", "update", "invalid"):
        model = getattr(inputs, kind)
        if model is not None:
            resolved, found = resolve_model(model, seeds, inputs.source(kind))
            setattr(inputs, kind, resolved)
            notes.extend(found)
    return notes


def _note_bad_inputs(run: SuiteRun, inputs: InputSet, notes: list[str]) -> None:
    for kind in ("create", "update"):
        model = getattr(inputs, kind)
        if model is None:
            continue
        errors = run.conformance.errors(model, partial=kind == "update")
        if errors:
            where, why = errors[0]
            notes.append(
                f"{inputs.source(kind)} does not match the schema ({where or '/'}: {why}); "
                "the tests use it anyway"
            )
