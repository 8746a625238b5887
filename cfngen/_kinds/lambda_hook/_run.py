"""`cfngen test` and `cfngen invoke` for a Lambda hook (its `ContractProtocol`).

The function is found in the template and run by cfngen/_contract's runner offline (_function.py:
moto answers its AWS calls, fake credentials, its output captured, in the runner's worker
process). For each LambdaHook of the template, one unit of work sends every request its
TargetOperations and TargetFilters call for (_targets.py), each carried to its end (_send.py);
then each rule of _rules.py is one named test over every answer, and two tests judge the hook's
verdicts on the inputs. One `cfngen invoke`: _invoke.py.
"""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._contract._isolate import ChildExit
from cfngen._contract._protocol import Listener, Settings
from cfngen._contract._results import InvokeResult, SuiteResult, TestResult
from cfngen._errors import CfngenError
from cfngen._kinds.lambda_hook._function import Found, find, hook_ids, opened
from cfngen._kinds.lambda_hook._rules import RULES, STATUSES, Answered
from cfngen._kinds.lambda_hook._send import sending, three_at_most
from cfngen._kinds.lambda_hook._targets import Case, cases

if TYPE_CHECKING:
    from cfngen._contract._runner import Runner
    from cfngen._kind import Project

VERDICT_TESTS = ("lh_compliant_succeeds", "lh_noncompliant_fails")
TEST_NAMES = tuple(rule.name for rule in RULES) + VERDICT_TESTS
VERDICT_CODE = "cfngen/lambda-hook-verdict"


# --------------------------------------------------------------------------- test


def _named(ids: list[str | None], lid: str | None) -> list[tuple[str, str]]:
    """(the name a test is reported as, the test) for the hook `lid`: `lh_hook_status[Hook]`
    when the template has several hooks."""
    return [(f"{name}[{lid}]" if len(ids) > 1 else name, name) for name in TEST_NAMES]


def _hook_ids(project: Project, template: Path | None, resource: str | None) -> list[str | None]:
    """The hooks a run tests: `--resource`, else every LambdaHook of the template ([None] when
    it has none or cannot be read: finding the hook then says why)."""
    if resource is not None:
        return [resource]
    return list(hook_ids(project, template or project.template)) or [None]


def test_names(
    project: Project, template: Path | None = None, resource: str | None = None
) -> list[str]:
    ids = _hook_ids(project, template, resource)
    return [shown for lid in ids for shown, _ in _named(ids, lid)]


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
    """The tests of `--resource`, else of every LambdaHook of the template in turn."""
    from cfngen._contract._select import compile_expression
    from cfngen._kinds._shared._parameters import parse_params

    started = time.perf_counter()
    select = compile_expression(runner.settings.keyword or "")
    ids = _hook_ids(runner.project, template, resource)
    chosen = {lid: [(s, n) for s, n in _named(ids, lid) if select(s)] for lid in ids}
    if not any(chosen.values()):
        raise CfngenError(
            f"-k {runner.settings.keyword!r} selects none of the tests",
            "test names are: " + ", ".join(test_names(runner.project, template, resource)),
        )
    parameters = parse_params(params, params_file)
    result = SuiteResult(needs_a_test=True)
    three_at_most(runner)
    for lid, tests in chosen.items():
        if not tests:
            continue
        shown = f"{lid}: " if len(ids) > 1 else ""
        try:
            found = find(
                runner.project,
                template=template,
                resource=lid,
                handler=handler,
                region=runner.settings.region or "us-east-1",
                parameters=parameters,
            )
        except CfngenError as error:
            if len(ids) == 1:
                raise
            # One hook cfngen cannot run (its function is not in the template) leaves the
            # others to test.
            why = f"{error.message} ({error.hint})" if error.hint else error.message
            for name, _ in tests:
                listener.add(result, TestResult(name, "skipped", why, 0.0))
            continue
        plan, notes = cases(found)
        result.notes.extend(shown + note for note in found.notes + notes)
        for test in _run_hook(runner, found, plan, tests):
            listener.add(result, test)
    result.seconds = time.perf_counter() - started
    return result


