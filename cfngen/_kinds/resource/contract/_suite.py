"""`cfngen test`: the handler contract, checked in-process against moto.

The tests keep the official suite's names (`cfn test`), and add what it misses. Each test
starts from a fresh moto account and cleans up what it created. Rules about single responses
(identifiers, writeOnly, schema conformance, status shape, time limits, endless IN_PROGRESS,
delete returning no model, read/list never IN_PROGRESS) are checked on every handler call of
every test; the tests add the rules about sequences (create then read, delete then read...).
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from cfngen._contract._handlers import Handlers, Limits, Outcome, Request, Stub
from cfngen._contract._results import Status, SuiteResult, TestResult
from cfngen._contract._sandbox import Sandbox
from cfngen._contract._select import compile_expression
from cfngen._errors import CfngenError
from cfngen._generate import models_older_than_schema
from cfngen._kinds.resource._view import ResourceSchema
from cfngen._kinds.resource.contract import _rules
from cfngen._kinds.resource.contract._inputs import (
    InputProblem,
    InputSet,
    check_user_inputs,
    load_input_sets,
    update_request,
)
from cfngen._kinds.resource.contract._rules import Conformance, pointer, read_schema
from cfngen._project import Project

#: A LIST that pages on and on without repeating a token is stopped here.
MAX_LIST_PAGES = 200

ERROR_CODES = frozenset(
    {
        "NotUpdatable",
        "InvalidRequest",
        "AccessDenied",
        "InvalidCredentials",
        "AlreadyExists",
        "NotFound",
        "ResourceConflict",
        "Throttling",
        "ServiceLimitExceeded",
        "NotStabilized",
        "GeneralServiceException",
        "ServiceInternalError",
        "NetworkFailure",
        "InternalFailure",
        "InvalidTypeConfiguration",
        "HandlerInternalFailure",
    }
)

# The rules, worded once: every failure message quotes the one that broke.
R_SUCCESS = {
    "CREATE": "create must create the resource and return SUCCESS",
    "READ": "read must return SUCCESS with the model of an existing resource",
    "UPDATE": "update must change an existing resource and return SUCCESS",
    "DELETE": "delete must delete an existing resource and return SUCCESS",
    "LIST": "list must return SUCCESS with the primaryIdentifier of every resource",
}
R_IDENTIFIER = "every model a handler returns must include the primaryIdentifier"
R_WRITE_ONLY = "a handler must never return writeOnly properties"
R_CONFORM = "every model a handler returns must match the resource schema"
R_SAME = (
    "a SUCCESS model must hold every property of the request, unchanged "
    "(readOnly and writeOnly properties aside)"
)
R_ALREADY_EXISTS = "create must fail with AlreadyExists when a resource with that identifier exists"
R_READ_NOT_FOUND = "read must fail with NotFound when the resource does not exist"
R_UPDATE_NOT_FOUND = (
    "update must fail with NotFound when the resource does not exist, and never create it"
)
R_DELETE_NOT_FOUND = "delete must fail with NotFound when the resource does not exist"
R_DELETE_NO_MODEL = "a delete that succeeds must not return a model"
R_LIST_HAS = "list must return the primaryIdentifier of every existing resource"
R_LIST_OMITS = "list must not return a deleted resource"
R_NOT_UPDATABLE = "update must fail with NotUpdatable when a createOnly property changes"
R_INVALID = (
    "a handler must reject a model that does not match the schema: FAILED with an error code "
    "such as InvalidRequest, not an exception"
)
R_SYNC = "read and list must answer at once: never IN_PROGRESS"
R_KEEP_ID = "update must keep the primaryIdentifier"
R_RECREATE = "after a delete, create with the same identifier must succeed again"
R_TAGS = (
    "a taggable resource must apply the tags of its create input: the models create and read "
    "return hold them"
)
R_TAG_UPDATE = (
    "tags are updatable: update must apply the update input's tags (added, changed and removed "
    "ones) and return SUCCESS; the models update and read return hold them"
)
R_PAGES = "list must end its pages: a nextToken must never repeat"
R_TIME = "create, update and delete must return within 60 s, read and list within 30 s"
R_ENDLESS = "IN_PROGRESS must end: a handler must reach SUCCESS or FAILED"
R_SHAPE = (
    "a progress event has status SUCCESS, FAILED or IN_PROGRESS and the fields that go with it"
)


class _Failed(Exception):
    pass


class _Skipped(Exception):
    pass


# --------------------------------------------------------------------------- messages


def _json(value: Any, limit: int = 1200) -> str:
    if value is _rules.MISSING:
        return "(missing)"
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 15] + f"... ({len(text)} chars)"


def _shown_response(response: dict[str, Any]) -> dict[str, Any]:
    keys = ("status", "errorCode", "message", "resourceModel", "resourceModels", "nextToken")
    return {key: response[key] for key in keys if key in response and response[key] != ""}


def _table(rows: list[tuple[str, Any, Any]], left: str = "input", right: str = "output") -> str:
    cells = [("property", left, right)] + [
        (p or "/", _json(a, 60), _json(b, 60)) for p, a, b in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(2)]
    return "\n".join(
        f"    {row[0].ljust(widths[0])}  {row[1].ljust(widths[1])}  {row[2]}" for row in cells
    )


def _explain(
    headline: str,
    rule: str,
    *,
    sent: Any = None,
    outcome: Outcome | None = None,
    table: list[tuple[str, Any, Any]] | None = None,
) -> str:
    lines = [headline, f"  rule: {rule}"]
    if outcome is not None and outcome.crash is not None:
        crash = outcome.crash
        lines.append(f"  the {outcome.action} handler raised {crash.headline}")
        lines.extend(f"  {frame}" for frame in crash.frames)
    if table:
        lines.append(_table(table))
    if sent is not None:
        lines.append(f"  input:  {_json(sent)}")
    if outcome is not None and outcome.last.response is not None:
        lines.append(f"  output: {_json(_shown_response(outcome.response))}")
    if outcome is not None:
        output = [line for invocation in outcome.invocations for line in invocation.output]
        if output:
            lines.append("  handler output:")
            if len(output) > 20:
                lines.append(f"    | ... ({len(output) - 20} earlier lines)")
            lines.extend(f"    | {line}" for line in output[-20:])
    return "\n".join(lines)


def _status_text(outcome: Outcome) -> str:
    if outcome.status == "FAILED":
        message = outcome.response.get("message")
        code = outcome.error_code or "no errorCode"
        return f"FAILED ({code}: {message})" if message else f"FAILED ({code})"
    return str(outcome.status)


# --------------------------------------------------------------------------- one test


class _Case:
    """The handler calls of one test, with every per-response rule checked on the way."""

    def __init__(self, run: _Run, inputs: InputSet) -> None:
        self.run = run
        self.info = run.info
        self.inputs = inputs
        self._to_delete: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ inputs

    @property
    def create_input(self) -> dict[str, Any]:
        return copy.deepcopy(self.inputs.create)

    def update_input(self, current: dict[str, Any]) -> dict[str, Any]:
        if self.inputs.update is None:
            raise _Skipped(self.inputs.missing("update"))
        try:
            return update_request(self.info, self.inputs, current)
        except InputProblem as exc:
            raise _Failed(str(exc)) from None

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
        outcome = self.run.handlers.run(
            action,
            Request(
                desired=copy.deepcopy(desired),
                previous=copy.deepcopy(previous),
                next_token=next_token,
                desired_tags=_rules.tags_of(self.info, desired) if tags else None,
                previous_tags=_rules.tags_of(self.info, previous) if tags else None,
            ),
            limits=self.run.limits,
            max_reinvoke=self.run.max_reinvoke,
            max_delay=0.0,
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

    def forget(self, model: dict[str, Any]) -> None:
        self._to_delete = [
            m for m in self._to_delete if not _rules.same_identifier(self.info, m, model)
        ]

    def clean_up(self) -> None:
        """Delete what the test created and did not delete; results are not judged."""
        if "delete" not in self.info.handler_names or "DELETE" in self.run.handlers.stubs:
            return
        for model in self._to_delete:
            self.run.handlers.run(
                "DELETE",
                Request(desired=copy.deepcopy(model)),
                limits=self.run.limits,
                max_reinvoke=self.run.max_reinvoke,
                max_delay=0.0,
            )
        self._to_delete = []

    def _check_events(self, outcome: Outcome, sent: Any) -> None:
        action = outcome.action
        if outcome.guard is not None:
            if outcome.last.not_called:
                raise _Failed(
                    _explain(
                        f"{action} was not called: {outcome.guard} "
                        "(a hung handler is not run twice)",
                        R_TIME,
                        sent=sent,
                    )
                )
            rule = R_ENDLESS if "IN_PROGRESS" in outcome.guard else R_TIME
            raise _Failed(_explain(outcome.guard, rule, sent=sent, outcome=outcome))
        for invocation in outcome.invocations:
            response = invocation.response or {}
            status = response.get("status")
            if status not in ("SUCCESS", "FAILED", "IN_PROGRESS"):
                raise _Failed(
                    _explain(
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
            raise _Failed(
                _explain(
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
            raise _Failed(
                _explain(f"{action} returned IN_PROGRESS", R_SYNC, sent=sent, outcome=outcome)
            )
        if status == "FAILED":
            code = response.get("errorCode")
            if code not in ERROR_CODES:
                raise _Failed(
                    _explain(
                        f"{action} returned FAILED with errorCode {code!r}, "
                        "not a contract error code",
                        R_SHAPE,
                        sent=sent,
                        outcome=outcome,
                    )
                )
            if response.get("resourceModels"):
                raise _Failed(
                    _explain(
                        f"{action} returned FAILED with resourceModels",
                        R_SHAPE,
                        sent=sent,
                        outcome=outcome,
                    )
                )
            return
        # SUCCESS
        if response.get("errorCode"):
            raise _Failed(
                _explain(
                    f"{action} returned SUCCESS with errorCode {response['errorCode']}",
                    R_SHAPE,
                    sent=sent,
                    outcome=outcome,
                )
            )
        if action == "DELETE":
            if response.get("resourceModel"):
                raise _Failed(
                    _explain(
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
                raise _Failed(
                    _explain(
                        "LIST returned SUCCESS without resourceModels "
                        "(an empty list when there are none)",
                        R_SUCCESS["LIST"],
                        sent=sent,
                        outcome=outcome,
                    )
                )
            for model in models:
                self._check_model(outcome, model, sent, f"a LIST model {_json(model, 200)}")
            return
        model = response.get("resourceModel")
        if not isinstance(model, dict):
            raise _Failed(
                _explain(
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
            raise _Failed(
                _explain(
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
                raise _Failed(
                    _explain(
                        f"{action} returned IN_PROGRESS with a model without {', '.join(missing)}",
                        R_IDENTIFIER,
                        sent=sent,
                        outcome=outcome,
                    )
                )

    def _check_model(self, outcome: Outcome, model: Any, sent: Any, what: str) -> None:
        action = outcome.action
        if not isinstance(model, dict):
            raise _Failed(_explain(f"{what} is not an object", R_SHAPE, sent=sent, outcome=outcome))
        missing = _rules.missing_identifiers(self.info, model)
        if missing:
            raise _Failed(
                _explain(
                    f"{action} returned SUCCESS but {what} has no primaryIdentifier "
                    f"({', '.join(missing)})",
                    R_IDENTIFIER,
                    sent=sent,
                    outcome=outcome,
                )
            )
        write_only = _rules.write_only_returned(self.info, model)
        if write_only:
            raise _Failed(
                _explain(
                    f"{action} returned the writeOnly properties {', '.join(write_only)} in {what}",
                    R_WRITE_ONLY,
                    sent=sent,
                    outcome=outcome,
                )
            )
        errors = self.run.conformance.errors(model, partial=True)
        if errors:
            listed = "\n".join(f"    {where or '/'}: {why}" for where, why in errors[:10])
            raise _Failed(
                _explain(
                    f"{action} returned {what}, which does not match the schema:\n{listed}",
                    R_CONFORM,
                    sent=sent,
                    outcome=outcome,
                )
            )

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
            raise _Failed(
                _explain(
                    f"{action} returned {_status_text(outcome)}; expected SUCCESS",
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
                raise _Failed(
                    _explain(
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
        raise _Failed(
            _explain(
                headline or f"{action} returned {_status_text(outcome)}; expected FAILED ({code})",
                rule,
                sent=desired,
                outcome=outcome,
            )
        )

    def same(
        self, action: str, expected: dict[str, Any], outcome: Outcome, *, what: str = "input"
    ) -> None:
        returned = outcome.response.get("resourceModel")
        rows = _rules.differences(self.info, expected, returned)
        if rows:
            raise _Failed(
                _explain(
                    f"the model {action} returned differs from its {what}",
                    R_SAME,
                    sent=expected,
                    outcome=outcome,
                    table=rows,
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
                raise _Failed(
                    _explain(
                        f"LIST (page {page}) returned {_status_text(outcome)}; expected SUCCESS",
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
                raise _Failed(
                    _explain(
                        f"LIST returned a nextToken that is not a string: {next_token!r}",
                        R_SHAPE,
                        outcome=outcome,
                    )
                )
            if next_token in seen:
                raise _Failed(
                    _explain(
                        f"LIST returned nextToken {next_token!r} again on page {page} (first on "
                        f"page {seen[next_token]}): paging would never end",
                        R_PAGES,
                        sent=model,
                        outcome=outcome,
                    )
                )
            if page >= MAX_LIST_PAGES:
                raise _Failed(
                    _explain(
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


# --------------------------------------------------------------------------- the tests


def _create_create(case: _Case) -> None:
    if not case.info.writable_identifiers:
        raise _Skipped(_NO_WRITABLE_ID)
    request = case.create_input
    case.create(request)
    case.fail_with(
        "CREATE",
        request,
        code="AlreadyExists",
        rule=R_ALREADY_EXISTS,
        headline=(
            "CREATE succeeded twice with the same identifier; "
            "expected FAILED (AlreadyExists) the second time"
        ),
    )


def _create_read(case: _Case) -> None:
    request = case.create_input
    created = case.create(request)
    read = case.read(created, request)
    if not _rules.same_identifier(case.info, created, read):
        raise _Failed(f"READ returned another primaryIdentifier than CREATE: {_json(read)}")


def _create_list(case: _Case) -> None:
    created = case.create(case.create_input)
    found, models = case.in_list(created)
    if not found:
        raise _Failed(
            _explain(
                f"LIST did not return the created resource {_ids(case, created)}",
                R_LIST_HAS,
                sent=created,
            )
            + f"\n  listed: {_json(models)}"
        )
    case.succeed("READ", created)


def _create_delete(case: _Case) -> None:
    created = case.create(case.create_input)
    case.succeed("DELETE", created)


def _create_taggable(case: _Case) -> None:
    _needs_tagging(case, updatable=False)
    if case.info.tag_property not in case.inputs.create:
        raise _Failed(
            f"{case.inputs.source('create')} has no {case.info.tag_property}: the resource is "
            "taggable, so the create input must hold tags for the tests to cover them"
        )
    request = case.create_input
    outcome = case.succeed("CREATE", request, tags=True)
    created = outcome.response["resourceModel"]
    _tags_applied(case, "CREATE", request, outcome, R_TAGS)
    _tags_read_back(case, created, request, R_TAGS)


def _create_invalid(case: _Case) -> None:
    invalid = _invalid_input(case)
    outcome = case.call("CREATE", invalid, rejecting=True)
    if outcome.crash is not None:
        raise _Failed(
            _explain(
                f"CREATE crashed on {case.inputs.source('invalid')} instead of rejecting it",
                R_INVALID,
                sent=invalid,
                outcome=outcome,
            )
        )
    if outcome.status == "SUCCESS":
        raise _Failed(
            _explain(
                f"CREATE accepted {case.inputs.source('invalid')}, "
                "a model that does not match the schema",
                R_INVALID,
                sent=invalid,
                outcome=outcome,
            )
        )


def _update_read(case: _Case) -> None:
    _created, request, updated = _updated(case)
    case.read(updated, request)


def _update_list(case: _Case) -> None:
    _created, _request, updated = _updated(case)
    found, models = case.in_list(updated)
    if not found:
        raise _Failed(
            _explain(
                f"LIST did not return the updated resource {_ids(case, updated)}",
                R_LIST_HAS,
                sent=updated,
            )
            + f"\n  listed: {_json(models)}"
        )


def _update_without_create(case: _Case) -> None:
    request = case.create_input
    update = case.update_input(request)
    case.fail_with(
        "UPDATE",
        update,
        request,
        code="NotFound",
        rule=R_UPDATE_NOT_FOUND,
    )


def _update_tag_updatable(case: _Case) -> None:
    _needs_tagging(case, updatable=True)
    if case.inputs.update is None:
        raise _Skipped(case.inputs.missing("update"))
    if case.info.tag_property not in case.inputs.update:
        raise _Failed(
            f"{case.inputs.source('update')} has no {case.info.tag_property}: tags are "
            "updatable, so the update input must hold tags for the tests to cover them"
        )
    created = case.succeed("CREATE", case.create_input, tags=True).response["resourceModel"]
    request = _with_changed_tags(case, case.update_input(created))
    outcome = case.succeed("UPDATE", request, created, rule=R_TAG_UPDATE, tags=True)
    updated = outcome.response["resourceModel"]
    _tags_applied(case, "UPDATE", request, outcome, R_TAG_UPDATE)
    _tags_read_back(case, updated, request, R_TAG_UPDATE)


def _with_changed_tags(case: _Case, update: dict[str, Any]) -> dict[str, Any]:
    """`update` with one more tag when its tags are the create input's (inputs generated from
    the schema change one property, rarely the tags): otherwise nothing tests updatability."""
    tag = case.info.tag_property
    tags = update.get(tag)
    if _rules.tags_of(case.info, update) != _rules.tags_of(case.info, case.inputs.create):
        return update
    if isinstance(tags, dict):
        changed: Any = {**tags, "cfngen-contract": "updated"}
    elif isinstance(tags, list):
        changed = [*tags, {"Key": "cfngen-contract", "Value": "updated"}]
    else:
        return update
    candidate = {**update, tag: changed}
    return update if case.run.conformance.errors(candidate, partial=True) else candidate


def _tags_applied(
    case: _Case, action: str, request: dict[str, Any], outcome: Outcome, rule: str
) -> None:
    """The model `action` returned holds the request's tags (unless they are writeOnly)."""
    rows = _tag_rows(case, request, outcome.response["resourceModel"])
    if rows:
        raise _Failed(
            _explain(
                f"the model {action} returned does not hold the tags it was given",
                rule,
                sent=request,
                outcome=outcome,
                table=rows,
            )
        )


