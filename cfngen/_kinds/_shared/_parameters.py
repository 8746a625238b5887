"""A template's parameter values from the command line, for the kinds whose templates take
them (a module's consumer, a custom resource's stack): `--params FILE` overridden by
`--param NAME=VALUE`.

The file is read as templates are, with cfn-lint's decoder: JSON, or YAML whose short-form
intrinsics (`!Sub`, `!Ref`, ...) arrive as their long forms (`{"Fn::Sub": ...}`), which the kind
then resolves or substitutes as it does the template's own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError

_HINT = 'write {"BucketName": "b"} or [{"ParameterKey": ..., "ParameterValue": ...}]'


def parse_params(pairs: list[str] | None, file: Path | None) -> dict[str, Any]:
    """`--params FILE` (a JSON/YAML mapping, or CloudFormation's ParameterKey/ParameterValue
    list) overridden by `--param NAME=VALUE`s."""
    values: dict[str, Any] = {}
    if file is not None:
        data = _read(file)
        if isinstance(data, list):
            try:
                data = {str(p["ParameterKey"]): p["ParameterValue"] for p in data}
            except (TypeError, KeyError):
                data = None
        if not isinstance(data, dict):
            raise CfngenError(f"--params {file}: expected NAME: VALUE pairs", _HINT)
        values.update({str(k): v for k, v in data.items()})
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise CfngenError(f"--param {pair!r} is not NAME=VALUE", "e.g. --param BucketName=b")
        values[name.strip()] = value
    return values


def _read(file: Path) -> Any:
    from cfngen._cfn_template import decode, plain

    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CfngenError(
            f"--params {file}: cannot read it: {exc}", "pass a JSON or YAML file"
        ) from None
    decoded = decode(text)
    if decoded.errors and decoded.errors[0][2] != "the file holds no template":
        line, _column, message = decoded.errors[0]
        raise CfngenError(
            f"--params {file}:{line}: cannot read it: {message}", "pass a JSON or YAML file"
        )
    return plain(decoded.template)
