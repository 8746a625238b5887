"""`cfngen test` and `cfngen invoke` for a custom resource: the function found as SAM finds it,
run in this process (moto answers its AWS calls, fake credentials), its ResponseURL a local
HTTPS receiver."""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._contract._results import SuiteResult
from cfngen._errors import CfngenError
from cfngen._kinds.custom_resource import INPUTS_FILE, PROPERTIES_SCHEMA
from cfngen._kinds.custom_resource._lambda import Resource, find_resource, routed_output
from cfngen._kinds.custom_resource._protocol import REQUEST_TYPES, Cloud, Exchange
from cfngen._kinds.custom_resource._receiver import Receiver
from cfngen._kinds.custom_resource._tests import TESTS, Case, Failed, Inputs, Skipped
from cfngen._project import Project
from cfngen._render import Paint, plain

if TYPE_CHECKING:
    from cfngen._contract._protocol import Listener
    from cfngen._contract._runner import Runner

#: Seconds an invocation may run when the function's Timeout is longer (--enforce-timeout).
DEFAULT_LIMIT = 30.0
DERIVED_UPDATE_KEY = "CfngenTestRevision"
_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_EC2_METADATA_DISABLED": "true",
}


@contextlib.contextmanager
def _offline(region: str) -> Iterator[None]:
    """Fake credentials, the region, and moto answering every AWS call."""
    from moto import mock_aws

    values = {**_ENV, "AWS_DEFAULT_REGION": region, "AWS_REGION": region}
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        with mock_aws():
            yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def local_cloud(
    project: Project,
    *,
    region: str | None,
    enforce_timeout: float | None,
    template: Path | None,
    resource: str | None,
    handler: str | None,
) -> Iterator[tuple[Cloud, Resource, list[str]]]:
    region = region or "us-east-1"
    found = find_resource(
        project.root, template=template, resource=resource, handler=handler, region=region
    )
    notes = list(found.warnings)
    seconds = found.function.timeout
    limit = enforce_timeout or DEFAULT_LIMIT
    if seconds > limit:
        notes.append(
            f"{found.function.logical_id}'s Timeout is {seconds:g} s: each invocation is given "
            f"{limit:g} s here (--enforce-timeout)"
        )
        seconds = limit
    with _offline(region), Receiver() as receiver, routed_output():
        _warm_up(found.function.code_dir)
        notes.extend(found.function.prepare())
        cloud = Cloud(
            receiver,
            found.function,
            logical_id=found.logical_id,
            resource_type=found.type,
            region=region,
            seconds=seconds,
            service_timeout=found.service_timeout,
        )
        yield cloud, found, notes


_WARM: set[str] = set()
_SERVICE = re.compile(r"""\b(?:client|resource)\(\s*["']([a-z0-9-]+)["']""")


def _warm_up(code_dir: Path) -> None:
    """Load, once per process and before any deadline runs, what a Lambda container has loaded
    before its first request and this process lacks: botocore's data (boto3's first client) and
    moto's backend of each service the function's code names (importing moto's SSM backend
    alone takes seconds, which would otherwise count against the function's Timeout)."""
    services = {"sts"}
    for path in sorted(code_dir.glob("*.py"))[:50]:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            services.update(_SERVICE.findall(path.read_text(encoding="utf-8")))
    for service in sorted(services - _WARM):
        _WARM.add(service)
        with contextlib.suppress(Exception):
            if service == "sts":
                import boto3

                boto3.client("sts").get_caller_identity()
            else:
                from moto.backends import get_backend

                get_backend(service)  # type: ignore[call-overload]


# --------------------------------------------------------------------------- inputs


def _strings(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, list):
        return [_strings(v) for v in value]
    if isinstance(value, dict):
        return {k: _strings(v) for k, v in value.items()}
    return value