def _tag_rows(case: _Case, request: dict[str, Any], model: Any) -> list[tuple[str, Any, Any]]:
    """Where the tags of `model` are not the request's: a tag map must not keep extra keys
    either (a tag the update removed)."""
    tag = case.info.tag_property
    rows = _rules.differences(case.info, {tag: request[tag]}, model)
    wanted, got = request[tag], model.get(tag) if isinstance(model, dict) else None
    if not rows and isinstance(wanted, dict) and isinstance(got, dict):
        rows = [
            (pointer((tag, key)), _rules.MISSING, value)
            for key, value in got.items()
            if key not in wanted and (tag,) not in case.info.write_only
        ]
    return rows


def _tags_read_back(case: _Case, model: dict[str, Any], request: dict[str, Any], rule: str) -> None:
    """READ (when declared and implemented) returns the request's tags: they were applied."""
    if "read" not in case.info.handler_names or "READ" in case.run.handlers.stubs:
        return
    outcome = case.succeed("READ", model)
    rows = _tag_rows(case, request, outcome.response["resourceModel"])
    if rows:
        raise _Failed(
            _explain(
                "READ after the tags were applied returned other tags",
                rule,
                sent=request,
                outcome=outcome,
                table=rows,
            )
        )


def _update_not_updatable(case: _Case) -> None:
    if not case.info.create_only:
        raise _Skipped("the schema has no createOnlyProperties")
    if case.inputs.update is None:
        raise _Skipped(case.inputs.missing("update"))
    created = case.create(case.create_input)
    update = case.update_input(created)
    change = _change_create_only(case, update)
    if change is None:
        raise _Skipped(
            "cannot make a valid new value for any createOnly property present in the update "
            "input (" + ", ".join(pointer(p) for p in case.info.create_only) + ")"
        )
    path, old, new = change
    case.fail_with(
        "UPDATE",
        update,
        created,
        code="NotUpdatable",
        rule=R_NOT_UPDATABLE,
        headline=(
            f"UPDATE changing createOnly {pointer(path)} from {_json(old, 80)} to "
            f"{_json(new, 80)} was not refused with NotUpdatable"
        ),
    )