def _run_hook(
    runner: Runner[Project], found: Found, plan: list[Case], tests: list[tuple[str, str]]
) -> list[TestResult]:
    """One hook's requests sent in one unit of work, then each test judged on the answers."""
    sent: list[list[Answered] | ChildExit] = []
    with opened(runner, found) as open_runner:
        if open_runner is None:
            error = found.function.init_error or "the function cannot be imported"
            why = f"Lambda's init failed: {error}"
            return [TestResult(shown, "failed", why, 0.0) for shown, _ in tests]
        work = functools.partial(sending, open_runner, found, plan)
        runner.each([work], lambda _i, got: sent.append(got), fresh=True)
    (answers,) = sent
    judged = []
    for shown, name in tests:
        test = _judge(name, answers, plan)
        test.name = shown
        judged.append(test)
    return judged


def _judge(name: str, answers: list[Answered] | ChildExit, plan: list[Case]) -> TestResult:
    if isinstance(answers, ChildExit):
        return TestResult(
            name,
            "failed",
            f"the function's process ended ({answers.how}) before it answered: a Lambda "
            "function returns its answer; never os._exit, sys.exit or a signal",
            0.0,
        )
    rules = {rule.name: rule for rule in RULES}
    if name in rules:
        rule = rules[name]
        problems: list[str] = []
        warnings: list[str] = []
        for answered, case in zip(answers, plan, strict=True):
            found, warned = rule.check(answered)
            problems += [f"{case.label}: {text}" for text in found]
            warnings += [f"{case.label}: {text}" for text in warned]
        test = TestResult(name, "failed" if problems else "passed", None, 0.0)
        if problems:
            test.message = f"{rule.says}:\n" + "\n".join(f"- {p}" for p in problems)
            if rule.hint:
                test.message += f"\n{rule.hint}"
            test.code = rule.code
        test.warnings = warnings
        test.warning_codes = {w: rule.code for w in warnings}
        return test
    return _verdicts(name, answers, plan)


def _verdicts(name: str, answers: list[Answered], plan: list[Case]) -> TestResult:
    """The hook's own judgement: SUCCESS on compliant inputs, FAILED on noncompliant ones (only
    final answers are judged: one that never came is another test's failure)."""
    wanted = "SUCCESS" if name == "lh_compliant_succeeds" else "FAILED"
    mine = [
        answered
        for answered, case in zip(answers, plan, strict=True)
        if case.compliant == (wanted == "SUCCESS")
    ]
    if not mine:
        return TestResult(
            name, "skipped", 'no "noncompliant" inputs in lambda-hook-inputs.json', 0.0
        )
    wrong = []
    for answered in mine:
        final = answered.final
        status = None if final is None else final.status
        if status in STATUSES - {"IN_PROGRESS"} and status != wanted:
            response = None if final is None else final.response
            said = response.get("message") if isinstance(response, dict) else None
            wrong.append(f"- {answered.target.label}: {status} ({said or 'no message'})")
    if not wrong:
        return TestResult(name, "passed", None, 0.0)
    what = "compliant" if wanted == "SUCCESS" else "noncompliant"
    return TestResult(
        name,
        "failed",
        f"the hook answered otherwise than {wanted} on {what} inputs:\n" + "\n".join(wrong),
        0.0,
        code=VERDICT_CODE,
    )


def run_tests(project: Project, *, keyword: str | None = None, **options: Any) -> SuiteResult:
    """`cfngen test` on a loaded project."""
    from cfngen._contract._runner import Runner

    settings = Settings(region=options.pop("region", None), keyword=keyword)
    return CONTRACT.run_tests(Runner(project, CONTRACT, settings), Listener(), **options)


class LambdaHookContract:
    """The Lambda hook protocol (a `ContractProtocol`): a plain `handler(event, context)`
    found in the template, answering with its return value."""

    label = "Lambda hook function"
    request_optional = True
    upgradable = False
    extra: str | None = "test"
    options: tuple[str, ...] = ("template", "resource", "handler", "params", "params_file")
    status_key = "hookStatus"
    in_progress: str | None = "IN_PROGRESS"
    statuses = STATUSES
    error_codes: frozenset[str] = frozenset({"NonCompliant", "InternalFailure"})
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
        from cfngen._kinds.lambda_hook._invoke import invoke

        return invoke(runner, action, request_file, listener, **options)

    def run_tests(self, runner: Runner[Project], listener: Listener, **options: Any) -> SuiteResult:
        return _run_tests(runner, listener, **options)

    def test_names(self, runner: Runner[Project], **options: Any) -> list[str]:
        """One name per test and LambdaHook, as `run_tests` reports them."""
        return test_names(runner.project, options.get("template"), options.get("resource"))


CONTRACT = LambdaHookContract()
