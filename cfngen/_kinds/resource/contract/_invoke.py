"""`cfngen invoke`: one action of a project's handlers, run in-process to its end."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from cfngen._contract._handlers import Handlers, Invocation, Limits, Outcome
from cfngen._contract._results import InvokeResult
from cfngen._contract._sandbox import Sandbox
from cfngen._errors import CfngenError
from cfngen._kinds.resource import ACTIONS
from cfngen._kinds.resource.contract._request import load_request
from cfngen._kinds.resource.contract._rules import read_schema
from cfngen._project import Project


def invoke(
    project: Project,
    action: str,
    request_file: Path,
    *,
    profile: str | None = None,
    region: str | None = None,
    enforce_timeout: float | None = None,
    max_reinvoke: int,
    max_delay: float,
    on_invocation: Callable[[Invocation], None] | None = None,
    on_wait: Callable[[float, float], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
    on_import_output: Callable[[list[str]], None] | None = None,
    exports: Mapping[str, Any] | None = None,
) -> InvokeResult:
    """Run `action` with the request in `request_file`, re-invoking while IN_PROGRESS."""
    action = action.upper()
    if action not in ACTIONS:
        raise CfngenError(f"unknown action {action!r}", f"use one of {', '.join(ACTIONS)}")
    info = read_schema(project)
    request, warnings = load_request(request_file, info, exports)
    if info.handler_names and action.lower() not in info.handler_names:
        warnings.append(
            f"the schema declares no {action.lower()} handler: CloudFormation would never call it"
        )
    for warning in warnings:
        if on_warning is not None:
            on_warning(warning)
    with Sandbox(project.src_dir.resolve(), region=region, profile=profile) as sandbox:
        handlers = Handlers(project, sandbox)
        if handlers.import_output and on_import_output is not None:
            on_import_output(handlers.import_output)
        stub = handlers.stubs.get(action)
        if stub is not None:
            note = (
                f"{stub.function} is still the stub `cfngen init` wrote ({stub.where}): it "
                "returns the contract's shapes without calling any service"
            )
            warnings.append(note)
            if on_warning is not None:
                on_warning(note)
        outcome = handlers.run(
            action,
            request,
            limits=Limits.enforce(enforce_timeout),
            max_reinvoke=max_reinvoke,
            max_delay=max_delay,
            on_invocation=on_invocation,
            on_wait=on_wait,
        )
    state = _state_note(action, outcome) if profile is None else None
    if state is not None:
        warnings.append(state)
        if on_warning is not None:
            on_warning(state)
    return InvokeResult(outcome, warnings)


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