def _delete_read(case: _Case) -> None:
    deleted = _deleted(case)
    case.fail_with("READ", deleted, code="NotFound", rule=R_READ_NOT_FOUND)


def _delete_list(case: _Case) -> None:
    deleted = _deleted(case)
    found, models = case.in_list(deleted)
    if found:
        raise _Failed(
            _explain(
                f"LIST still returns the deleted resource {_ids(case, deleted)}",
                R_LIST_OMITS,
                sent=deleted,
            )
            + f"\n  listed: {_json(models)}"
        )


def _delete_update(case: _Case) -> None:
    deleted = _deleted(case)
    update = case.update_input(deleted)
    case.fail_with("UPDATE", update, deleted, code="NotFound", rule=R_UPDATE_NOT_FOUND)


def _delete_delete(case: _Case) -> None:
    deleted = _deleted(case)
    case.fail_with("DELETE", deleted, code="NotFound", rule=R_DELETE_NOT_FOUND)


def _delete_create(case: _Case) -> None:
    if not case.info.writable_identifiers:
        raise _Skipped(_NO_WRITABLE_ID)
    request = case.create_input
    _deleted(case, request)
    outcome = case.succeed("CREATE", request, rule=R_RECREATE)
    case.same("CREATE", request, outcome)


# ------------------------------------------------------------------ shared steps

