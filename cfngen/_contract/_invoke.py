"""`cfngen invoke`: one action of a project's handlers, run in-process to its end."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cfngen._contract._handlers import (
    ACTIONS,
    Handlers,
    Invocation,
    Limits,
    Outcome,
    load_resource_project,
)
from cfngen._contract._request import load_request
from cfngen._contract._rules import SchemaInfo
from cfngen._contract._sandbox import Sandbox
from cfngen._errors import CfngenError

#: Longest wait between re-invocations, whatever callbackDelaySeconds the handler asks for.
DEFAULT_MAX_DELAY = 5.0
DEFAULT_MAX_REINVOKE = 100


@dataclass
class InvokeResult:
    outcome: Outcome
    warnings: list[str] = field(default_factory=list)

    @property
    def succeeded(self) -> bool:
        return self.outcome.status == "SUCCESS"


def invoke(
    root: Path,
    action: str,
    request_file: Path,
    *,
    profile: str | None = None,
    region: str | None = None,
    enforce_timeout: float | None = None,
    max_reinvoke: int = DEFAULT_MAX_REINVOKE,
    max_delay: float = DEFAULT_MAX_DELAY,
    on_invocation: Callable[[Invocation], None] | None = None,
    on_wait: Callable[[float, float], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
    on_import_output: Callable[[list[str]], None] | None = None,
) -> InvokeResult:
    """Run `action` with the request in `request_file`, re-invoking while IN_PROGRESS."""
    action = action.upper()
    if action not in ACTIONS:
        raise CfngenError(f"unknown action {action!r}", f"use one of {', '.join(ACTIONS)}")
    project, schema = load_resource_project(root)
    info = SchemaInfo.from_schema(schema)
    request, warnings = load_request(request_file)
    if info.handlers and action.lower() not in info.handlers:
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
    return InvokeResult(outcome, warnings)
