"""`cfngen test` and `cfngen invoke` for a Lambda hook (its `ContractProtocol`).

The function is found in the template and run by cfngen/_contract's runner offline (_function.py:
moto answers its AWS calls, fake credentials, its output captured, in the runner's worker
process). One unit of work sends every request the hook's TargetOperations and TargetFilters
call for (_targets.py), each carried while it answers IN_PROGRESS, at most three invocations in
all, with `time.sleep` moving the simulated clock; then each rule of _rules.py is one named test
over every answer, and two tests judge the hook's verdicts on the inputs.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._contract._isolate import ChildExit
from cfngen._contract._protocol import Listener, Settings
from cfngen._contract._results import InvokeResult, SuiteResult, TestResult
from cfngen._errors import CfngenError
from cfngen._kinds.lambda_hook._function import (
    DEFAULT_LIMIT,
    Found,
    as_lambda_calls,
    find,
    opened,
    simulated_sleep,
)
from cfngen._kinds.lambda_hook._requests import Hook, Target, again, request
from cfngen._kinds.lambda_hook._rules import (
    MAX_INVOCATIONS,
    RULES,
    STATUSES,
    Answered,
    Attempt,
)
from cfngen._kinds.lambda_hook._targets import Case, cases

if TYPE_CHECKING:
    from cfngen._contract._call import Invocation
    from cfngen._contract._runner import Runner
    from cfngen._kinds._kind import Project

VERDICT_TESTS = ("lh_compliant_succeeds", "lh_noncompliant_fails")
TEST_NAMES = tuple(rule.name for rule in RULES) + VERDICT_TESTS
VERDICT_CODE = "cfngen/lambda-hook-verdict"


class _Call:
    """One request carried by the runner's loop (its `Exchange`): the same request again while
    the function answers IN_PROGRESS, each attempt recorded in `answered`."""

    waits = True
    timeout_minutes: float | None = None

    def __init__(self, event: dict[str, Any], target: Target, limit: float, seconds: list[float]):
        self.first = event
        self.label = target.label
        self.limit = limit
        self.answered = Answered(target)
        self._seconds = seconds
        self._sent: dict[str, Any] = event

    def event(self, number: int, callback_context: Any) -> dict[str, Any]:
        self._sent = self.first if number == 1 else again(self.first, number, callback_context)
        return self._sent

    def answer(self, invocation: Invocation, returned: Any) -> dict[str, Any] | None:
        seconds = self._seconds.pop() if self._seconds else invocation.seconds
        crash = invocation.crash
        response = json.loads(json.dumps(returned, default=str)) if returned is not None else None
        self.answered.attempts.append(
            Attempt(
                self._sent,
                response,
                seconds,
                error=None if crash is None else crash.headline,
            )
        )
        return invocation.response

    def advance(self, response: Any) -> None:
        pass


def _send(runner: Runner[Project], found: Found, case: Case, publish: Any) -> Answered:
    region = runner.settings.region or "us-east-1"
    hook = Hook(found.hook.alias, _function_arn(found, region))
    event = case.event or request(hook, case.target, region=region, publish=publish)
    seconds: list[float] = []
    entrypoint = runner.entrypoint
    raw = getattr(entrypoint.function, "__wrapped_handler__", entrypoint.function)
    timed = as_lambda_calls(found, raw, region, seconds)
    timed.__wrapped_handler__ = raw  # type: ignore[attr-defined]
    entrypoint.function = timed
    limit = runner.settings.enforce_timeout or DEFAULT_LIMIT
    call = _Call(event, case.target, limit, seconds)
    outcome = runner.carry(call, handler=case.target.point)
    for invocation in outcome.invocations:
        if invocation.timed_out or invocation.not_called:
            stopped = Attempt(invocation.request, None, invocation.limit, timed_out=True)
            stopped.refused = invocation.not_called
            call.answered.attempts.append(stopped)
    return call.answered


def _function_arn(found: Found, region: str) -> str:
    from cfngen._kinds.lambda_hook._requests import ACCOUNT_ID, STACK_NAME

    name = f"{STACK_NAME}-{found.function.logical_id}"
    return f"arn:aws:lambda:{region}:{ACCOUNT_ID}:function:{name}"


def _three_at_most(runner: Runner[Project]) -> None:
    """CloudFormation invokes the function up to three times for one request."""
    settings = runner.settings
    runner.settings = dataclasses.replace(
        settings, max_invocations=min(settings.max_invocations, MAX_INVOCATIONS)
    )


def _sending(runner: Runner[Project], found: Found, plan: list[Case]) -> list[Answered]:
    """Every case sent, inside one unit of work (a worker process): the payload server and
    the simulated sleep are opened there, where the function runs."""
    from cfngen._kinds.hook._payload import PayloadServer

    wait = runner.clock().wait if runner.sandbox.simulated_time else None
    with PayloadServer() as server, simulated_sleep(wait):
        return [_send(runner, found, case, server.publish) for case in plan]


# --------------------------------------------------------------------------- test


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
    from cfngen._contract._select import compile_expression
    from cfngen._kinds._parameters import parse_params

    started = time.perf_counter()
    select = compile_expression(runner.settings.keyword or "")
    chosen = [name for name in TEST_NAMES if select(name)]
    if not chosen:
        raise CfngenError(
            f"-k {runner.settings.keyword!r} selects none of the tests",
            "test names are: " + ", ".join(TEST_NAMES),
        )
    region = runner.settings.region or "us-east-1"
    found = find(
        runner.project,
        template=template,
        resource=resource,
        handler=handler,
        region=region,
        parameters=parse_params(params, params_file),
    )
    plan, notes = cases(found)
    result = SuiteResult(needs_a_test=True)
    result.notes.extend(found.notes + notes)
    _three_at_most(runner)
    sent: list[list[Answered] | ChildExit] = []
    with opened(runner, found) as open_runner:
        if open_runner is None:
            error = found.function.init_error or "the function cannot be imported"
            for name in chosen:
                listener.add(
                    result, TestResult(name, "failed", f"Lambda's init failed: {error}", 0)
                )
            result.seconds = time.perf_counter() - started
            return result
        work = functools.partial(_sending, open_runner, found, plan)
        runner.each([work], lambda _i, got: sent.append(got), fresh=True)
    (answers,) = sent
    for name in chosen:
        listener.add(result, _judge(name, answers, plan))
    result.seconds = time.perf_counter() - started
    return result


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


# --------------------------------------------------------------------------- invoke


def _invoke(
    runner: Runner[Project],
    action: str,
    request_file: Path | None,
    listener: Listener,
    *,
    template: Path | None = None,
    resource: str | None = None,
    handler: str | None = None,
    params: list[str] | None = None,
    params_file: Path | None = None,
) -> InvokeResult:
    from cfngen._kinds._parameters import parse_params
    from cfngen._kinds.lambda_hook._targets import invoke_case

    region = runner.settings.region or "us-east-1"
    found = find(
        runner.project,
        template=template,
        resource=resource,
        handler=handler,
        region=region,
        parameters=parse_params(params, params_file),
    )
    case = invoke_case(found, action, request_file)
    _three_at_most(runner)
    seen: list[Answered] = []
    with opened(runner, found) as open_runner:
        if open_runner is None:
            raise CfngenError(
                f"Lambda's init failed: {found.function.init_error}", "fix the function's import"
            )

        def work() -> None:
            from cfngen._kinds.hook._payload import PayloadServer

            wait = runner.clock().wait if runner.sandbox.simulated_time else None
            with PayloadServer() as server, simulated_sleep(wait):
                runner.send(_send(open_runner, found, case, server.publish))

        # The calls are told here, in cfngen's own process, once the worker has sent them.
        runner.isolated(work, on_message=seen.append)
    result = _verdict(seen[0], found.notes)
    if listener.on_invocation is not None:
        for invocation in result.outcome.invocations:
            listener.on_invocation(invocation)
    return result


def _verdict(answered: Answered, notes: list[str]) -> InvokeResult:
    from cfngen._contract._call import Invocation
    from cfngen._contract._loop import Outcome

    invocations = [
        Invocation(
            answered.target.label,
            attempt.number,
            attempt.request,
            attempt.response if isinstance(attempt.response, dict) else None,
            attempt.seconds,
            DEFAULT_LIMIT,
            status_key="hookStatus",
            timed_out=attempt.timed_out,
        )
        for attempt in answered.attempts
    ]
    outcome = Outcome(answered.target.label, invocations)
    final = answered.final
    status = None if final is None else final.status
    problems = [text for rule in RULES for text in rule.check(answered)[0]]
    warnings = notes + [text for rule in RULES for text in rule.check(answered)[1]]
    code = final.response.get("errorCode") if final and isinstance(final.response, dict) else None
    verdict = f"{answered.target.label}: {status}" + (f" {code}" if code else "")
    if problems:
        verdict += " (breaks the protocol: " + "; ".join(problems) + ")"
    return InvokeResult(outcome, verdict, status == "SUCCESS" and not problems, warnings)


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
        return _invoke(runner, action, request_file, listener, **options)

    def run_tests(self, runner: Runner[Project], listener: Listener, **options: Any) -> SuiteResult:
        return _run_tests(runner, listener, **options)

    def test_names(self, runner: Runner[Project], **options: Any) -> list[str]:
        return list(TEST_NAMES)


CONTRACT = LambdaHookContract()