_NO_WRITABLE_ID = (
    "the user sets no identifier (no createOnly primaryIdentifier, no additionalIdentifier "
    "without readOnly parts): creating the same model twice makes two resources"
)


def _ids(case: _Case, model: dict[str, Any]) -> str:
    return _json(_rules.identifiers_of(case.info, model))


def _updated(case: _Case) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    if case.inputs.update is None:
        raise _Skipped(case.inputs.missing("update"))
    created = case.create(case.create_input)
    request = case.update_input(created)
    outcome = case.succeed("UPDATE", request, created)
    case.same("UPDATE", request, outcome)
    updated: dict[str, Any] = outcome.response["resourceModel"]
    if not _rules.same_identifier(case.info, created, updated):
        raise _Failed(
            _explain(
                "UPDATE returned another primaryIdentifier than CREATE",
                R_KEEP_ID,
                sent=request,
                outcome=outcome,
                table=[
                    (pointer(p), _rules.get(created, p), _rules.get(updated, p))
                    for p in case.info.primary
                ],
            )
        )
    return created, request, updated


def _deleted(case: _Case, request: dict[str, Any] | None = None) -> dict[str, Any]:
    created = case.create(request if request is not None else case.create_input)
    case.succeed("DELETE", created)
    return created


def _needs_tagging(case: _Case, *, updatable: bool) -> None:
    if not case.info.tagging:
        raise _Skipped("the schema has no tagging metadata")
    if not case.info.taggable:
        raise _Skipped("the resource is not taggable")
    if updatable and not case.info.tag_updatable:
        raise _Skipped("the resource's tags are not updatable")


