"""`cfngen validate` for a custom resource project: the template's custom resources, and the
optional properties schema of each custom type (`properties-schema.json`, or with several types
`properties-schemas/<Custom__Name>.json`: _type_files.py) with the properties the template
gives each resource of that type.

Errors are what CloudFormation refuses (a type name over 60 characters, no ServiceToken, a
ServiceTimeout outside 1-3600 s) or what the properties schema rejects; warnings are what
works but hurts (no ServiceTimeout: a lost response blocks the stack for an hour).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cfngen import _schema
from cfngen._cfn_template import decode, position
from cfngen._diagnostics import Diagnostic
from cfngen._errors import CfngenError
from cfngen._kinds.custom_resource import CUSTOM_TYPE_NAME
from cfngen._kinds.custom_resource._type_files import is_schema_file, type_files, unclaimed
from cfngen._validate._file_report import FileReport

#: Characters after `Custom::` CloudFormation takes (the request reference's ResourceType).
MAX_TYPE_NAME = 60


def check_file(path: Path, *, strict: bool, display: str | None = None) -> FileReport:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CfngenError(f"{path}: cannot read it: {exc}", "pass a readable file") from None
    return check_text(text, path=path, strict=strict, display=display)


def check_text(
    text: str, *, path: Path | None, strict: bool, display: str | None = None
) -> FileReport:
    shown = display or (str(path) if path else "<text>")
    if path is not None and is_schema_file(path):
        return _check_schema(text, shown, strict)
    return _check_template(text, path, shown, strict)


def _check_schema(text: str, shown: str, strict: bool) -> FileReport:
    import jsonschema

    report = FileReport(shown, strict=strict)
    try:
        schema = _schema.loads(text).data
    except _schema.JsonSyntaxError as exc:
        report.diagnostics.append(
            Diagnostic(
                "error",
                "",
                f"invalid JSON: {exc.message}",
                "fix the syntax",
                exc.line,
                exc.column,
                code="cfngen/json-invalid",
            )
        )
        return report
    if not isinstance(schema, dict):
        report.diagnostics.append(
            Diagnostic(
                "error",
                "",
                "the properties schema must be a JSON object",
                None,
                code="cfngen/cr-properties-schema-not-object",
            )
        )
        return report
    report.schema = schema
    try:
        jsonschema.Draft7Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        pointer = "/" + "/".join(str(p) for p in exc.absolute_path)
        report.diagnostics.append(
            Diagnostic(
                "error",
                pointer if exc.absolute_path else "",
                exc.message,
                "a draft-07 JSON schema",
                code="cfngen/cr-properties-schema-invalid",
            )
        )
    if schema.get("type", "object") != "object":
        report.diagnostics.append(
            Diagnostic(
                "error",
                "/type",
                f"type is {schema.get('type')!r}: ResourceProperties is an object",
                'use "type": "object"',
                code="cfngen/cr-properties-schema-not-object",
            )
        )
    return report


def _at(node: Any, fallback: tuple[int | None, int | None]) -> tuple[int | None, int | None]:
    return position(node) or fallback


def _check_template(text: str, path: Path | None, shown: str, strict: bool) -> FileReport:
    from cfngen._kinds.custom_resource._detect import is_custom_resource_type
    from cfngen._kinds.custom_resource._template import FUNCTION_TYPES, _subscriber, _token_target

    report = FileReport(shown, strict=strict)
    add = report.diagnostics.append
    decoded = decode(text)
    template = decoded.template
    if not isinstance(template, dict):
        first = decoded.errors[0][2] if decoded.errors else "not a template"
        add(
            Diagnostic(
                "error",
                "",
                f"cannot read the template: {first}",
                "fix its syntax",
                code="cfngen/cr-template-unreadable",
            )
        )
        return report
    resources = template.get("Resources")
    if not isinstance(resources, dict):
        add(
            Diagnostic(
                "error",
                "/Resources",
                "the template has no Resources",
                None,
                code="cfngen/cr-template-no-resources",
            )
        )
        return report
    plain: dict[str, Any] = json.loads(json.dumps(template, default=str))
    customs = {
        name: body
        for name, body in resources.items()
        if isinstance(body, dict) and is_custom_resource_type(body.get("Type"))
    }
    if not customs:
        add(
            Diagnostic(
                "error",
                "/Resources",
                "the template declares no custom resource",
                "add a Custom::Name resource with a ServiceToken",
                code="cfngen/cr-template-no-custom-resource",
            )
        )
    types = {str(body["Type"]) for body in customs.values()}
    schemas = _Schemas(path.parent if path is not None else None, types)
    if schemas.unclaimed:
        add(
            Diagnostic(
                "warning",
                "/Resources",
                schemas.unclaimed,
                "move it, or it checks nothing",
                code="cfngen/cr-properties-schema-unclaimed",
            )
        )
    for name, body in customs.items():
        base = f"/Resources/{name}"
        pos: tuple[int | None, int | None] = position(body) or (None, None)
        kind = str(body["Type"])
        if kind.startswith("Custom::") and not CUSTOM_TYPE_NAME.match(kind):
            add(
                Diagnostic(
                    "error",
                    f"{base}/Type",
                    _refused_name(kind),
                    "Custom:: then 1 to 60 letters, digits, _, @ or -",
                    *_at(body.get("Type"), pos),
                    code="cfngen/cr-type-name-refused",
                )
            )
        properties = body.get("Properties")
        if not isinstance(properties, dict) or "ServiceToken" not in properties:
            add(
                Diagnostic(
                    "error",
                    f"{base}/Properties",
                    f"{name} has no ServiceToken",
                    "set ServiceToken to the function's ARN (!GetAtt Function.Arn)",
                    *pos,
                    code="cfngen/cr-no-service-token",
                )
            )
            continue
        timeout = properties.get("ServiceTimeout")
        if timeout is None:
            add(
                Diagnostic(
                    "warning",
                    f"{base}/Properties",
                    f"{name} has no ServiceTimeout: a response that never comes blocks the "
                    "stack for an hour",
                    "set ServiceTimeout to a few times the function's Timeout (1-3600 s)",
                    *pos,
                    code="cfngen/cr-no-service-timeout",
                )
            )
        elif not (str(timeout).isdigit() and 1 <= int(str(timeout)) <= 3600):
            add(
                Diagnostic(
                    "error",
                    f"{base}/Properties/ServiceTimeout",
                    f"ServiceTimeout {timeout!r} is not a whole number of seconds from 1 to 3600",
                    "e.g. ServiceTimeout: 300",
                    *_at(timeout, pos),
                    code="cfngen/cr-service-timeout-invalid",
                )
            )
        target = _token_target(
            plain["Resources"][name]["Properties"]["ServiceToken"], plain["Resources"]
        )
        if target and (plain["Resources"].get(target) or {}).get("Type") == "AWS::SNS::Topic":
            target = _subscriber(target, plain["Resources"])  # requests arrive through SNS
        function = plain["Resources"].get(target) if target else None
        if not (isinstance(function, dict) and function.get("Type") in FUNCTION_TYPES):
            add(
                Diagnostic(
                    "warning",
                    f"{base}/Properties/ServiceToken",
                    f"{name}'s ServiceToken names no Lambda function of this template: "
                    "`cfngen test` cannot find the handler",
                    "use !GetAtt Function.Arn, or pass --handler FILE.py:FUNCTION to cfngen test",
                    *_at(properties.get("ServiceToken"), pos),
                    code="cfngen/cr-service-token-unknown-function",
                )
            )
        elif str(timeout).isdigit():
            globals_ = (plain.get("Globals") or {}).get("Function") or {}
            function_timeout = {**globals_, **(function.get("Properties") or {})}.get("Timeout", 3)
            if str(function_timeout).isdigit() and int(str(timeout)) < int(str(function_timeout)):
                add(
                    Diagnostic(
                        "warning",
                        f"{base}/Properties/ServiceTimeout",
                        f"ServiceTimeout {timeout} s is shorter than {target}'s Timeout "
                        f"{function_timeout} s: CloudFormation gives up while it still runs",
                        "make ServiceTimeout at least the function's Timeout",
                        *_at(timeout, pos),
                        code="cfngen/cr-service-timeout-below-function-timeout",
                    )
                )
        found = schemas.of(kind)
        if found is not None:
            _check_properties(report, plain, name, found, pos)
    return report


def _refused_name(kind: str) -> str:
    name = kind.removeprefix("Custom::")
    if len(name) > MAX_TYPE_NAME:
        return (
            f"{kind[:40]!r}... is not a custom resource type name CloudFormation accepts: "
            f"{len(name)} characters after Custom::; CloudFormation takes at most {MAX_TYPE_NAME}"
        )
    return f"{kind!r} is not a custom resource type name CloudFormation accepts"


class _Schemas:
    """The properties schema of each custom type of one template, each read once (a broken one
    is reported when the schema itself is validated, and checks nothing here)."""

    def __init__(self, folder: Path | None, types: set[str]) -> None:
        self.folder = folder
        self.types = types
        self.read: dict[Path, dict[str, Any] | None] = {}
        #: The note that a single-type file applies to no type (several types).
        self.unclaimed = unclaimed(folder, types) if folder is not None else None

    def of(self, type_name: str) -> tuple[str, dict[str, Any]] | None:
        """(the schema's name as messages show it, the schema) of `type_name`, if it has one."""
        if self.folder is None:
            return None
        path = type_files(self.folder, type_name, self.types).schema
        if path is None:
            return None
        if path not in self.read:
            try:
                data = _schema.loads(path.read_text(encoding="utf-8")).data
            except (OSError, ValueError):
                data = None
            self.read[path] = data if isinstance(data, dict) else None
        schema = self.read[path]
        shown = path.relative_to(self.folder).as_posix()
        return None if schema is None else (shown, schema)


def _check_properties(
    report: FileReport,
    plain: dict[str, Any],
    name: str,
    found: tuple[str, dict[str, Any]],
    pos: tuple[int | None, int | None],
) -> None:
    import jsonschema

    from cfngen._kinds._shared._intrinsics import _NO_VALUE, _Resolver
    from cfngen._kinds.custom_resource._inputs import _typed

    raw = {
        k: v
        for k, v in plain["Resources"][name]["Properties"].items()
        if k not in ("ServiceToken", "ServiceTimeout")
    }
    shown, schema = found
    warnings: list[str] = []
    resolver = _Resolver(plain, "us-east-1", warnings)
    resolved = {
        k: v
        for k, v in ((k, resolver.stringify(resolver.resolve(v))) for k, v in raw.items())
        if v is not _NO_VALUE
    }
    try:
        validator = jsonschema.Draft7Validator(schema)
        errors = sorted(validator.iter_errors(_typed(schema, resolved)), key=lambda e: e.path)
    except jsonschema.SchemaError:
        return
    from cfngen._instances import describe

    for error, (where, message) in ((e, found) for e in errors for found in describe(e)):
        placeholder = "cfngen-placeholder" in json.dumps(error.instance)
        report.diagnostics.append(
            Diagnostic(
                "warning" if placeholder else "error",
                f"/Resources/{name}/Properties{where}",
                f"{shown} rejects {name}'s properties: {message}",
                "an intrinsic cfngen cannot resolve offline stands here"
                if placeholder
                else f"fix the property or {shown}",
                *pos,
                code="cfngen/cr-properties-rejected",
            )
        )
