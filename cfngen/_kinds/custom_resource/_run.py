"""`cfngen test` and `cfngen invoke` for a custom resource (its `ContractProtocol`): the
function found as SAM finds it and run by cfngen/_contract's runner (`runner.open(Source(...))`:
moto answers its AWS calls, fake credentials; each call under the function's Timeout, its
output captured, in the runner's worker process), its ResponseURL a local HTTPS receiver opened
inside each unit of work.

The function opened in the runner: _open.py; the properties of each request: _inputs.py; one
`cfngen invoke`: _invoke.py; the tests themselves: _tests.py.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._contract._isolate import ChildExit
from cfngen._contract._protocol import Listener, Settings
from cfngen._contract._results import InvokeResult, SuiteResult, TestResult, run_test
from cfngen._errors import CfngenError
from cfngen._kinds.custom_resource._inputs import load_inputs
from cfngen._kinds.custom_resource._invoke import _invoke
from cfngen._kinds.custom_resource._open import opened
from cfngen._kinds.custom_resource._protocol import (
    STATUS_KEY,
    STATUSES,
)
from cfngen._kinds.custom_resource._tests import TESTS, Case
from cfngen._kinds.custom_resource._type_files import unclaimed
from cfngen._project import Project

if TYPE_CHECKING:
    from cfngen._contract._runner import Runner


# --------------------------------------------------------------------------- inputs


# --------------------------------------------------------------------------- test


def test_names(project: Project, template: Path | None = None) -> tuple[str, ...]:
    """The names `cfngen test` gives this project's tests: each test once per custom resource
    of the template, `cr_create[LogicalId]`, when it declares several (the items of
    `pytest --cfngen`)."""
    ids = _resource_ids(project, template)
    return tuple(name for lid in ids for name in _named(ids, lid))


def _resource_ids(project: Project, template: Path | None) -> list[str | None]:
    """The logical ids of the template's custom resources, in its order ([None] when it cannot
    be read or declares none: finding the resource then says why)."""
    from cfngen._kinds.custom_resource._detect import custom_resources
    from cfngen._kinds.custom_resource._template import find_template

    try:
        path = find_template(project.root, template or project.template)
    except CfngenError:
        return [None]
    return list(custom_resources(path)) or [None]


def _named(ids: Sequence[str | None], lid: str | None) -> list[str]:
    return [f"{name}[{lid}]" if len(ids) > 1 else name for name, _ in TESTS]


def _run_tests(
    runner: Runner[Project],
    listener: Listener,
    *,
    template: Path | None = None,
    resource: str | None = None,
    handler: str | None = None,
    params: list[str] | None = None,
    params_file: Path | None = None,
) -> SuiteResult:
    """The suite of `resource`, else of every custom resource of the template in turn."""
    from cfngen._contract._select import compile_expression

    started = time.perf_counter()
    keyword = runner.settings.keyword
    select = compile_expression(keyword or "")
    ids: list[str | None] = (
        [resource] if resource is not None else _resource_ids(runner.project, template)
    )
    plan = {
        lid: [
            (name, test)
            for name, (_, test) in zip(_named(ids, lid), TESTS, strict=True)
            if select(name)
        ]
        for lid in ids
    }
    for tests in plan.values():
        tests.sort(key=lambda t: t[0] not in runner.settings.first)
    if not any(plan.values()):
        names = [name for lid in ids for name in _named(ids, lid)]
        raise CfngenError(
            f"-k {keyword!r} selects none of the tests", "test names are: " + ", ".join(names)
        )
    # Every test skipped proves nothing: the run fails.
    result = SuiteResult(needs_a_test=True)
    for lid, tests in plan.items():
        if tests:
            _run_suite(
                runner,
                listener,
                result,
                tests,
                lid,
                several=len(ids) > 1,
                template=template,
                handler=handler,
                params=params,
                params_file=params_file,
            )
    result.seconds = time.perf_counter() - started
    if not result.ran:
        result.notes.append("no test ran: every test was skipped (the reasons are above)")
    return result


def _run_suite(
    runner: Runner[Project],
    listener: Listener,
    result: SuiteResult,
    plan: list[tuple[str, Callable[[Case], None]]],
    resource: str | None,
    *,
    several: bool,
    template: Path | None,
    handler: str | None,
    params: list[str] | None,
    params_file: Path | None,
) -> None:
    """One custom resource's tests, added to `result`."""
    shown = f"{resource}: " if several else ""

    def done(index: int, found: TestResult | ChildExit) -> None:
        if isinstance(found, ChildExit):
            found = TestResult(
                plan[index][0],
                "failed",
                f"one-response: the function's process ended ({found.how}) before it "
                "answered: a handler answers through its ResponseURL and returns; never "
                "os._exit, sys.exit or a signal to its own process",
                0.0,
            )
        listener.add(result, found)

    with contextlib.ExitStack() as stack:
        try:
            cloud, found, notes = stack.enter_context(
                opened(
                    runner,
                    template=template,
                    resource=resource,
                    handler=handler,
                    params=params,
                    params_file=params_file,
                )
            )
        except CfngenError as error:
            if not several:
                raise
            # One resource cfngen cannot run (its function is not in the template) leaves the
            # others to test.
            why = f"{error.message} ({error.hint})" if error.hint else error.message
            for index, (name, _) in enumerate(plan):
                done(index, TestResult(name, "skipped", why, 0.0))
            return
        inputs = load_inputs(found)
        note = unclaimed(found.template.parent, found.types)
        if note is not None and note not in result.notes:
            result.notes.append(note)
        result.notes.extend(shown + text for text in notes + inputs.notes)

        def unit(name: str, test: Callable[[Case], None]) -> TestResult:
            case = Case(cloud, inputs)
            with cloud.receiving() if cloud.runner is not None else contextlib.nullcontext():
                return run_test(name, lambda: test(case), case.warnings)

        units = [functools.partial(unit, name, test) for name, test in plan]
        if cloud.runner is None:  # nothing is called: no worker needed
            for index, work in enumerate(units):
                done(index, work())
        else:
            # Each test in a fresh container: moto emptied, the function imported again.
            runner.each(units, done, fresh=True)