def _invalid_input(case: _Case) -> dict[str, Any]:
    invalid = case.inputs.invalid
    if invalid is None:
        raise _Skipped(case.inputs.missing("invalid"))
    conformance = case.run.conformance
    if not conformance.errors(invalid, partial=False):
        raise _Skipped(f"{case.inputs.source('invalid')} matches the schema: nothing to reject")
    return copy.deepcopy(invalid)


def _change_create_only(case: _Case, update: dict[str, Any]) -> tuple[_rules.Path, Any, Any] | None:
    """Change one createOnly property of `update` to another valid value, in place.

    A property outside the primaryIdentifier first: then the handler finds the resource and
    has to notice the change itself.
    """
    paths = sorted(case.info.create_only, key=lambda p: p in case.info.primary)
    for path in paths:
        if "*" in path:
            continue
        old = _rules.get(update, path)
        if old is _rules.MISSING:
            continue
        node = case.info.subschema(path) or {}
        for new in _candidates(old, node):
            changed = copy.deepcopy(update)
            if not _rules.set_value(changed, path, new):
                break
            if not _valid_value(new, node) or case.run.conformance.errors(changed, partial=True):
                continue
            update.clear()
            update.update(changed)
            return path, old, new
    return None


def _candidates(old: Any, node: dict[str, Any]) -> list[Any]:
    enum = node.get("enum")
    if isinstance(enum, list):
        return [value for value in enum if value != old]
    if isinstance(old, bool):
        return [not old]
    if isinstance(old, (int, float)):
        return [old + 1, old - 1]
    if isinstance(old, str):
        out = []
        if old:
            for char in "bcdefgh1234":
                if old[-1] != char:
                    out.append(old[:-1] + char)
                    break
        return [*out, old + "2", old + "x", old[:-1] if len(old) > 1 else "x"]
    return []


