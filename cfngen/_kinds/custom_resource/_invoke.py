"""`cfngen invoke` for a custom resource: one request type run against the function, shown as
the runner's other invocations are.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._contract._call import Invocation
from cfngen._contract._isolate import ChildExit
from cfngen._contract._loop import Outcome
from cfngen._contract._protocol import Listener
from cfngen._contract._results import InvokeResult
from cfngen._errors import CfngenError, ExitCode
from cfngen._kinds.custom_resource._inputs import _strings
from cfngen._kinds.custom_resource._open import opened
from cfngen._kinds.custom_resource._protocol import (
    REQUEST_TYPES,
    STATUS_KEY,
    Exchange,
)
from cfngen._render import Paint, plain

if TYPE_CHECKING:
    from cfngen._contract._runner import Runner
    from cfngen._project import Project


@dataclass
class CrInvocation(Invocation):
    """A custom resource's one call, as `cfngen invoke` shows it: the request cfngen made up,
    every response the receiver got, the protocol's rules it broke."""

    exchange: Exchange | None = None

    def render(self, paint: Paint = plain) -> str:
        exchange = self.exchange
        if exchange is None:
            return super().render(paint)
        lines = [paint("request:", "bold")]
        shown = {k: v for k, v in exchange.event.items() if k != "ResponseURL"}
        lines += ["  " + line for line in json.dumps(shown, indent=2).splitlines()]
        if exchange.output.strip():
            lines.append(paint("handler output:", "bold"))
            lines += ["  | " + line for line in exchange.output.rstrip().splitlines()]
        if self.crash is not None:
            lines.append(paint(f"handler raised {self.crash.headline}", "error"))
            lines.extend(self.crash.frames)
        elif exchange.init_error is not None:
            lines.append(paint(f"the function cannot start: {exchange.init_error}", "error"))
        if self.timed_out:
            lines.append(paint(f"still running after {self.limit:g} s (its Timeout)", "error"))
        lines.append(paint("response CloudFormation receives:", "bold"))
        if not exchange.bodies:
            lines.append("  (none)")
        for body in exchange.bodies:
            text = json.dumps(body, indent=2) if isinstance(body, dict) else repr(body)
            lines += ["  " + line for line in text.splitlines()]
        for problem in exchange.problems:
            lines.append(paint("protocol: " + problem, "error"))
        for warning in exchange.warnings:  # CloudFormation accepts these
            lines.append(paint("protocol warning: " + warning, "warning"))
        return "\n".join(lines) + "\n"


def as_invocation(exchange: Exchange) -> CrInvocation:
    """The exchange as the runner's Invocation of its one call (made up when none was made)."""
    call = exchange.invocation
    if call is None:
        call = Invocation(exchange.event["RequestType"], 1, exchange.event, None, 0.0, 0.0)
    values = {f.name: getattr(call, f.name) for f in dataclasses.fields(Invocation)}
    values["response"] = exchange.response
    values["status_key"] = STATUS_KEY
    return CrInvocation(**values, exchange=exchange)


def verdict(exchange: Exchange) -> str:
    if exchange.problems:
        return f"{len(exchange.problems)} protocol rule(s) broken"
    return f"{exchange.event['RequestType']} answered {exchange.status}"


