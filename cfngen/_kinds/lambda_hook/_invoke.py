"""`cfngen invoke ACTION [REQUEST_FILE]` for a Lambda hook: one request (_targets.py's
`invoke_case`) sent in a worker process, its invocations told in cfngen's own process, every
rule of _rules.py checked on its answers.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._contract._protocol import Listener
from cfngen._contract._results import InvokeResult
from cfngen._errors import CfngenError
from cfngen._kinds.lambda_hook._function import DEFAULT_LIMIT, find, opened, simulated_sleep
from cfngen._kinds.lambda_hook._rules import RULES, Answered
from cfngen._kinds.lambda_hook._send import send, three_at_most

if TYPE_CHECKING:
    from cfngen._contract._runner import Runner
    from cfngen._kind import Project


def invoke(
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
    from cfngen._kinds._shared._parameters import parse_params
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
    three_at_most(runner)
    seen: list[Answered] = []
    with opened(runner, found) as open_runner:
        if open_runner is None:
            raise CfngenError(
                f"Lambda's init failed: {found.function.init_error}", "fix the function's import"
            )

        def work() -> None:
            from cfngen._kinds._shared._payload import PayloadServer

            wait = runner.clock().wait if runner.sandbox.simulated_time else None
            with PayloadServer() as server, simulated_sleep(wait):
                runner.send(send(open_runner, found, case, server.publish))

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