def load_inputs(root: Path, resource: Resource) -> Inputs:
    """Create properties from the template (or the inputs file), update ones from the inputs
    file or derived, invalid ones from the inputs file or the properties schema."""
    from cfngen import _schema

    token = {"ServiceToken": resource.properties["ServiceToken"]}
    given: dict[str, Any] = {}
    path = root / INPUTS_FILE
    if path.is_file():
        given = _schema.load_object(
            path, 'write {"create": {...}, "update": {...}, "replace": {...}, "invalid": {...}}'
        )
        unknown = sorted(set(given) - {"create", "update", "replace", "invalid"})
        if unknown:
            raise CfngenError(
                f"{path}: unknown keys {', '.join(unknown)}",
                "use create, update, replace and invalid",
            )
        for key, value in given.items():
            if not isinstance(value, dict):
                raise CfngenError(f"{path}: {key} must be an object of properties", "fix it")

    def properties(key: str) -> dict[str, Any] | None:
        value = given.get(key)
        return None if value is None else {**_strings(value), **token}

    notes: list[str] = []
    create = properties("create") or dict(resource.properties)
    schema_path = root / PROPERTIES_SCHEMA
    schema = (
        _schema.load_object(schema_path, f"fix {PROPERTIES_SCHEMA}")
        if schema_path.is_file()
        else None
    )
    update = properties("update")
    if update is None and schema is not None and schema.get("additionalProperties") is False:
        update = dict(create)
        notes.append(
            f"no update properties, and {PROPERTIES_SCHEMA} allows no other property: the "
            f'in-place update sends the create ones again; name real ones under "update" in '
            f"{INPUTS_FILE}"
        )
    elif update is None:
        update = {**create, DERIVED_UPDATE_KEY: "2"}
        notes.append(
            f"update properties derived (the create ones plus {DERIVED_UPDATE_KEY}); name "
            f'real ones under "update" in {INPUTS_FILE}'
        )
    inputs = Inputs(create=create, update=update, replace=properties("replace"), notes=notes)
    invalid = properties("invalid")
    if invalid is None and schema is not None:
        invalid = invalid_properties(schema, create)
        if invalid is None:
            inputs.why_no_invalid = (
                f"no property of {PROPERTIES_SCHEMA} can be made invalid (no required, enum, "
                f'pattern or typed property); name invalid ones under "invalid" in {INPUTS_FILE}'
            )
        else:
            invalid = {**invalid, **token}
    elif invalid is None and schema is None:
        inputs.why_no_invalid = (
            f'no {PROPERTIES_SCHEMA} and no "invalid" properties in {INPUTS_FILE}: nothing '
            "makes the handler fail"
        )
    inputs.invalid = invalid
    return inputs


def invalid_properties(
    schema: Mapping[str, Any], valid: Mapping[str, Any]
) -> dict[str, Any] | None:
    """Properties the schema rejects, close to `valid`: a required one left out, else one
    given a value its enum, pattern or type refuses."""
    import jsonschema

    def rejected(candidate: dict[str, Any]) -> bool:
        try:
            jsonschema.validate(_typed(schema, candidate), schema)
        except jsonschema.ValidationError:
            return True
        except jsonschema.SchemaError:
            return False
        return False

    base = {k: v for k, v in valid.items() if k != "ServiceToken"}
    required = schema.get("required")
    for name in required if isinstance(required, list) else []:
        candidate = {k: v for k, v in base.items() if k != name}
        if rejected(candidate):
            return candidate
    properties = schema.get("properties")
    for name, body in (properties if isinstance(properties, dict) else {}).items():
        if not isinstance(body, dict):
            continue
        for value in ("cfngen-invalid-value", "-1", "not a number", ""):
            candidate = {**base, name: value}
            if rejected(candidate):
                return candidate
    return None


def _typed(schema: Mapping[str, Any], properties: Mapping[str, Any]) -> dict[str, Any]:
    """CloudFormation's strings as the schema's types, where they read as such."""
    declared = schema.get("properties")
    out: dict[str, Any] = {}
    for key, value in properties.items():
        body = declared.get(key) if isinstance(declared, dict) else None
        kind = body.get("type") if isinstance(body, dict) else None
        out[key] = _coerce(value, kind)
    return out


