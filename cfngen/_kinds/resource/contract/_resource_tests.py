"""The resource contract tests: the official suite's (`cfn test`) under their names, plus the
ones it misses (NotUpdatable, invalid inputs); each a function of a `Case`. The steps they
share: _steps.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cfngen._contract._loop import Outcome
from cfngen._contract._results import Failed, Skipped
from cfngen._kinds.resource._view import ResourceSchema
from cfngen._kinds.resource.contract import _rules
from cfngen._kinds.resource.contract._case import Case
from cfngen._kinds.resource.contract._messages import (
    R_ALREADY_EXISTS,
    R_DELETE_NOT_FOUND,
    R_INVALID,
    R_LIST_HAS,
    R_LIST_OMITS,
    R_NOT_UPDATABLE,
    R_READ_NOT_FOUND,
    R_RECREATE,
    R_STABILIZE,
    R_TAG_UPDATE,
    R_TAGS,
    R_UPDATE_NOT_FOUND,
    as_json,
    explain,
)
from cfngen._kinds.resource.contract._rules import pointer
from cfngen._kinds.resource.contract._steps import (
    _NO_WRITABLE_ID,
    _change_create_only,
    _deleted,
    _ids,
    _invalid_input,
    _needs_tagging,
    _updated,
)
from cfngen._kinds.resource.contract._suite_run import SuiteRun

# --------------------------------------------------------------------------- the tests


def _create_create(case: Case) -> None:
    if not case.info.writable_identifiers:
        raise Skipped(_NO_WRITABLE_ID)
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


def _create_read(case: Case) -> None:
    request = case.create_input
    created = case.create(request)
    read = case.read(created, request)
    if not _rules.same_identifier(case.info, created, read):
        raise Failed(f"READ returned another primaryIdentifier than CREATE: {as_json(read)}")


def _create_list(case: Case) -> None:
    created = case.create(case.create_input)
    found, models = case.in_list(created)
    if not found:
        raise Failed(
            explain(
                f"LIST did not return the created resource {_ids(case, created)}",
                R_LIST_HAS,
                sent=created,
            )
            + f"\n  listed: {as_json(models)}"
        )
    case.succeed("READ", created)


def _create_delete(case: Case) -> None:
    created = case.create(case.create_input)
    case.succeed("DELETE", created)


def _create_stabilizes_within_timeout(case: Case) -> None:
    # The loop stops a create still IN_PROGRESS past timeoutInMinutes (in simulated time);
    # this names the rule in a test of its own, so a slow stabilisation is seen at once.
    case.succeed("CREATE", case.create_input, rule=R_STABILIZE)


def _create_taggable(case: Case) -> None:
    _needs_tagging(case, updatable=False)
    if case.info.tag_property not in case.inputs.create:
        raise Failed(
            f"{case.inputs.source('create')} has no {case.info.tag_property}: the resource is "
            "taggable, so the create input must hold tags for the tests to cover them"
        )
    request = case.create_input
    outcome = case.succeed("CREATE", request, tags=True)
    created = outcome.response["resourceModel"]
    _tags_applied(case, "CREATE", request, outcome, R_TAGS)
    _tags_read_back(case, created, request, R_TAGS)


def _create_invalid(case: Case) -> None:
    invalid = _invalid_input(case)
    outcome = case.call("CREATE", invalid, rejecting=True)
    if outcome.crash is not None:
        raise Failed(
            explain(
                f"CREATE crashed on {case.inputs.source('invalid')} instead of rejecting it",
                R_INVALID,
                sent=invalid,
                outcome=outcome,
            )
        )
    if outcome.status == "SUCCESS":
        raise Failed(
            explain(
                f"CREATE accepted {case.inputs.source('invalid')}, "
                "a model that does not match the schema",
                R_INVALID,
                sent=invalid,
                outcome=outcome,
            )
        )


def _update_read(case: Case) -> None:
    _created, request, updated = _updated(case)
    case.read(updated, request)


def _update_list(case: Case) -> None:
    _created, _request, updated = _updated(case)
    found, models = case.in_list(updated)
    if not found:
        raise Failed(
            explain(
                f"LIST did not return the updated resource {_ids(case, updated)}",
                R_LIST_HAS,
                sent=updated,
            )
            + f"\n  listed: {as_json(models)}"
        )


def _update_without_create(case: Case) -> None:
    request = case.create_input
    update = case.update_input(request)
    case.fail_with(
        "UPDATE",
        update,
        request,
        code="NotFound",
        rule=R_UPDATE_NOT_FOUND,
    )


def _update_tag_updatable(case: Case) -> None:
    _needs_tagging(case, updatable=True)
    if case.inputs.update is None:
        raise Skipped(case.inputs.missing("update"))
    if case.info.tag_property not in case.inputs.update:
        raise Failed(
            f"{case.inputs.source('update')} has no {case.info.tag_property}: tags are "
            "updatable, so the update input must hold tags for the tests to cover them"
        )
    created = case.succeed("CREATE", case.create_input, tags=True).response["resourceModel"]
    request = _with_changed_tags(case, case.update_input(created))
    outcome = case.succeed("UPDATE", request, created, rule=R_TAG_UPDATE, tags=True)
    updated = outcome.response["resourceModel"]
    _tags_applied(case, "UPDATE", request, outcome, R_TAG_UPDATE)
    _tags_read_back(case, updated, request, R_TAG_UPDATE)


def _with_changed_tags(case: Case, update: dict[str, Any]) -> dict[str, Any]:
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
    case: Case, action: str, request: dict[str, Any], outcome: Outcome, rule: str
) -> None:
    """The model `action` returned holds the request's tags (unless they are writeOnly)."""
    rows = _tag_rows(case, request, outcome.response["resourceModel"])
    if rows:
        raise Failed(
            explain(
                f"the model {action} returned does not hold the tags it was given",
                rule,
                sent=request,
                outcome=outcome,
                table=rows,
            )
        )