def _valid_value(value: Any, node: dict[str, Any]) -> bool:
    from cfngen._patterns import PatternError, search

    if isinstance(value, str):
        if len(value) < node.get("minLength", 0) or len(value) > node.get("maxLength", 1 << 30):
            return False
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            try:
                return search(pattern, value)
            except PatternError:
                return True
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in node and value < node["minimum"]:
            return False
        if "maximum" in node and value > node["maximum"]:
            return False
    return True


@dataclass(frozen=True)
class _Test:
    name: str
    #: The handlers the test calls; it is skipped when the schema does not declare them all.
    needs: tuple[str, ...]
    body: Callable[[_Case], None]


TESTS: tuple[_Test, ...] = (
    _Test("contract_create_create", ("create",), _create_create),
    _Test("contract_create_read", ("create", "read"), _create_read),
    _Test("contract_create_list", ("create", "list", "read"), _create_list),
    _Test("contract_create_delete", ("create", "delete"), _create_delete),
    _Test("contract_create_taggable", ("create",), _create_taggable),
    _Test("contract_create_invalid", ("create",), _create_invalid),
    _Test("contract_update_read", ("create", "update", "read"), _update_read),
    _Test("contract_update_list", ("create", "update", "list"), _update_list),
    _Test("contract_update_without_create", ("update",), _update_without_create),
    _Test("contract_update_tag_updatable", ("create", "update"), _update_tag_updatable),
    _Test("contract_update_not_updatable", ("create", "update"), _update_not_updatable),
    _Test("contract_delete_create", ("create", "delete"), _delete_create),
    _Test("contract_delete_read", ("create", "delete", "read"), _delete_read),
    _Test("contract_delete_list", ("create", "delete", "list"), _delete_list),
    _Test("contract_delete_update", ("create", "delete", "update"), _delete_update),
    _Test("contract_delete_delete", ("create", "delete"), _delete_delete),
)

