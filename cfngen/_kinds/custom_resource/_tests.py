"""The lifecycle tests of `cfngen test` for a custom resource: CloudFormation's requests, in the
order a stack sends them, each response checked against every rule of _protocol.py.

A test is a function of a `Case` that returns when it passes and raises Failed or Skipped. Every
request of every test is checked, also the ones a test sends only to get somewhere (the create
before an update): a response CloudFormation would fail the stack for fails the test that
received it; one it accepts (docs/custom-resources.md) adds a warning to the test, which passes.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cfngen._contract._results import Failed, Skipped, report_crash
from cfngen._kinds.custom_resource._protocol import Cloud, Exchange

#: More attempts than this at an expired URL is an endless retry.
MAX_EXPIRED_ATTEMPTS = 5


@dataclass
class Inputs:
    """The properties each step sends (every scalar a string, as CloudFormation sends them)."""

    create: dict[str, Any]
    update: dict[str, Any]
    #: An update that replaces the resource (a new id), when the inputs name one.
    replace: dict[str, Any] | None = None
    #: Properties the handler must refuse (from the inputs file or the properties schema).
    invalid: dict[str, Any] | None = None
    why_no_invalid: str = 'no properties schema and no "invalid" inputs'
    why_no_replace: str = 'no "replace" inputs'
    notes: list[str] = field(default_factory=list)


@dataclass
class Case:
    cloud: Cloud
    inputs: Inputs
    #: Every exchange of the running test, for the failure message.
    seen: list[Exchange] = field(default_factory=list)
    #: What CloudFormation accepts but the user should know, each once.
    warnings: list[str] = field(default_factory=list)

    def warn(self, text: str) -> None:
        if text not in self.warnings:
            self.warnings.append(text)

    def send(self, event: dict[str, Any], *, expired: bool = False) -> Exchange:
        kind = event["RequestType"]
        if kind in self.cloud.hung:
            raise Failed(
                f"one-response: a {kind} ran into its deadline in an earlier test "
                f"({self.cloud.hung[kind]}); not sent again"
            )
        exchange = self.cloud.send(event, expired=expired)
        self.seen.append(exchange)
        for warning in exchange.warnings:
            self.warn(f"{kind}: {warning}")
        if exchange.problems:
            raise Failed(_explain(exchange, exchange.problems))
        return exchange

    def create(self, properties: Mapping[str, Any] | None = None) -> Exchange:
        return self.send(self.cloud.request("Create", properties or self.inputs.create))

    def created(self) -> str:
        """A created resource's id (the create must succeed)."""
        exchange = self.create()
        expect_success(exchange, "the first Create")
        return str(exchange.physical_id)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], old: Mapping[str, Any]
    ) -> Exchange:
        event = self.cloud.request(
            "Update", properties, old_properties=old, physical_id=physical_id
        )
        return self.send(event)

    def delete(self, physical_id: str, properties: Mapping[str, Any] | None = None) -> Exchange:
        event = self.cloud.request(
            "Delete", properties or self.inputs.create, physical_id=physical_id
        )
        return self.send(event)

    def cleanup(self, physical_id: str) -> None:
        """The stack's delete at the end: checked like any other request."""
        exchange = self.delete(physical_id)
        expect_success(exchange, "the Delete that removes the stack")


def _report(exchange: Exchange) -> None:
    """A failure message about this exchange shows the handler's crash, if it raised: the
    test's cause (told once by `cfngen test`, pointed at by the CI formats)."""
    crash = None if exchange.invocation is None else exchange.invocation.crash
    if crash is not None:
        report_crash(crash)


def _explain(exchange: Exchange, problems: list[str]) -> str:
    _report(exchange)
    lines = [exchange.event["RequestType"] + " broke the protocol:"]
    lines += [f"- {problem}" for problem in problems]
    lines.append(f"response: {exchange.describe()}")
    if exchange.output.strip():
        lines.append("handler output (last lines):")
        lines.append(exchange.log_tail())
    return "\n".join(lines)


def expect_success(exchange: Exchange, what: str) -> None:
    if exchange.status != "SUCCESS":
        _report(exchange)
        message = f"{what} answered {exchange.status}: {exchange.reason or '(no Reason)'}"
        if exchange.output.strip():
            message += "\nhandler output (last lines):\n" + exchange.log_tail()
        raise Failed(message)


def expect_failure(exchange: Exchange, what: str) -> None:
    if exchange.status != "FAILED":
        raise Failed(
            f"{what} answered {exchange.status} with PhysicalResourceId "
            f"{exchange.physical_id!r}; properties the schema rejects must fail"
        )


# --------------------------------------------------------------------------- the tests


def cr_create(case: Case) -> None:
    physical_id = case.created()
    case.cleanup(physical_id)


def cr_create_duplicate_delivery(case: Case) -> None:
    """Lambda is invoked asynchronously and may get one request twice."""
    event = case.cloud.request("Create", case.inputs.create)
    first = case.send(event)
    expect_success(first, "the Create")
    second = case.send(event)
    said = (
        "the same Create delivered twice (same StackId and RequestId) answered "
        f"{first.status} {first.physical_id!r}, then {second.status} {second.physical_id!r}"
    )
    if second.status != first.status:
        # CloudFormation may read either answer: a duplicate can fail the stack.
        raise Failed(f"{said}: a duplicate must get the same answer")
    if second.physical_id != first.physical_id:
        # Either id is taken; the other resource is never deleted by the stack.
        case.warn(
            f"{said}: one of the two resources is left behind, which no stack deletes (derive "
            "the id from the request, not from a clock, a random number or the log stream)"
        )
        case.cleanup(str(second.physical_id))
    case.cleanup(str(first.physical_id))