def _tag_rows(case: Case, request: dict[str, Any], model: Any) -> list[tuple[str, Any, Any]]:
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


def _tags_read_back(case: Case, model: dict[str, Any], request: dict[str, Any], rule: str) -> None:
    """READ (when declared and implemented) returns the request's tags: they were applied."""
    if "read" not in case.info.handler_names or "READ" in case.run.runner.stubs:
        return
    outcome = case.succeed("READ", model)
    rows = _tag_rows(case, request, outcome.response["resourceModel"])
    if rows:
        raise Failed(
            explain(
                "READ after the tags were applied returned other tags",
                rule,
                sent=request,
                outcome=outcome,
                table=rows,
            )
        )


def _update_not_updatable(case: Case) -> None:
    if not case.info.create_only:
        raise Skipped("the schema has no createOnlyProperties")
    if case.inputs.update is None:
        raise Skipped(case.inputs.missing("update"))
    created = case.create(case.create_input)
    update = case.update_input(created)
    change = _change_create_only(case, update)
    if change is None:
        raise Skipped(
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
            f"UPDATE changing createOnly {pointer(path)} from {as_json(old, 80)} to "
            f"{as_json(new, 80)} was not refused with NotUpdatable"
        ),
    )


def _delete_read(case: Case) -> None:
    deleted = _deleted(case)
    case.fail_with("READ", deleted, code="NotFound", rule=R_READ_NOT_FOUND)


def _delete_list(case: Case) -> None:
    deleted = _deleted(case)
    found, models = case.in_list(deleted)
    if found:
        raise Failed(
            explain(
                f"LIST still returns the deleted resource {_ids(case, deleted)}",
                R_LIST_OMITS,
                sent=deleted,
            )
            + f"\n  listed: {as_json(models)}"
        )


def _delete_update(case: Case) -> None:
    deleted = _deleted(case)
    update = case.update_input(deleted)
    case.fail_with("UPDATE", update, deleted, code="NotFound", rule=R_UPDATE_NOT_FOUND)


def _delete_delete(case: Case) -> None:
    deleted = _deleted(case)
    case.fail_with("DELETE", deleted, code="NotFound", rule=R_DELETE_NOT_FOUND)


def _delete_create(case: Case) -> None:
    if not case.info.writable_identifiers:
        raise Skipped(_NO_WRITABLE_ID)
    request = case.create_input
    _deleted(case, request)
    outcome = case.succeed("CREATE", request, rule=R_RECREATE)
    case.same("CREATE", request, outcome)


def _declares_configuration(info: ResourceSchema) -> bool:
    return isinstance(info.schema.get("typeConfiguration"), dict)


def _configuration_optional(run: SuiteRun) -> str | None:
    configuration = run.configuration
    if configuration.required:
        return (
            f"typeConfiguration requires {', '.join(configuration.required)}: an account sets "
            "it before the type can be used"
        )
    return None


def _missing_type_configuration(case: Case) -> None:
    """An account that never called SetTypeConfiguration sends no typeConfiguration: the
    handlers must work without one (no AttributeError on None) when none is required."""
    case.type_configuration = None
    request = case.create_input
    created = case.create(request)
    if "read" in case.info.handler_names:
        case.read(created, request)


@dataclass(frozen=True)
class ResourceTest:
    name: str
    #: The handlers the test calls; it is skipped when the schema does not declare them all.
    needs: tuple[str, ...]
    body: Callable[[Case], None]
    #: Why the test does not apply to this run (skipped without a call), or None.
    skip: Callable[[SuiteRun], str | None] | None = None
    #: Whether a type has the test at all (None: every type has it).
    applies: Callable[[ResourceSchema], bool] | None = None


TESTS: tuple[ResourceTest, ...] = (
    ResourceTest("contract_create_create", ("create",), _create_create),
    ResourceTest("contract_create_read", ("create", "read"), _create_read),
    ResourceTest("contract_create_list", ("create", "list", "read"), _create_list),
    ResourceTest("contract_create_delete", ("create", "delete"), _create_delete),
    ResourceTest(
        "contract_create_stabilizes_within_timeout", ("create",), _create_stabilizes_within_timeout
    ),
    ResourceTest("contract_create_taggable", ("create",), _create_taggable),
    ResourceTest("contract_create_invalid", ("create",), _create_invalid),
    ResourceTest("contract_update_read", ("create", "update", "read"), _update_read),
    ResourceTest("contract_update_list", ("create", "update", "list"), _update_list),
    ResourceTest("contract_update_without_create", ("update",), _update_without_create),
    ResourceTest("contract_update_tag_updatable", ("create", "update"), _update_tag_updatable),
    ResourceTest("contract_update_not_updatable", ("create", "update"), _update_not_updatable),
    ResourceTest("contract_delete_create", ("create", "delete"), _delete_create),
    ResourceTest("contract_delete_read", ("create", "delete", "read"), _delete_read),
    ResourceTest("contract_delete_list", ("create", "delete", "list"), _delete_list),
    ResourceTest("contract_delete_update", ("create", "delete", "update"), _delete_update),
    ResourceTest("contract_delete_delete", ("create", "delete"), _delete_delete),
    ResourceTest(
        "contract_handles_missing_type_configuration",
        ("create",),
        _missing_type_configuration,
        _configuration_optional,
        _declares_configuration,
    ),
)

#: The tests every resource type has, in their order; a type that declares a typeConfiguration
#: also has contract_handles_missing_type_configuration, last.
TEST_NAMES = tuple(test.name for test in TESTS if test.applies is None)
ALL_TEST_NAMES = tuple(test.name for test in TESTS)
