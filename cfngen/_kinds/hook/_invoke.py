"""`cfngen invoke` for a hook: one invocation point for one target, from a request file (the
official tool's shape or cfngen's inputs file), carried to its end.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cfngen import _schema
from cfngen._contract._isolate import ChildExit
from cfngen._contract._protocol import Listener
from cfngen._contract._results import InvokeResult
from cfngen._contract._runner import Runner
from cfngen._contract._type_configuration import for_run, model_class_note
from cfngen._errors import CfngenError, ExitCode
from cfngen._kinds._shared import _targets
from cfngen._kinds.hook import _hook_protocol, _hook_tests, _inputs
from cfngen._kinds.hook._context import DEFAULT_LIMIT, _hook_context, load_hook_project
from cfngen._project import Project


def render_verdict(run: _hook_protocol.Run) -> str:
    what = f"{run.point} {run.target.name}"
    if run.guard is not None:
        return f"{what} did not finish: {run.guard}"
    if run.status == "SUCCESS":
        return f"{what}: SUCCESS (compliant)"
    if run.status == "FAILED":
        code = run.error_code or "no errorCode"
        message = run.message
        return f"{what}: FAILED {code}" + (f": {message}" if message else "")
    return f"{what} answered {run.status!r}"


#: The shape of a hook's inputs/ files, which `cfngen invoke` reads as well.
_SHAPE = '{"AWS::S3::Bucket": {"resourceProperties": {...}}} (the inputs/ format)'


def read_invoke_file(
    path: Path, point: str, schema: Mapping[str, Any], text: str | None = None
) -> tuple[list[_hook_protocol.Target], str | None, dict[str, Any] | None, list[str]]:
    """The targets of `cfngen invoke`: those of an inputs-format file (each run in turn), the
    one of a full hook request, or a bare resourceProperties document sent to the one target
    type the hook declares for `point`. Returns the targets, the invocation point and the
    type configuration (`hookModel`) the file names (a full request), and notes on how the
    file was read. `text` is the file's text when it was already read (exports replaced)."""
    data = _schema.load_object(path, f"write {_SHAPE} or a full hook request", text=text)
    if "requestData" in data:  # a full request, as CloudFormation sends it
        request_data = data["requestData"] if isinstance(data["requestData"], dict) else {}
        name = request_data.get("targetName")
        if not isinstance(name, str):
            raise CfngenError(f"{path}: requestData has no targetName", "add the target's type")
        document = request_data.get("targetModel") or {}
        file_point = data.get("actionInvocationPoint")
        logical = request_data.get("targetLogicalId")
        target = _hook_protocol.Target(
            name, document if isinstance(document, dict) else {}, str(logical or "MyResource")
        )
        hook_model = data.get("hookModel")
        if hook_model is not None and not isinstance(hook_model, dict):
            raise CfngenError(f"{path}: hookModel is not a JSON object", "write its settings")
        return [target], file_point if isinstance(file_point, str) else None, hook_model, []
    notes: list[str] = []
    if data and not any(_names_target(key) for key in data):
        data = {_only_target(path, point, schema): {"resourceProperties": data}}
        notes.append(
            f"{path}: holds a resource's properties, not targets: sent as the "
            f"resourceProperties of {next(iter(data))}"
        )
    if not data:
        raise CfngenError(f"{path}: names no target", f"write {_SHAPE}")
    targets = []
    for name, given in data.items():
        if not isinstance(given, dict):
            raise CfngenError(f"{path}: {name} must map to a JSON object", f"write {_SHAPE}")
        document = given
        if (
            name not in _hook_protocol.SPECIAL_TARGETS
            and given
            and not ({"resourceProperties", "previousResourceProperties"} & set(given))
        ):
            notes.append(f"{path}: {name} maps to its properties: sent as its resourceProperties")
            document = {"resourceProperties": given}
        targets.append(_hook_protocol.Target(name, document, _hook_tests._logical_id(name)))
    return targets, None, None, notes


def _names_target(key: str) -> bool:
    """Whether a key of an inputs-format file names a target (not a property)."""
    return key in _hook_protocol.SPECIAL_TARGETS or "::" in key