def pairs(items: list[str] | None, flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise CfngenError(f"{flag} {item!r} is not K=V", f"e.g. {flag} BucketName=my-bucket")
        out[name.strip()] = value
    return out


#: The keys of custom-resource-inputs.json (what `cfngen test` reads): the file a user has at hand.
_INPUTS_KEYS = frozenset({"create", "update", "replace", "invalid"})


def _as_event(given: dict[str, Any], kind: str, path: Path, listener: Listener) -> dict[str, Any]:
    """The request a file given to `invoke` stands for: a request, the properties alone, or
    the inputs file `cfngen test` reads, as it reads it (a Create's properties are its
    "create" ones, else the template's; an Update's its "update" ones, the Create's being
    the old), said in one line."""
    if "ResourceProperties" in given or "RequestType" in given:
        return given
    if not (
        given and set(given) <= _INPUTS_KEYS and all(isinstance(v, dict) for v in given.values())
    ):
        return {"ResourceProperties": given}
    # Left out, a key is the template's properties (see _invoke).
    event = {"ResourceProperties": given["create"]} if "create" in given else {}
    if kind == "Update" and "update" in given:
        event = {"ResourceProperties": given["update"]}
        if "create" in given:
            event["OldResourceProperties"] = given["create"]
    listener.warn(f"{path.name}: read as the inputs `cfngen test` takes from it, for a {kind}")
    return event


def request_type(action: str) -> str:
    for kind in REQUEST_TYPES:
        if action.lower() == kind.lower():
            return kind
    raise CfngenError(f"unknown request type {action!r}", "use Create, Update or Delete")


def _invoke(
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
    property: list[str] | None = None,  # the flag's name, --property
    old_property: list[str] | None = None,
    physical_id: str | None = None,
) -> InvokeResult:
    from cfngen import _schema

    if runner.settings.profile is not None:
        raise CfngenError(
            "--profile does not apply to a custom resource",
            "cfngen runs custom resources offline only; leave it out",
        )
    # One request, answered once: no re-invocation, so max_reinvoke, max_invocations and
    # max_delay have nothing to count.
    kind = request_type(action)
    file_event: dict[str, Any] = {}
    if request_file is not None:
        file_event = _schema.load_object(
            request_file,
            "write a custom resource request (RequestType, ResourceProperties, ...) or "
            "the properties alone",
        )
        file_event = _as_event(file_event, kind, request_file, listener)
    if kind != "Update" and old_property:
        raise CfngenError("--old-property is only for Update", "leave it out")
    given_id = physical_id or file_event.get("PhysicalResourceId")
    if kind != "Create" and not given_id:
        raise CfngenError(f"a {kind} needs the resource's physical id", "pass --physical-id ID")
    with opened(
        runner,
        template=template,
        resource=resource,
        handler=handler,
        params=params,
        params_file=params_file,
    ) as (cloud, found, notes):
        token = {"ServiceToken": found.properties["ServiceToken"]}
        props = {
            **_strings(file_event.get("ResourceProperties", found.properties)),
            **pairs(property, "--property"),
            **token,
        }
        old: dict[str, Any] | None = None
        if kind == "Update":
            old = {
                **_strings(file_event.get("OldResourceProperties", found.properties)),
                **pairs(old_property, "--old-property"),
                **token,
            }
        if kind == "Create" and given_id:
            notes.append("a Create carries no PhysicalResourceId: --physical-id is ignored")
            given_id = None
        given_request_id = file_event.get("RequestId")
        event = cloud.request(
            kind,
            props,
            old_properties=old,
            physical_id=str(given_id) if given_id else None,
            request_id=given_request_id if isinstance(given_request_id, str) else None,
        )
        for note in notes:
            listener.warn(note)
        if cloud.runner is not None and listener.on_import_output is not None:
            imported = runner.entrypoint.import_output
            if imported:
                listener.on_import_output(imported)

        def send() -> Exchange:
            with cloud.receiving():
                return cloud.send(event)

        if cloud.runner is None:
            exchange = cloud.send(event)
        else:
            try:
                exchange = runner.isolated(send)
            except ChildExit as exc:
                raise CfngenError(
                    f"{kind} did not finish: {exc.how}",
                    "a custom resource's function answers through its ResponseURL and "
                    "returns: never call os._exit or sys.exit, nor signal its own process",
                    exit_code=ExitCode.FAILED,
                ) from None
    invocation = as_invocation(exchange)
    if listener.on_invocation is not None:
        listener.on_invocation(invocation)
    succeeded = exchange.status == "SUCCESS" and not exchange.problems
    return InvokeResult(Outcome(kind, [invocation]), verdict(exchange), succeeded, notes)
