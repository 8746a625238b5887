"""Request files for `cfngen invoke`: the same JSON that `cfn invoke` reads."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cfngen._contract._handlers import Request
from cfngen._errors import CfngenError
from cfngen._kinds.resource._view import ResourceSchema
from cfngen._kinds.resource.contract import _exports

_OBJECT_FIELDS = {
    "desiredResourceState": "desired",
    "previousResourceState": "previous",
    "typeConfiguration": "type_configuration",
    "desiredResourceTags": "desired_tags",
    "previousResourceTags": "previous_tags",
    "systemTags": "system_tags",
    "previousSystemTags": "previous_system_tags",
}
_STRING_FIELDS = {
    "logicalResourceIdentifier": "logical_id",
    "nextToken": "next_token",
    "clientRequestToken": "client_request_token",
}

EXAMPLE = (
    '{"desiredResourceState": {...}, "previousResourceState": null, '
    '"logicalResourceIdentifier": "MyResource"}'
)


def _model_path(at: tuple[str, ...]) -> tuple[str, ...] | None:
    """The model path of a value in the request: its resource states hold models."""
    if len(at) >= 2 and at[0] in ("desiredResourceState", "previousResourceState"):
        return at[1:]
    return None


def load_request(
    path: Path, info: ResourceSchema | None = None, exports: Mapping[str, Any] | None = None
) -> tuple[Request, list[str]]:
    """The request in `path`, and warnings about keys cfngen does not read and about
    `{{Export}}` placeholders no value was given for (`exports`: name -> value)."""
    placeholders = _exports.Exports(exports or {})
    data = _exports.load(
        path,
        f"a request file looks like {EXAMPLE}",
        placeholders,
        info=info,
        model_path=_model_path,
    )
    request = Request()
    warnings: list[str] = []
    for key, value in data.items():
        if key in _OBJECT_FIELDS:
            if value is not None and not isinstance(value, dict):
                raise CfngenError(
                    f"{path}: {key} must be a JSON object or null, not {type(value).__name__}",
                    f"a request file looks like {EXAMPLE}",
                )
            setattr(request, _OBJECT_FIELDS[key], value)
        elif key in _STRING_FIELDS:
            if value is None:
                continue
            if not isinstance(value, str):
                raise CfngenError(
                    f"{path}: {key} must be a string, not {type(value).__name__}",
                    f"a request file looks like {EXAMPLE}",
                )
            setattr(request, _STRING_FIELDS[key], value)
        else:
            known = ", ".join(sorted([*_OBJECT_FIELDS, *_STRING_FIELDS]))
            warnings.append(f"{path}: ignored unknown key {key!r} (cfngen reads {known})")
    if "desiredResourceState" not in data:
        warnings.append(f"{path}: no desiredResourceState; the handler gets an empty model")
    return request, warnings + placeholders.notes()
