"""The rules about single responses, checked on every handler call of every test:
status shape, time limits, endless IN_PROGRESS, error codes, read/list never IN_PROGRESS,
delete returning no model, identifiers, writeOnly properties, schema conformance."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cfngen._contract._loop import Outcome
from cfngen._contract._results import Failed
from cfngen._kinds.resource.contract import _rules
from cfngen._kinds.resource.contract._messages import (
    R_CONFORM,
    R_DELETE_NO_MODEL,
    R_ENDLESS,
    R_IDENTIFIER,
    R_SHAPE,
    R_STABILIZE,
    R_SUCCESS,
    R_SYNC,
    R_TIME,
    R_WRITE_ONLY,
    as_json,
    explain,
)

if TYPE_CHECKING:
    from cfngen._kinds.resource._view import ResourceSchema
    from cfngen._kinds.resource.contract._suite_run import SuiteRun


class ResponseChecks:
    """What `Case` checks after every call (a mixin: it needs `info` and `run`)."""

    info: ResourceSchema
    run: SuiteRun

    def _check_events(self, outcome: Outcome, sent: Any) -> None:
        action = outcome.action
        if outcome.guard is not None:
            if outcome.last.not_called:
                raise Failed(
                    explain(
                        f"{action} was not called: {outcome.guard} "
                        "(a hung handler is not run twice)",
                        R_TIME,
                        sent=sent,
                    )
                )
            rule = R_STABILIZE if outcome.past_timeout else R_ENDLESS if outcome.endless else R_TIME
            raise Failed(explain(outcome.guard, rule, sent=sent, outcome=outcome))
        for invocation in outcome.invocations:
            response = invocation.response or {}
            status = response.get("status")
            if status not in self.run.runner.protocol.statuses:
                raise Failed(
                    explain(
                        f"{action} returned status {status!r}"
                        + (f": {response.get('message')}" if response.get("message") else ""),
                        R_SHAPE,
                        sent=sent,
                        outcome=outcome,
                    )
                )
            if status == "IN_PROGRESS":
                self._check_in_progress(outcome, response, sent)
        response = outcome.response
        status = outcome.status
        if status in ("SUCCESS", "FAILED") and response.get("callbackDelaySeconds"):
            raise Failed(
                explain(
                    f"{action} returned {status} with callbackDelaySeconds "
                    f"{response['callbackDelaySeconds']}; only IN_PROGRESS asks to be called again",
                    R_SHAPE,
                    sent=sent,
                    outcome=outcome,
                )
            )
        if action in ("READ", "LIST") and (
            status == "IN_PROGRESS" or "must return synchronously" in str(response.get("message"))
        ):
            raise Failed(
                explain(f"{action} returned IN_PROGRESS", R_SYNC, sent=sent, outcome=outcome)
            )
        if status == "FAILED":
            code = response.get("errorCode")
            if code not in self.run.runner.protocol.error_codes:
                raise Failed(
                    explain(
                        f"{action} returned FAILED with errorCode {code!r}, "
                        "not a contract error code",
                        R_SHAPE,
                        sent=sent,
                        outcome=outcome,
                    )
                )
            if response.get("resourceModels"):
                raise Failed(
                    explain(
                        f"{action} returned FAILED with resourceModels",
                        R_SHAPE,
                        sent=sent,
                        outcome=outcome,
                    )
                )
            return
        # SUCCESS
        if response.get("errorCode"):
            raise Failed(
                explain(
                    f"{action} returned SUCCESS with errorCode {response['errorCode']}",
                    R_SHAPE,
                    sent=sent,
                    outcome=outcome,
                )
            )
        if action == "DELETE":
            if response.get("resourceModel"):
                raise Failed(
                    explain(
                        "DELETE returned SUCCESS with a model",
                        R_DELETE_NO_MODEL,
                        sent=sent,
                        outcome=outcome,
                    )
                )
            return
        if action == "LIST":
            models = response.get("resourceModels")
            if not isinstance(models, list):
                raise Failed(
                    explain(
                        "LIST returned SUCCESS without resourceModels "
                        "(an empty list when there are none)",
                        R_SUCCESS["LIST"],
                        sent=sent,
                        outcome=outcome,
                    )
                )
            for model in models:
                self._check_model(outcome, model, sent, f"a LIST model {as_json(model, 200)}")
            return
        model = response.get("resourceModel")
        if not isinstance(model, dict):
            raise Failed(
                explain(
                    f"{action} returned SUCCESS without a model",
                    R_IDENTIFIER,
                    sent=sent,
                    outcome=outcome,
                )
            )
        self._check_model(outcome, model, sent, f"the {action} model")

    def _check_in_progress(self, outcome: Outcome, response: dict[str, Any], sent: Any) -> None:
        action = outcome.action
        if response.get("errorCode") or response.get("resourceModels"):
            raise Failed(
                explain(
                    f"{action} returned IN_PROGRESS with an errorCode or resourceModels",
                    R_SHAPE,
                    sent=sent,
                    outcome=outcome,
                )
            )
        model = response.get("resourceModel")
        if action != "DELETE" and isinstance(model, dict):
            missing = _rules.missing_identifiers(self.info, model)
            if missing:
                raise Failed(
                    explain(
                        f"{action} returned IN_PROGRESS with a model without {', '.join(missing)}",
                        R_IDENTIFIER,
                        sent=sent,
                        outcome=outcome,
                    )
                )

    def _check_model(self, outcome: Outcome, model: Any, sent: Any, what: str) -> None:
        action = outcome.action
        if not isinstance(model, dict):
            raise Failed(explain(f"{what} is not an object", R_SHAPE, sent=sent, outcome=outcome))
        missing = _rules.missing_identifiers(self.info, model)
        if missing:
            raise Failed(
                explain(
                    f"{action} returned SUCCESS but {what} has no primaryIdentifier "
                    f"({', '.join(missing)})",
                    R_IDENTIFIER,
                    sent=sent,
                    outcome=outcome,
                )
            )
        write_only = _rules.write_only_returned(self.info, model)
        if write_only:
            raise Failed(
                explain(
                    f"{action} returned the writeOnly properties {', '.join(write_only)} in {what}",
                    R_WRITE_ONLY,
                    sent=sent,
                    outcome=outcome,
                )
            )
        errors = self.run.conformance.errors(model, partial=True)
        if errors:
            listed = "\n".join(f"    {where or '/'}: {why}" for where, why in errors[:10])
            raise Failed(
                explain(
                    f"{action} returned {what}, which does not match the schema:\n{listed}",
                    R_CONFORM,
                    sent=sent,
                    outcome=outcome,
                )
            )