def run_tests(
    project: Project,
    *,
    keyword: str | None = None,
    enforce_timeout: float | None = None,
    region: str | None = None,
    template: Path | None = None,
    resource: str | None = None,
    handler: str | None = None,
    params: list[str] | None = None,
    params_file: Path | None = None,
    on_result: Callable[[TestResult], None] | None = None,
) -> SuiteResult:
    """`cfngen test` on a loaded project (what `run_contract_tests` does with a folder)."""
    from cfngen._contract._runner import Runner

    settings = Settings(region=region, enforce_timeout=enforce_timeout, keyword=keyword)
    return CONTRACT.run_tests(
        Runner(project, CONTRACT, settings),
        Listener(on_result=on_result),
        template=template,
        resource=resource,
        handler=handler,
        params=params,
        params_file=params_file,
    )


# --------------------------------------------------------------------------- invoke


class CustomResourceContract:
    """The custom resource protocol (a `ContractProtocol`): a plain `handler(event, context)`
    found in the template, answering through the body it PUTs to its ResponseURL."""

    label = "custom resource function"
    #: `cfngen invoke Create` needs no request file: the template has the properties.
    request_optional = True
    upgrade_identifiers = None
    typeconfig_envelope: tuple[str, ...] = ()
    extra: str | None = "test"
    #: Options beyond the runner's own that these functions take.
    options: tuple[str, ...] = (
        "template",
        "resource",
        "handler",
        "params",
        "params_file",
        "property",
        "old_property",
        "physical_id",
    )
    status_key = STATUS_KEY
    in_progress: str | None = None
    statuses = STATUSES
    #: No error codes: a FAILED response says why in its Reason.
    error_codes: frozenset[str] = frozenset()
    session_module: str | None = None

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
        return _invoke(runner, action, request_file, listener, **options)

    def run_tests(self, runner: Runner[Project], listener: Listener, **options: Any) -> SuiteResult:
        for key in ("property", "old_property", "physical_id"):
            if options.pop(key, None):
                raise CfngenError(
                    f"--{key.replace('_', '-')} is for `cfngen invoke`", "leave it out"
                )
        return _run_tests(runner, listener, **options)

    def test_names(self, runner: Runner[Project], **options: Any) -> list[str]:
        """One name per test and custom resource, as `run_tests` reports them (plain names
        for the one `--resource` picks)."""
        if options.get("resource") is not None:
            return [name for name, _test in TESTS]
        return list(test_names(runner.project, options.get("template")))


CONTRACT = CustomResourceContract()