def _only_target(path: Path, point: str, schema: Mapping[str, Any]) -> str:
    """The target type a bare properties document is for: the one the hook declares."""
    names = [
        name
        for name in _inputs.declared(schema, point)
        if name not in _hook_protocol.SPECIAL_TARGETS and not _targets.is_wildcard(name)
    ]
    if len(names) != 1:
        declared = ", ".join(_inputs.declared(schema, point)) or "none"
        raise CfngenError(
            f"{path}: holds properties, but not the target they are for (the hook's targets "
            f"for {point}: {declared})",
            f"write {_SHAPE}",
        )
    return names[0]


def _invoke(
    runner: Runner[Project],
    point: str,
    target_file: Path,
    listener: Listener,
    *,
    typeconfig: Path | None = None,
    exports: Mapping[str, str] | None = None,
) -> InvokeResult:
    _project, schema = load_hook_project(runner.project)
    chosen = _hook_protocol.point_name(point)
    if chosen is None:
        raise CfngenError(
            f"unknown invocation point {point!r}",
            f"use one of {', '.join(_hook_protocol.POINTS)} (or preCreate, preUpdate, preDelete)",
        )
    used: dict[str, str] = {}
    text = _inputs.render_exports(
        _schema.read_text(target_file, not_utf8=ExitCode.USAGE), exports or {}, used
    )
    targets, file_point, hook_model, notes = read_invoke_file(target_file, chosen, schema, text)
    warnings: list[str] = list(notes)
    if file_point and _hook_protocol.point_name(file_point) != chosen:
        warnings.append(f"{target_file}: the request is for {file_point}; invoking {chosen}")
    handler = _hook_protocol.HANDLER_OF[chosen]
    names = _inputs.declared(schema, chosen)
    if not names:
        warnings.append(
            f"the schema declares no {handler} handler with targets: "
            "CloudFormation would never call it"
        )
    for target in targets:
        if names and not _inputs.covers(names, target.name):
            warnings.append(
                f"{target.name} is not among the targets of {handler}: "
                "CloudFormation would never send it"
            )
    for name, value in sorted(used.items()):
        if value == f"cfngen-export-{name}":
            warnings.append(f"{{{{{name}}}}} is a CloudFormation export: stand-in value {value}")
    # --typeconfig wins over the request's hookModel (the configuration CloudFormation sends).
    configuration = for_run(
        runner,
        schema,
        typeconfig,
        from_request=None if hook_model is None else (hook_model, f"{target_file}: hookModel"),
    )
    warnings.extend(configuration.report())
    for warning in warnings:
        listener.warn(warning)
    limit = runner.settings.enforce_timeout or DEFAULT_LIMIT
    results = []
    with runner.open(), _hook_context(runner, configuration.for_handler) as context:
        for note in runner.entrypoint.notes:  # requirements installed for the run
            listener.warn(note)
        model_note = model_class_note(runner.entrypoint.function, configuration)
        if model_note is not None:
            warnings.append(model_note)
            listener.warn(model_note)
        if runner.entrypoint.import_output and listener.on_import_output is not None:
            listener.on_import_output(runner.entrypoint.import_output)
        # Every target of an inputs file in turn, as `cfngen test` sends them.
        for target in targets:
            run = _carry(runner, listener, chosen, target, context, limit=limit)
            results.append(InvokeResult(run, render_verdict(run), run.status == "SUCCESS"))
    if len(results) == 1:
        results[0].warnings = warnings
        return results[0]
    return InvokeResult.of_several(results, warnings)


def _carry(
    runner: Runner[Project],
    listener: Listener,
    point: str,
    target: _hook_protocol.Target,
    context: _hook_protocol.Context,
    *,
    limit: float,
) -> _hook_protocol.Run:
    exchange = _hook_protocol.HookExchange(
        point, target, context, limit=limit, token=str(uuid.uuid4())
    )
    try:
        outcome = runner.isolated(
            lambda: runner.carry(exchange, handler=point, max_delay=0.0, on_invocation=runner.send),
            listener.on_invocation,
        )
    except ChildExit as exc:
        raise CfngenError(
            f"{exchange.label} did not finish: {exc.how}",
            "a handler must return a progress event: never call os._exit or sys.exit",
            exit_code=ExitCode.FAILED,
        ) from None
    return _hook_protocol.as_run(outcome, point, target)
