"""One contract test's handler calls, each checked against every per-response rule, and the
expectations the tests are written in (succeed, fail_with, same, create, read, list_all)."""

from __future__ import annotations

import copy
from typing import Any

from cfngen._contract._loop import Outcome
from cfngen._contract._results import Failed, Skipped
from cfngen._contract._target import Waited
from cfngen._kinds._shared._transforms import Judgement
from cfngen._kinds.resource.contract import _rules
from cfngen._kinds.resource.contract._inputs import InputProblem, InputSet, update_request
from cfngen._kinds.resource.contract._leftovers import Gone, Made
from cfngen._kinds.resource.contract._messages import (
    MAX_LIST_PAGES,
    R_PAGES,
    R_SAME,
    R_SHAPE,
    R_SUCCESS,
    explain,
    status_text,
)
from cfngen._kinds.resource.contract._request import Request, ResourceExchange
from cfngen._kinds.resource.contract._response_checks import ResponseChecks
from cfngen._kinds.resource.contract._suite_run import SuiteRun


def in_sync_note(action: str, where: str, judgement: Judgement) -> dict[str, Any]:
    """What `cfngen test -v` and `--format json` say about a property a transform put in
    sync: which alternative, on what, with what result."""
    found = judgement.in_sync
    assert found is not None
    return {
        "action": action,
        "pointer": where,
        "key": judgement.transform.key,
        "alternative": found.alternative.number,
        "expression": found.alternative.text,
        "scope": found.scope,
        "result": found.result,
        "by": found.by,
    }


