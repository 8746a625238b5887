"""The hook contract tests, as plain functions of a `carry(point, target) -> Run` collaborator.

Per invocation point the schema declares, the official tests (`cfn test`):

- contract_pre_create_success: every compliant target gets SUCCESS, no errorCode;
- contract_pre_create_failed: every non-compliant target gets FAILED;
- contract_pre_create_failed_unsupported_target: with a wildcard target, a target the
  wildcards do not cover gets FAILED UnsupportedTarget;

and what the official suite misses:

- contract_pre_create_failed_has_error_code: a FAILED answer carries an errorCode a hook may
  return (not none, not an unknown one, not a resource handler's such as AlreadyExists);
- contract_pre_create_failed_has_message: a FAILED answer says why (a non-empty string);
- contract_pre_create_in_progress_ends: IN_PROGRESS ends (re-invoked with its callbackContext);
- contract_pre_create_within_time_limit: every call answers within the limit;
- contract_pre_create_no_exception: no handler raises (shown with the handler's own frames);
- contract_pre_create_final_event_has_no_callback_delay: SUCCESS and FAILED ask for no delay;

the same for pre_update and pre_delete. Each test checks one rule over the runs it needs; a run
(one point, one target document, carried to its end) is made once and shared by the tests of
an input set. A test that cannot run (no non-compliant input, a point with no target) is
skipped with the reason, never passed: the official suite passes with nothing to test.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cfngen._contract._results import Failed, Skipped, report_crash
from cfngen._kinds.hook._hook_protocol import (
    FILE_PART,
    POINTS,
    R_ENDS,
    R_ERROR_CODE,
    R_FAILED,
    R_FINAL_DELAY,
    R_MESSAGE,
    R_NO_EXCEPTION,
    R_SHAPE,
    R_SUCCESS,
    R_TIME,
    R_UNSUPPORTED,
    Run,
    Target,
    error_code_problem,
    final_delay,
    message_problem,
    shape_problems,
)
from cfngen._kinds.hook._inputs import InputSet, covers, declared, has_wildcard

#: The target the unsupported-target test sends (the official suite sends a random one).
UNSUPPORTED_TARGET = "Cfngen::Unsupported::Target"


#: Carries one invocation point for one target to its end (the runner, or a stand-in).
Carry = Callable[[str, Target], Run]


@dataclass
class Case:
    """One input set against one hook: the runs its tests share."""

    carry: Carry
    inputs: InputSet
    schema: dict[str, Any]
    _runs: dict[tuple[str, str, str], Run] = field(default_factory=dict)

    def run(self, point: str, target: Target, kind: str) -> Run:
        key = (point, kind, target.name)
        if key not in self._runs:
            self._runs[key] = self.carry(point, target)
        return self._runs[key]

    def documents(self, point: str, kind: str) -> dict[str, Any]:
        """Target -> document of the declared targets, for compliant or non-compliant runs;
        Skipped saying why when there is nothing to run."""
        names = declared(self.schema, point)
        handler = FILE_PART[point]
        if not names:
            raise Skipped(f"the {_schema_handler(point)} handler names no target")
        source = self.inputs.compliant if kind == "compliant" else self.inputs.non_compliant
        found = {t: d for t, d in source.get(point, {}).items() if covers(names, t)}
        if found:
            return found
        if kind == "compliant":
            if self.inputs.generated:
                raise Skipped(f"no document could be made for {', '.join(names)}")
            raise Skipped(
                f"{self.inputs.label} has no {self.inputs.label}_{handler}.json for "
                f"{', '.join(names)}"
            )
        label = self.inputs.label or "inputs_1"
        raise Skipped(
            f"no non-compliant target for {handler}: write inputs/{label}_invalid_{handler}.json"
            f" (or {label}_invalid.json) naming {', '.join(names)} with documents the hook must "
            "refuse"
        )

    def runs(self, point: str, kind: str) -> list[Run]:
        return [
            self.run(point, Target(name, document, _logical_id(name)), kind)
            for name, document in sorted(self.documents(point, kind).items())
        ]

    def all_runs(self, point: str) -> list[Run]:
        """Every run of the point: compliant and non-compliant documents."""
        runs: list[Run] = []
        reasons = []
        for kind in ("compliant", "non-compliant"):
            try:
                runs.extend(self.runs(point, kind))
            except Skipped as skipped:
                reasons.append(str(skipped))
        if not runs:
            raise Skipped("; ".join(dict.fromkeys(reasons)))
        return runs


def _schema_handler(point: str) -> str:
    from cfngen._kinds.hook._hook_protocol import HANDLER_OF

    return HANDLER_OF[point]


def _logical_id(target: str) -> str:
    """A logical id like a template's: `Bucket` for AWS::S3::Bucket (guard rules name it)."""
    if target in ("STACK", "CHANGE_SET"):
        return "CfngenContractTest"
    return "".join(ch for ch in target.rsplit("::", 1)[-1] if ch.isalnum()) or "MyResource"


# --------------------------------------------------------------------------- messages


def _json(value: Any, limit: int = 600) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 15] + f"... ({len(text)} chars)"