def cr_update_unchanged_keeps_id(case: Case) -> None:
    physical_id = case.created()
    update = case.update(physical_id, case.inputs.create, case.inputs.create)
    expect_success(update, "an Update that changes nothing")
    if update.physical_id != physical_id:
        raise Failed(
            f"physical-id: an Update that changes nothing answered a new PhysicalResourceId "
            f"{update.physical_id!r}; CloudFormation takes a new id as a replacement and "
            f"then deletes {physical_id!r}, the live resource"
        )
    case.cleanup(physical_id)


def cr_update_in_place_keeps_id(case: Case) -> None:
    physical_id = case.created()
    update = case.update(physical_id, case.inputs.update, case.inputs.create)
    expect_success(update, "the in-place Update")
    if update.physical_id != physical_id:
        raise Failed(
            f"physical-id: the in-place Update answered a new PhysicalResourceId "
            f"{update.physical_id!r}; CloudFormation takes a new id as a replacement and "
            f"then deletes {physical_id!r} (if this update must replace the resource, put its "
            'properties under "replace" in the inputs file instead of "update")'
        )
    case.cleanup(physical_id)


def cr_update_replacement_deletes_old(case: Case) -> None:
    if case.inputs.replace is None:
        raise Skipped(case.inputs.why_no_replace)
    old_id = case.created()
    update = case.update(old_id, case.inputs.replace, case.inputs.create)
    expect_success(update, "the replacing Update")
    if update.physical_id == old_id:
        # CloudFormation takes it as an update in place: nothing is lost, nothing deleted.
        case.warn(
            f'the "replace" Update kept PhysicalResourceId {old_id!r}: CloudFormation takes '
            "it for an update in place and deletes nothing; a handler that made a new resource "
            'answers its id (or these properties belong under "update" in the inputs)'
        )
        case.cleanup(old_id)
        return
    # CloudFormation's cleanup phase: the old resource goes, with its old properties.
    delete_old = case.delete(old_id, case.inputs.create)
    expect_success(delete_old, "the Delete of the replaced resource")
    case.cleanup(str(update.physical_id))


def cr_delete(case: Case) -> None:
    physical_id = case.created()
    case.cleanup(physical_id)


def cr_delete_twice(case: Case) -> None:
    physical_id = case.created()
    case.cleanup(physical_id)
    again = case.delete(physical_id)
    expect_success(again, "a second Delete of the same id (a duplicate delivery)")


def cr_delete_unknown_id(case: Case) -> None:
    """A Delete for an id the handler never made: after a Create that failed before it made
    anything, or after someone removed the resource. It must succeed, or the rollback fails."""
    unknown = f"cfngen-never-created-{uuid.uuid4().hex[:12]}"
    exchange = case.delete(unknown)
    expect_success(exchange, f"the Delete of an id it never made ({unknown})")


def cr_create_failed_rollback_delete(case: Case) -> None:
    if case.inputs.invalid is None:
        raise Skipped(case.inputs.why_no_invalid)
    failed = case.create(case.inputs.invalid)
    expect_failure(failed, "a Create with properties the schema rejects")
    # The rollback: a Delete of whatever id the FAILED response carried.
    rollback = case.delete(str(failed.physical_id), case.inputs.invalid)
    expect_success(rollback, "the rollback Delete after the failed Create")


def cr_update_failed_rollback_update(case: Case) -> None:
    if case.inputs.invalid is None:
        raise Skipped(case.inputs.why_no_invalid)
    physical_id = case.created()
    failed = case.update(physical_id, case.inputs.invalid, case.inputs.create)
    expect_failure(failed, "an Update with properties the schema rejects")
    # The rollback: the old properties again, the failed ones as OldResourceProperties.
    rollback = case.update(physical_id, case.inputs.create, case.inputs.invalid)
    expect_success(rollback, "the rollback Update after the failed Update")
    if rollback.physical_id != physical_id:
        raise Failed(
            f"physical-id: the rollback Update answered {rollback.physical_id!r}; it must keep "
            f"{physical_id!r}"
        )
    case.cleanup(physical_id)


def cr_expired_url(case: Case) -> None:
    """The presigned URL has expired (S3 answers 403): one bounded attempt, then the end. By
    then CloudFormation has given up on the request, so what the function does only costs it
    time: warnings."""
    if "Create" in case.cloud.hung:
        raise Failed(
            f"one-response: a Create ran into its deadline in an earlier test "
            f"({case.cloud.hung['Create']}); not sent again"
        )
    exchange = case.cloud.send(case.cloud.request("Create", case.inputs.create), expired=True)
    case.seen.append(exchange)
    if not exchange.returned:
        case.warn(
            "one-response: with an expired ResponseURL (403) the invocation was still running "
            f"at its deadline after {exchange.refused} attempts: a 403 cannot succeed later, "
            "stop after it"
        )
    elif exchange.refused > MAX_EXPIRED_ATTEMPTS:
        case.warn(
            f"one-response: {exchange.refused} PUTs to an expired ResponseURL (403); a 403 "
            f"cannot succeed later: at most {MAX_EXPIRED_ATTEMPTS}"
        )
    elif exchange.refused == 0:
        case.warn("one-response: with an expired ResponseURL the handler never tried to answer")


Test = Callable[[Case], None]
TESTS: tuple[tuple[str, Test], ...] = tuple(
    (function.__name__, function)
    for function in (
        cr_create,
        cr_create_duplicate_delivery,
        cr_update_unchanged_keeps_id,
        cr_update_in_place_keeps_id,
        cr_update_replacement_deletes_old,
        cr_delete,
        cr_delete_twice,
        cr_delete_unknown_id,
        cr_create_failed_rollback_delete,
        cr_update_failed_rollback_update,
        cr_expired_url,
    )
)
TEST_NAMES = tuple(name for name, _ in TESTS)