class Case(ResponseChecks):
    """The handler calls of one test, with every per-response rule checked on the way."""

    def __init__(self, run: SuiteRun, inputs: InputSet) -> None:
        self.run = run
        self.info = run.info
        self.inputs = inputs
        #: The typeConfiguration every request carries, LIST's and clean-up's too.
        self.type_configuration = run.configuration.for_handler
        self._to_delete: list[dict[str, Any]] = []
        #: The properties a propertyTransform put in sync, for verbose and JSON output.
        self.in_sync: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ inputs

    @property
    def create_input(self) -> dict[str, Any]:
        return copy.deepcopy(self.inputs.create)

    def update_input(self, current: dict[str, Any]) -> dict[str, Any]:
        if self.inputs.update is None:
            raise Skipped(self.inputs.missing("update"))
        try:
            return update_request(self.info, self.inputs, current)
        except InputProblem as exc:
            raise Failed(str(exc)) from None

    # ------------------------------------------------------------------ calls

    def call(
        self,
        action: str,
        desired: dict[str, Any] | None,
        previous: dict[str, Any] | None = None,
        next_token: str | None = None,
        *,
        rejecting: bool = False,
        tags: bool = False,
    ) -> Outcome:
        """One handler call with every per-response rule checked. `rejecting`: the input is
        invalid on purpose, so accepting it is the failure to report, not what it returned.
        `tags`: send the models' tags as desiredResourceTags/previousResourceTags too, as
        CloudFormation does for a taggable resource."""
        outcome = self._carry(
            action,
            Request(
                desired=copy.deepcopy(desired),
                previous=copy.deepcopy(previous),
                next_token=next_token,
                desired_tags=_rules.tags_of(self.info, desired) if tags else None,
                previous_tags=_rules.tags_of(self.info, previous) if tags else None,
            ),
        )
        if action == "CREATE":
            self._remember(outcome, desired)
        if not (rejecting and outcome.status == "SUCCESS" and outcome.guard is None):
            self._check_events(outcome, desired)
        return outcome

    def _remember(self, outcome: Outcome, sent: dict[str, Any] | None) -> None:
        """Note what a CREATE may have made, for clean_up (the request too: the returned
        model may lack its identifier)."""
        made = [
            (invocation.response or {}).get("resourceModel")
            for invocation in outcome.invocations
            if invocation.status in ("SUCCESS", "IN_PROGRESS")
        ]
        if made:
            made.append(sent)
        for model in made:
            if not isinstance(model, dict) or _rules.identifier(self.info, model) is None:
                continue
            if not any(_rules.same_identifier(self.info, model, m) for m in self._to_delete):
                self._to_delete.append(copy.deepcopy(model))
                # The run's ledger, should this worker never get to clean_up (_leftovers.py).
                self.run.runner.send(Made(copy.deepcopy(model)))

    def forget(self, model: dict[str, Any]) -> None:
        self._to_delete = [
            m for m in self._to_delete if not _rules.same_identifier(self.info, m, model)
        ]
        self.run.runner.send(Gone(copy.deepcopy(model)))

    def clean_up(self) -> None:
        """Delete what the test created and did not delete; results are not judged.
        `--keep`: leave it (the run names it)."""
        if self.run.runner.settings.keep:
            return
        for model in self._to_delete:
            self.delete_quietly(model)
        self._to_delete = []

    def delete_quietly(self, model: dict[str, Any]) -> bool:
        """DELETE `model`, unjudged: whether it is gone (deleted, or NotFound)."""
        if "delete" not in self.info.handler_names or "DELETE" in self.run.runner.stubs:
            return False
        outcome = self._carry("DELETE", Request(desired=copy.deepcopy(model)))
        gone = outcome.status == "SUCCESS" or outcome.error_code == "NotFound"
        if gone:
            self.run.runner.send(Gone(copy.deepcopy(model)))
        return gone

    def _carry(self, action: str, request: Request) -> Outcome:
        request.type_configuration = copy.deepcopy(self.type_configuration)
        handler = self.info.handlers.get(action.lower())
        exchange = ResourceExchange(
            self.run.runner,
            action,
            request,
            limits=self.run.limits,
            timeout_minutes=handler.timeout_in_minutes if handler is not None else None,
        )
        # --max-delay, slept only against a target whose time is real (_target.py).
        return self.run.runner.carry(exchange, handler=action, on_wait=self._waiting)

    def _waiting(self, seconds: float, asked: float, simulated: bool) -> None:
        if not simulated and seconds > 0:
            self.run.runner.send(Waited(seconds, asked))

    # ------------------------------------------------------------------ expectations

    def succeed(
        self,
        action: str,
        desired: dict[str, Any] | None,
        previous: dict[str, Any] | None = None,
        *,
        rule: str | None = None,
        tags: bool = False,
    ) -> Outcome:
        outcome = self.call(action, desired, previous, tags=tags)
        if outcome.status != "SUCCESS":
            raise Failed(
                explain(
                    f"{action} returned {status_text(outcome)}; expected SUCCESS",
                    rule or R_SUCCESS[action],
                    sent=desired,
                    outcome=outcome,
                )
            )
        if action == "DELETE":
            assert desired is not None
            self.forget(desired)
        return outcome

    def fail_with(
        self,
        action: str,
        desired: dict[str, Any] | None,
        previous: dict[str, Any] | None = None,
        *,
        code: str,
        rule: str,
        headline: str | None = None,
    ) -> Outcome:
        outcome = self.call(action, desired, previous)
        if outcome.status == "FAILED" and outcome.error_code == code:
            if not outcome.response.get("message"):
                raise Failed(
                    explain(
                        f"{action} returned FAILED ({code}) without a message",
                        "a FAILED progress event must say why in its message",
                        sent=desired,
                        outcome=outcome,
                    )
                )
            return outcome
        if outcome.status == "SUCCESS" and action == "UPDATE":
            model = outcome.response.get("resourceModel")
            if isinstance(model, dict) and model not in self._to_delete:
                self._to_delete.append(model)
        raise Failed(
            explain(
                headline or f"{action} returned {status_text(outcome)}; expected FAILED ({code})",
                rule,
                sent=desired,
                outcome=outcome,
            )
        )

    def same(
        self, action: str, expected: dict[str, Any], outcome: Outcome, *, what: str = "input"
    ) -> None:
        returned = outcome.response.get("resourceModel")
        log = _rules.TransformLog()
        rows = _rules.differences(self.info, expected, returned, log)
        for where, judgement in log.in_sync:
            note = in_sync_note(action, where, judgement)
            if note not in self.in_sync:  # a test that creates twice reads it twice
                self.in_sync.append(note)
        if rows:
            raise Failed(
                explain(
                    f"the model {action} returned differs from its {what}",
                    R_SAME,
                    sent=expected,
                    outcome=outcome,
                    table=rows,
                    notes=log.failures(),
                )
            )

    def create(self, model: dict[str, Any]) -> dict[str, Any]:
        outcome = self.succeed("CREATE", model)
        self.same("CREATE", model, outcome)
        created: dict[str, Any] = outcome.response["resourceModel"]
        return created

    def read(self, model: dict[str, Any], expected: dict[str, Any]) -> dict[str, Any]:
        outcome = self.succeed("READ", model)
        self.same("READ", expected, outcome, what="create/update input")
        read: dict[str, Any] = outcome.response["resourceModel"]
        return read

    def list_all(self, model: dict[str, Any]) -> list[dict[str, Any]]:
        models: list[dict[str, Any]] = []
        token: str | None = None
        seen: dict[str, int] = {}
        page = 1
        while True:
            outcome = self.call("LIST", model, next_token=token)
            if outcome.status != "SUCCESS":
                raise Failed(
                    explain(
                        f"LIST (page {page}) returned {status_text(outcome)}; expected SUCCESS",
                        R_SUCCESS["LIST"],
                        sent=model,
                        outcome=outcome,
                    )
                )
            models.extend(
                m for m in outcome.response.get("resourceModels") or [] if isinstance(m, dict)
            )
            next_token = outcome.response.get("nextToken")
            if next_token in (None, ""):
                return models
            if not isinstance(next_token, str):
                raise Failed(
                    explain(
                        f"LIST returned a nextToken that is not a string: {next_token!r}",
                        R_SHAPE,
                        outcome=outcome,
                    )
                )
            if next_token in seen:
                raise Failed(
                    explain(
                        f"LIST returned nextToken {next_token!r} again on page {page} (first on "
                        f"page {seen[next_token]}): paging would never end",
                        R_PAGES,
                        sent=model,
                        outcome=outcome,
                    )
                )
            if page >= MAX_LIST_PAGES:
                raise Failed(
                    explain(
                        f"LIST was still returning a nextToken after {page} pages",
                        R_PAGES,
                        outcome=outcome,
                    )
                )
            seen[next_token] = page
            token = next_token
            page += 1

    def in_list(self, model: dict[str, Any]) -> tuple[bool, list[dict[str, Any]]]:
        models = self.list_all(model)
        return any(_rules.same_identifier(self.info, m, model) for m in models), models
