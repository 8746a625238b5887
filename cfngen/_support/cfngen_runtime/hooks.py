"""Hooks: what a CloudFormation hook's handlers use (cfngen_runtime.hooks).

- `Hook`: cloudformation_cli_python_lib's `Hook` (same constructor, `@hook.handler(point)`,
  Lambda entrypoint and `test_entrypoint`) that reports an exception raised by a handler as
  FAILED HandlerInternalFailure with the exception's type and message, where the library
  answers an InternalFailure without a message (the traceback still reaches the log).
- `compliant()`, `non_compliant(message)`: the two answers of a check.
- `target_properties(request)`, `previous_properties(request)`: the target's properties as
  CloudFormation sent them (dicts, every primitive possibly a string).
- `typed_target(request)` / `typed_previous(request)`: the same as the target's typed model
  from `target_models/` (None when cfngen generated no model for that type: a type matched by a
  wildcard gets one only when your code imports its module, see target_models/__init__.py).
- `stack_template(request)`: for a STACK target, the template (and previous template) parsed.
- `change_set(request)`: for a CHANGE_SET target, the template and the changed resources, each
  with its before and after properties parsed.

Only the standard library and cloudformation_cli_python_lib (plus PyYAML, only if a template
arrives as YAML). Runs on Python 3.8 and later.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cloudformation_cli_python_lib.hook import Hook as _LibHook
from cloudformation_cli_python_lib.interface import (
    BaseHookHandlerRequest,
    HandlerErrorCode,
    OperationStatus,
    ProgressEvent,
)

__all__ = [
    "Change",
    "ChangeSet",
    "Hook",
    "StackTemplate",
    "change_set",
    "compliant",
    "non_compliant",
    "none_when_empty",
    "previous_properties",
    "stack_template",
    "target_properties",
    "typed_previous",
    "typed_target",
]


def compliant(message: str = "") -> ProgressEvent:
    """A SUCCESS event: the target may be provisioned."""
    return ProgressEvent(status=OperationStatus.SUCCESS, message=message)


def non_compliant(message: str) -> ProgressEvent:
    """A FAILED NonCompliant event; the message is what the stack's events show."""
    return ProgressEvent(
        status=OperationStatus.FAILED,
        errorCode=HandlerErrorCode.NonCompliant,
        message=message,
    )


def none_when_empty(model: Any) -> None:
    """Make `model._deserialize` give None for an empty configuration, as the models of the
    official plugin do (handlers written for them test `if type_configuration:`)."""
    read = model._deserialize.__func__

    def _deserialize(cls: Any, json_data: Any) -> Any:
        return None if not json_data else read(cls, json_data)

    model._deserialize = classmethod(_deserialize)


class Hook(_LibHook):
    """cloudformation_cli_python_lib's Hook, with handler exceptions reported by name."""

    def _invoke_handler(
        self,
        session: Any,
        request: BaseHookHandlerRequest,
        invocation_point: Any,
        callback_context: Any,
        type_configuration: Any,
    ) -> ProgressEvent:
        try:
            return super()._invoke_handler(
                session, request, invocation_point, callback_context, type_configuration
            )
        except (
            Exception
        ) as error:  # the library would answer InternalFailure, no message
            if hasattr(error, "to_progress_event"):  # the library's own HandlerError
                raise
            message = f"{type(error).__name__}: {error}".rstrip(": ")
            return ProgressEvent(
                status=OperationStatus.FAILED,
                errorCode=HandlerErrorCode.HandlerInternalFailure,
                message=message,
            )


# --------------------------------------------------------------------------- resource targets


def _target_model(request: BaseHookHandlerRequest) -> Mapping[str, Any]:
    model = request.hookContext.targetModel
    return model if isinstance(model, Mapping) else {}


def target_properties(request: BaseHookHandlerRequest) -> dict[str, Any]:
    """The properties the target will have (an empty dict when it has none)."""
    value = _target_model(request).get("resourceProperties")
    return dict(value) if isinstance(value, Mapping) else {}


def previous_properties(request: BaseHookHandlerRequest) -> dict[str, Any] | None:
    """The properties the target had (preUpdate), else None."""
    value = _target_model(request).get("previousResourceProperties")
    return dict(value) if isinstance(value, Mapping) else None


