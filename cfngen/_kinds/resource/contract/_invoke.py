"""`cfngen invoke`: one action of a resource type's handlers, run in-process to its end."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cfngen._contract._isolate import ChildExit
from cfngen._contract._loop import Outcome
from cfngen._contract._protocol import Listener
from cfngen._contract._references import resolve_model
from cfngen._contract._results import InvokeResult
from cfngen._contract._runner import Runner
from cfngen._contract._type_configuration import account_of, for_run, model_class_note
from cfngen._errors import CfngenError, ExitCode
from cfngen._kinds.resource import ACTIONS
from cfngen._kinds.resource.contract._request import Limits, ResourceExchange, load_request
from cfngen._kinds.resource.contract._rules import read_schema
from cfngen._project import Project


def invoke(
    runner: Runner[Project],
    action: str,
    request_file: Path,
    listener: Listener,
    *,
    exports: Mapping[str, Any] | None = None,
    typeconfig: Path | None = None,
) -> InvokeResult:
    """Run `action` with the request in `request_file`, re-invoking while IN_PROGRESS
    (`exports`: the values of the CloudFormation exports the request names as {{Name}})."""
    action = action.upper()
    if action not in ACTIONS:
        raise CfngenError(f"unknown action {action!r}", f"use one of {', '.join(ACTIONS)}")
    info = read_schema(runner.project)
    request, warnings = load_request(request_file, info, exports)
    for field in ("desired", "previous"):
        state = getattr(request, field)
        if state is not None:
            resolved, found = resolve_model(
                state, runner.settings.seeds, str(request_file), account_of(runner)
            )
            setattr(request, field, resolved)
            warnings.extend(found)
    # --typeconfig, else the request file's own typeConfiguration, else .rpdk-config's.
    in_request = request.type_configuration
    configuration = for_run(
        runner,
        info.schema,
        typeconfig,
        from_request=None
        if in_request is None
        else (in_request, f"{request_file}: typeConfiguration"),
    )
    request.type_configuration = configuration.for_handler
    warnings.extend(configuration.report())
    if info.handler_names and action.lower() not in info.handler_names:
        warnings.append(
            f"the schema declares no {action.lower()} handler: CloudFormation would never call it"
        )
    for warning in warnings:
        listener.warn(warning)
    handler = info.handlers.get(action.lower())
    timeout = handler.timeout_in_minutes if handler is not None else None
    with runner.open():
        entrypoint = runner.entrypoint
        for note in entrypoint.notes:  # requirements installed for the run
            listener.warn(note)
        if entrypoint.import_output and listener.on_import_output is not None:
            listener.on_import_output(entrypoint.import_output)
        model_note = model_class_note(entrypoint.function, configuration)
        if model_note is not None:
            warnings.append(model_note)
            listener.warn(model_note)
        stub = runner.stubs.get(action)
        if stub is not None:
            note = (
                f"{stub.function} is still the stub `cfngen init` wrote ({stub.where}): it "
                "returns the contract's shapes without calling any service"
            )
            warnings.append(note)
            listener.warn(note)
        exchange = ResourceExchange(
            runner,
            action,
            request,
            limits=Limits.enforce(runner.settings.enforce_timeout),
            timeout_minutes=timeout,
        )

        def shown(message: object) -> None:
            if isinstance(message, tuple) and message[0] == "wait":
                if listener.on_wait is not None:
                    listener.on_wait(*message[1:])
            elif listener.on_invocation is not None:
                listener.on_invocation(message)  # type: ignore[arg-type]

        try:
            outcome = runner.isolated(
                lambda: runner.carry(
                    exchange,
                    handler=action,
                    on_invocation=runner.send,
                    on_wait=lambda *wait: runner.send(("wait", *wait)),
                ),
                shown,
            )
        except ChildExit as exc:
            raise CfngenError(
                f"{action} did not finish: {exc.how}",
                "a handler must return a progress event: never call os._exit or sys.exit",
                exit_code=ExitCode.FAILED,
            ) from None
    state = _state_note(action, outcome) if runner.settings.profile is None else None
    if state is not None:
        warnings.append(state)
        listener.warn(state)
    return InvokeResult(outcome, verdict(outcome), outcome.status == "SUCCESS", warnings)


def _state_note(action: str, outcome: Outcome) -> str | None:
    """Against moto, each `cfngen invoke` starts from an empty account: say so where it shows
    (a resource just created, or one that a later run cannot find)."""
    why = (
        "each `cfngen invoke` runs in a fresh offline (moto) AWS account that is discarded when "
        "it ends, so state does not persist between runs"
    )
    then = (
        "`cfngen test` runs create, read, update and delete in one account; --profile uses real AWS"
    )
    if action == "CREATE" and outcome.status == "SUCCESS":
        return f"the resource exists only during this run: {why} ({then})"
    models = outcome.response.get("resourceModels") if outcome.status == "SUCCESS" else None
    if outcome.error_code == "NotFound" or (action == "LIST" and models == []):
        return f"nothing found: {why}, and a CREATE of an earlier run is gone ({then})"
    return None


def verdict(outcome: Outcome) -> str:
    """The verdict line of `cfngen invoke`."""
    action = outcome.action
    if outcome.guard is not None:
        return f"{action} did not finish: {outcome.guard}"
    response = outcome.response
    if outcome.status == "SUCCESS":
        return f"{action} succeeded"
    if outcome.status == "FAILED":
        code = response.get("errorCode") or "no errorCode"
        message = response.get("message")
        return f"{action} failed: {code}" + (f": {message}" if message else "")
    return f"{action} returned {outcome.status!r}"