TEST_NAMES = tuple(test.name for test in TESTS)


# --------------------------------------------------------------------------- the run


@dataclass
class _Run:
    info: ResourceSchema
    handlers: Handlers
    limits: Limits
    max_reinvoke: int
    conformance: Conformance


def run_tests(
    project: Project,
    *,
    keyword: str | None = None,
    enforce_timeout: float | None = None,
    max_reinvoke: int,
    region: str | None = None,
    on_result: Callable[[TestResult], None] | None = None,
    exports: Mapping[str, Any] | None = None,
) -> SuiteResult:
    """Run the contract tests on a resource type project (`exports`: the values of the
    CloudFormation exports inputs name as `{{Name}}`).

    Raises CfngenError when they cannot run at all (no handlers, bad inputs).
    """
    started = time.perf_counter()
    info = read_schema(project)
    select = compile_expression(keyword or "")
    input_sets, notes = load_input_sets(project.root, info, exports)
    for inputs in input_sets:
        check_user_inputs(info, inputs)
    stale = models_older_than_schema(project)
    if stale is not None:
        notes.insert(0, stale)
    conformance = Conformance(info.schema)
    result = SuiteResult(notes=notes)

    labelled = len(input_sets) > 1
    plan = [
        (test, inputs, f"{test.name}[{inputs.label}]" if labelled else test.name)
        for inputs in input_sets
        for test in TESTS
        if select(test.name) or select(f"{test.name}[{inputs.label}]")
    ]
    if not plan:
        raise CfngenError(
            f"-k {keyword!r} selects none of the tests",
            "test names are: " + ", ".join(TEST_NAMES),
        )

    with Sandbox(project.src_dir.resolve(), region=region) as sandbox:
        handlers = Handlers(project, sandbox)
        run = _Run(info, handlers, Limits.enforce(enforce_timeout), max_reinvoke, conformance)
        for inputs in input_sets:
            _note_bad_inputs(run, inputs, result.notes)
        if handlers.stubs:
            result.notes.append(_stub_note(handlers.stubs))
        for test, inputs, name in plan:
            test_result = _run_one(run, sandbox, test, inputs, name)
            result.tests.append(test_result)
            if on_result is not None:
                on_result(test_result)
    result.seconds = time.perf_counter() - started
    return result


def _run_one(run: _Run, sandbox: Sandbox, test: _Test, inputs: InputSet, name: str) -> TestResult:
    missing = [action for action in test.needs if action not in run.info.handler_names]
    if missing:
        return TestResult(
            name,
            "skipped",
            f"the schema declares no {' or '.join(missing)} handler",
            0.0,
        )
    stubs = [run.handlers.stubs[a.upper()] for a in test.needs if a.upper() in run.handlers.stubs]
    if stubs:
        # A stub's results only have the contract's shapes: judging them would judge the
        # template, and pass tests nobody has earned. Not called at all, so nothing can crash.
        return TestResult(name, "failed", _not_implemented(stubs), 0.0)
    started = time.perf_counter()
    sandbox.fresh_aws()
    run.handlers.reload()
    case = _Case(run, inputs)
    outcome: Status = "passed"
    message: str | None = None
    try:
        test.body(case)
    except _Failed as exc:
        outcome, message = "failed", str(exc)
    except _Skipped as exc:
        outcome, message = "skipped", str(exc)
    finally:
        case.clean_up()
    return TestResult(name, outcome, message, time.perf_counter() - started)


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


def _note_bad_inputs(run: _Run, inputs: InputSet, notes: list[str]) -> None:
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