def _model_class(type_name: str | None) -> Any:
    if not type_name:
        return None
    # This module is <package>.cfngen_runtime.hooks; target_models/ is beside cfngen_runtime/.
    package = __name__.rsplit(".", 2)[0]
    try:
        models = importlib.import_module(package + ".target_models")
    except ImportError:
        return None
    found = getattr(models, "MODULES", {}).get(type_name)
    if found is None:
        return None
    module, name = found
    return getattr(importlib.import_module(package + ".target_models." + module), name)


def typed_target(request: BaseHookHandlerRequest) -> Any:
    """The target's properties as its typed model (`AwsS3Bucket` for AWS::S3::Bucket), or None
    when there is no model for its type."""
    cls = _model_class(request.hookContext.targetName)
    return None if cls is None else cls._deserialize(target_properties(request))


def typed_previous(request: BaseHookHandlerRequest) -> Any:
    """The previous properties as the typed model (preUpdate), else None."""
    cls = _model_class(request.hookContext.targetName)
    previous = previous_properties(request)
    return None if cls is None or previous is None else cls._deserialize(previous)


# --------------------------------------------------------------------------- stacks, change sets


def _document(value: Any) -> dict[str, Any]:
    """A template as CloudFormation sends it (JSON or YAML text, or already parsed)."""
    if isinstance(value, Mapping):
        return dict(value)
    if not isinstance(value, str) or not value.strip():
        return {}
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = _yaml(value)
    return parsed if isinstance(parsed, dict) else {}


def _yaml(text: str) -> Any:
    try:
        import yaml
    except ImportError:  # pragma: no cover - depends on the Lambda package
        raise ValueError(
            "the template is YAML: add PyYAML to requirements.txt to read it"
        ) from None

    class _Loader(yaml.SafeLoader):  # type: ignore[misc]
        pass

    def tagged(loader: Any, suffix: str, node: Any) -> Any:
        # `!Ref X` -> {"Ref": "X"}, `!GetAtt A.B` -> {"Fn::GetAtt": "A.B"}: CloudFormation's
        # long form, so a rule reads one shape.
        name = suffix if suffix == "Ref" else "Fn::" + suffix
        if isinstance(node, yaml.ScalarNode):
            return {name: loader.construct_scalar(node)}
        if isinstance(node, yaml.SequenceNode):
            return {name: loader.construct_sequence(node, deep=True)}
        return {name: loader.construct_mapping(node, deep=True)}

    _Loader.add_multi_constructor("!", tagged)
    return yaml.load(text, Loader=_Loader)


@dataclass
class StackTemplate:
    """A STACK target: the template being provisioned, and the one it replaces."""

    template: dict[str, Any]
    previous_template: dict[str, Any] | None = None

    @property
    def resources(self) -> dict[str, dict[str, Any]]:
        """Logical id -> {"Type": ..., "Properties": {...}, ...}."""
        found = self.template.get("Resources")
        return (
            {k: v for k, v in (found or {}).items() if isinstance(v, dict)}
            if isinstance(found, dict)
            else {}
        )


def stack_template(request: BaseHookHandlerRequest) -> StackTemplate:
    model = _target_model(request)
    previous = model.get("previousTemplate")
    return StackTemplate(
        template=_document(model.get("template")),
        previous_template=_document(previous) if previous else None,
    )


@dataclass
class Change:
    """One resource of a change set."""

    action: str
    logical_id: str
    resource_type: str
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    line_number: int | None = None

    @property
    def properties(self) -> dict[str, Any]:
        """The resource's properties after the change ({} for a removal)."""
        found = (self.after or {}).get("Properties")
        return dict(found) if isinstance(found, Mapping) else {}


@dataclass
class ChangeSet:
    """A CHANGE_SET target: the new template and the changed resources."""

    template: dict[str, Any]
    changes: list[Change] = field(default_factory=list)


def change_set(request: BaseHookHandlerRequest) -> ChangeSet:
    model = _target_model(request)
    changes = []
    for item in model.get("changedResources") or []:
        if not isinstance(item, Mapping):
            continue
        line = item.get("lineNumber")
        changes.append(
            Change(
                action=str(item.get("action", "")),
                logical_id=str(item.get("logicalResourceId", "")),
                resource_type=str(item.get("resourceType", "")),
                before=_document(item.get("beforeContext")) or None,
                after=_document(item.get("afterContext")) or None,
                line_number=line if isinstance(line, int) else None,
            )
        )
    return ChangeSet(template=_document(model.get("template")), changes=changes)