def explain(headline: str, rule: str, run: Run | None = None) -> str:
    lines = [headline, f"  rule: {rule}"]
    if run is None:
        return "\n".join(lines)
    crash = run.crash
    if crash is not None:
        report_crash(crash)
        lines.append(f"  the handler {crash.account}")
        lines.extend(f"  {frame}" for frame in crash.frames)
    sent = run.target.document
    lines.append(f"  target: {run.target.name} {_json(sent)}")
    if run.last.response is not None:
        keys = ("hookStatus", "errorCode", "message", "callbackDelaySeconds")
        answer = {k: run.response[k] for k in keys if k in run.response}
        lines.append(f"  answer: {_json(answer)}")
    if len(run.answers) > 1:
        lines.append(f"  after {len(run.answers)} calls")
    if run.output:
        lines.append("  handler output:")
        lines.extend(f"    | {line}" for line in run.output[-20:])
    return "\n".join(lines)


def _guards(runs: list[Run]) -> None:
    """Rules every test needs first: a run that never reached an answer says nothing else."""
    for run in runs:
        if run.timed_out:
            raise Failed(explain(f"{run.target.name}: {run.guard}", R_TIME, run))
        if run.endless:
            raise Failed(explain(f"{run.target.name}: {run.guard}", R_ENDS, run))
        problems = shape_problems(run)
        if problems:
            raise Failed(explain(f"{run.target.name}: {'; '.join(problems)}", R_SHAPE, run))


# --------------------------------------------------------------------------- the tests


def success(case: Case, point: str) -> None:
    runs = case.runs(point, "compliant")
    _guards(runs)
    for run in runs:
        if run.status != "SUCCESS" or run.error_code:
            what = run.status if not run.error_code else f"{run.status} {run.error_code}"
            raise Failed(
                explain(f"{run.target.name}: answered {what} to a compliant target", R_SUCCESS, run)
            )


def failed(case: Case, point: str) -> None:
    runs = case.runs(point, "non-compliant")
    _guards(runs)
    for run in runs:
        if run.status != "FAILED":
            raise Failed(
                explain(
                    f"{run.target.name}: answered {run.status} to a non-compliant target "
                    f"({case.inputs.source(f'INVALID_{point}')})",
                    R_FAILED,
                    run,
                )
            )


def _failed_runs(case: Case, point: str) -> list[Run]:
    runs = [r for r in case.runs(point, "non-compliant") if r.status == "FAILED"]
    if not runs:
        raise Skipped(
            "the hook answered no non-compliant target FAILED "
            f"(see contract_{FILE_PART[point]}_failed)"
        )
    return runs


def failed_has_error_code(case: Case, point: str) -> None:
    for run in _failed_runs(case, point):
        problem = error_code_problem(run)
        if problem:
            raise Failed(explain(f"{run.target.name}: FAILED, but {problem}", R_ERROR_CODE, run))


def failed_has_message(case: Case, point: str) -> None:
    for run in _failed_runs(case, point):
        problem = message_problem(run)
        if problem:
            raise Failed(explain(f"{run.target.name}: FAILED, but {problem}", R_MESSAGE, run))


def failed_unsupported_target(case: Case, point: str) -> None:
    names = declared(case.schema, point)
    if not has_wildcard(names):
        raise Skipped("no wildcard target: CloudFormation sends only the targets the schema names")
    document = {"resourceProperties": {"Id": "cfngen", "Property1": "value"}}
    run = case.run(point, Target(UNSUPPORTED_TARGET, document, "Unsupported"), "unsupported")
    _guards([run])
    if run.status != "FAILED" or run.error_code != "UnsupportedTarget":
        what = f"{run.status} {run.error_code or ''}".strip()
        raise Failed(explain(f"{UNSUPPORTED_TARGET}: answered {what}", R_UNSUPPORTED, run))


def in_progress_ends(case: Case, point: str) -> None:
    for run in case.all_runs(point):
        if run.endless:
            raise Failed(explain(f"{run.target.name}: {run.guard}", R_ENDS, run))


def within_time_limit(case: Case, point: str) -> None:
    for run in case.all_runs(point):
        if run.timed_out:
            raise Failed(explain(f"{run.target.name}: {run.guard}", R_TIME, run))


def no_exception(case: Case, point: str) -> None:
    for run in case.all_runs(point):
        if run.crash is not None:
            raise Failed(
                explain(
                    f"{run.target.name}: the handler {run.crash.account}",
                    R_NO_EXCEPTION,
                    run,
                )
            )


def final_event_has_no_callback_delay(case: Case, point: str) -> None:
    for run in case.all_runs(point):
        delay = final_delay(run)
        if delay is not None:
            raise Failed(
                explain(
                    f"{run.target.name}: {run.status} with callbackDelaySeconds {delay}",
                    R_FINAL_DELAY,
                    run,
                )
            )


Test = Callable[[Case, str], None]
#: (name suffix, test), in the order they run for each point.
TESTS: tuple[tuple[str, Test], ...] = (
    ("success", success),
    ("failed", failed),
    ("failed_unsupported_target", failed_unsupported_target),
    ("failed_has_error_code", failed_has_error_code),
    ("failed_has_message", failed_has_message),
    ("in_progress_ends", in_progress_ends),
    ("within_time_limit", within_time_limit),
    ("no_exception", no_exception),
    ("final_event_has_no_callback_delay", final_event_has_no_callback_delay),
)
TEST_NAMES = tuple(f"contract_{FILE_PART[p]}_{suffix}" for p in POINTS for suffix, _ in TESTS)


def test_name(point: str, suffix: str) -> str:
    return f"contract_{FILE_PART[point]}_{suffix}"