def _coerce(value: Any, kind: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        if kind == "integer":
            return int(value)
        if kind == "number":
            return float(value)
    except ValueError:
        return value
    if kind == "boolean" and value in ("true", "false"):
        return value == "true"
    return value


# --------------------------------------------------------------------------- test


@dataclass
class CrSuiteResult(SuiteResult):
    """A SuiteResult that fails when no test ran: every test skipped proves nothing."""

    @property
    def ok(self) -> bool:
        return self.count("failed") == 0 and self.count("passed") > 0


def run_tests(
    project: Project,
    *,
    keyword: str | None = None,
    enforce_timeout: float | None = None,
    region: str | None = None,
    template: Path | None = None,
    resource: str | None = None,
    handler: str | None = None,
    on_result: Callable[[Any], None] | None = None,
) -> CrSuiteResult:
    from cfngen._contract._results import TestResult
    from cfngen._contract._select import compile_expression

    started = time.perf_counter()
    select = compile_expression(keyword or "")
    plan = [(name, test) for name, test in TESTS if select(name)]
    if not plan:
        raise CfngenError(
            f"-k {keyword!r} selects none of the tests",
            "test names are: " + ", ".join(name for name, _ in TESTS),
        )
    result = CrSuiteResult()
    with local_cloud(
        project,
        region=region,
        enforce_timeout=enforce_timeout,
        template=template,
        resource=resource,
        handler=handler,
    ) as (cloud, found, notes):
        inputs = load_inputs(project.root, found)
        result.notes.extend(notes + inputs.notes)
        for name, test in plan:
            began = time.perf_counter()
            case = Case(cloud, inputs)
            try:
                test(case)
            except Failed as failure:
                outcome = TestResult(name, "failed", str(failure), 0.0)
            except Skipped as skipped:
                outcome = TestResult(name, "skipped", str(skipped), 0.0)
            else:
                outcome = TestResult(name, "passed", None, 0.0)
            outcome.seconds = time.perf_counter() - began
            result.tests.append(outcome)
            if on_result is not None:
                on_result(outcome)
    result.seconds = time.perf_counter() - started
    if not result.count("passed") and not result.count("failed"):
        result.notes.append("no test ran: every test was skipped (the reasons are above)")
    return result


# --------------------------------------------------------------------------- invoke


@dataclass
class CrInvocation:
    """`cfngen invoke` for a custom resource: the one exchange, rendered."""

    exchange: Exchange
    warnings: list[str] = field(default_factory=list)

    @property
    def succeeded(self) -> bool:
        return self.exchange.status == "SUCCESS" and not self.exchange.problems

    @property
    def verdict(self) -> str:
        if self.exchange.problems:
            return f"{len(self.exchange.problems)} protocol rule(s) broken"
        return f"{self.exchange.event['RequestType']} answered {self.exchange.status}"

    def render(self, paint: Paint = plain) -> str:
        lines = [paint("request:", "bold")]
        shown = {k: v for k, v in self.exchange.event.items() if k != "ResponseURL"}
        lines += ["  " + line for line in json.dumps(shown, indent=2).splitlines()]
        if self.exchange.invocation.output.strip():
            lines.append(paint("handler output:", "bold"))
            lines += [
                "  | " + line for line in self.exchange.invocation.output.rstrip().splitlines()
            ]
        lines.append(paint("response CloudFormation receives:", "bold"))
        if not self.exchange.bodies:
            lines.append("  (none)")
        for body in self.exchange.bodies:
            text = json.dumps(body, indent=2) if isinstance(body, dict) else repr(body)
            lines += ["  " + line for line in text.splitlines()]
        for problem in self.exchange.problems:
            lines.append(paint("protocol: " + problem, "error"))
        return "\n".join(lines) + "\n"


def pairs(items: list[str] | None, flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise CfngenError(f"{flag} {item!r} is not K=V", f"e.g. {flag} BucketName=my-bucket")
        out[name.strip()] = value
    return out


def request_type(action: str) -> str:
    for kind in REQUEST_TYPES:
        if action.lower() == kind.lower():
            return kind
    raise CfngenError(f"unknown request type {action!r}", "use Create, Update or Delete")


def invoke(
    project: Project,
    action: str,
    request_file: Path | None,
    *,
    region: str | None = None,
    enforce_timeout: float | None = None,
    template: Path | None = None,
    resource: str | None = None,
    handler: str | None = None,
    property: list[str] | None = None,  # the flag's name, --property
    old_property: list[str] | None = None,
    physical_id: str | None = None,
    on_warning: Callable[[str], None] | None = None,
) -> CrInvocation:
    from cfngen import _schema

    kind = request_type(action)
    with local_cloud(
        project,
        region=region,
        enforce_timeout=enforce_timeout,
        template=template,
        resource=resource,
        handler=handler,
    ) as (cloud, found, notes):
        token = {"ServiceToken": found.properties["ServiceToken"]}
        file_event: dict[str, Any] = {}
        if request_file is not None:
            file_event = _schema.load_object(
                request_file,
                "write a custom resource request (RequestType, ResourceProperties, ...) or "
                "the properties alone",
            )
            if "ResourceProperties" not in file_event and "RequestType" not in file_event:
                file_event = {"ResourceProperties": file_event}
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
        elif old_property:
            raise CfngenError("--old-property is only for Update", "leave it out")
        given_id = physical_id or file_event.get("PhysicalResourceId")
        if kind != "Create" and not given_id:
            raise CfngenError(f"a {kind} needs the resource's physical id", "pass --physical-id ID")
        if kind == "Create" and given_id:
            notes.append("a Create carries no PhysicalResourceId: --physical-id is ignored")
            given_id = None
        event = cloud.request(
            kind,
            props,
            old_properties=old,
            physical_id=str(given_id) if given_id else None,
            request_id=file_event.get("RequestId")
            if isinstance(file_event.get("RequestId"), str)
            else None,
        )
        for note in notes:
            if on_warning is not None:
                on_warning(note)
        exchange = cloud.send(event)
    return CrInvocation(exchange, notes)


class CustomResourceContract:
    """What cfngen/_contract asks of a kind: `invoke` and `run_tests`."""

    #: `cfngen invoke Create` needs no request file: the template has the properties.
    request_optional = True
    #: Options beyond the engine's own that these functions take.
    options = (
        "template",
        "resource",
        "handler",
        "property",
        "old_property",
        "physical_id",
    )

    def invoke(
        self,
        runner: Runner,
        action: str,
        request_file: Path | None,
        listener: Listener,
        **options: Any,
    ) -> CrInvocation:
        settings = runner.settings
        if settings.profile is not None:
            raise CfngenError(
                "--profile does not apply to a custom resource",
                "cfngen runs custom resources offline only; leave it out",
            )
        # One request, answered once: no re-invocation, so max_reinvoke, max_invocations and
        # max_delay have nothing to count.
        result = invoke(
            runner.project,
            action,
            request_file,
            region=settings.region,
            enforce_timeout=settings.enforce_timeout,
            on_warning=listener.on_warning,
            **options,
        )
        if listener.on_invocation is not None:
            listener.on_invocation(result)  # type: ignore[arg-type]
        return result

    def run_tests(self, runner: Runner, listener: Listener, **options: Any) -> CrSuiteResult:
        for key in ("property", "old_property", "physical_id"):
            if options.pop(key, None):
                raise CfngenError(
                    f"--{key.replace('_', '-')} is for `cfngen invoke`", "leave it out"
                )
        settings = runner.settings
        return run_tests(
            runner.project,
            keyword=settings.keyword,
            enforce_timeout=settings.enforce_timeout,
            region=settings.region,
            on_result=listener.on_result,
            **options,
        )


CONTRACT = CustomResourceContract()
