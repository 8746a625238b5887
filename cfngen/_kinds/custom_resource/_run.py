"""`cfngen test` and `cfngen invoke` for a custom resource (its `ContractProtocol`): the
function found as SAM finds it and run by cfngen/_contract's runner (`runner.open(Source(...))`:
moto answers its AWS calls, fake credentials; each call under the function's Timeout, its
output captured, in the runner's worker process), its ResponseURL a local HTTPS receiver opened
inside each unit of work."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._contract._call import Invocation
from cfngen._contract._entrypoint import Source
from cfngen._contract._isolate import ChildExit
from cfngen._contract._loop import Outcome
from cfngen._contract._protocol import Listener, Settings
from cfngen._contract._results import InvokeResult, SuiteResult, TestResult, run_test
from cfngen._errors import CfngenError, ExitCode
from cfngen._kinds.custom_resource import INPUTS_FILE, PROPERTIES_SCHEMA
from cfngen._kinds.custom_resource._protocol import (
    REQUEST_TYPES,
    STATUS_KEY,
    STATUSES,
    Cloud,
    Exchange,
)
from cfngen._kinds.custom_resource._receiver import certificate
from cfngen._kinds.custom_resource._template import Resource, find_resource
from cfngen._kinds.custom_resource._tests import TESTS, Case, Inputs
from cfngen._project import Project
from cfngen._render import Paint, plain

if TYPE_CHECKING:
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
    """Fake credentials, the region, and moto answering every AWS call (the first import of
    the handler, before the runner opens)."""
    import os

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
def opened(
    runner: Runner,
    *,
    template: Path | None,
    resource: str | None,
    handler: str | None,
) -> Iterator[tuple[Cloud, Resource, list[str]]]:
    """The function found and the runner opened on it (`Cloud.runner` None when the function
    cannot be imported: every request then fails as Lambda's init phase does)."""
    settings = runner.settings
    region = settings.region or "us-east-1"
    found = find_resource(
        runner.project.root, template=template, resource=resource, handler=handler, region=region
    )
    function = found.function
    notes = list(found.warnings)
    seconds = function.timeout
    limit = settings.enforce_timeout or DEFAULT_LIMIT
    if seconds > limit:
        notes.append(
            f"{function.logical_id}'s Timeout is {seconds:g} s: each invocation is given "
            f"{limit:g} s here (--enforce-timeout)"
        )
        seconds = limit
    with _offline(region):
        notes.extend(function.prepare())
    cloud = functools.partial(
        Cloud,
        function=function,
        logical_id=found.logical_id,
        resource_type=found.type,
        region=region,
        seconds=seconds,
        service_timeout=found.service_timeout,
    )
    if function.init_error is not None:
        yield cloud(None), found, notes
        return
    with function.on_path(), runner.open(Source(function.code_dir, function.source)):
        # Before the worker forks: loaded once, not inside any deadline.
        _warm_up(function.code_dir)
        certificate()
        yield cloud(runner), found, notes


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


def _run_tests(
    runner: Runner,
    listener: Listener,
    *,
    template: Path | None = None,
    resource: str | None = None,
    handler: str | None = None,
) -> SuiteResult:
    from cfngen._contract._select import compile_expression

    started = time.perf_counter()
    keyword = runner.settings.keyword
    select = compile_expression(keyword or "")
    plan = [(name, test) for name, test in TESTS if select(name)]
    if not plan:
        raise CfngenError(
            f"-k {keyword!r} selects none of the tests",
            "test names are: " + ", ".join(name for name, _ in TESTS),
        )
    # Every test skipped proves nothing: the run fails.
    result = SuiteResult(needs_a_test=True)
    with opened(runner, template=template, resource=resource, handler=handler) as (
        cloud,
        found,
        notes,
    ):
        inputs = load_inputs(runner.project.root, found)
        result.notes.extend(notes + inputs.notes)

        def unit(name: str, test: Callable[[Case], None]) -> TestResult:
            with cloud.receiving() if cloud.runner is not None else contextlib.nullcontext():
                return run_test(name, lambda: test(Case(cloud, inputs)))

        def done(index: int, found: TestResult | ChildExit) -> None:
            if isinstance(found, ChildExit):
                found = TestResult(
                    plan[index][0],
                    "failed",
                    f"one-response: the function's process ended ({found.how}) before it "
                    "answered: a handler answers through its ResponseURL and returns; never "
                    "os._exit or sys.exit",
                    0.0,
                )
            result.tests.append(found)
            if listener.on_result is not None:
                listener.on_result(found)

        units = [functools.partial(unit, name, test) for name, test in plan]
        if cloud.runner is None:  # nothing is called: no worker needed
            for index, work in enumerate(units):
                done(index, work())
        else:
            # Each test in a fresh container: moto emptied, the function imported again.
            runner.each(units, done, fresh=True)
    result.seconds = time.perf_counter() - started
    if not result.ran:
        result.notes.append("no test ran: every test was skipped (the reasons are above)")
    return result


def run_tests(
    project: Project,
    *,
    keyword: str | None = None,
    enforce_timeout: float | None = None,
    region: str | None = None,
    template: Path | None = None,
    resource: str | None = None,
    handler: str | None = None,
    on_result: Callable[[TestResult], None] | None = None,
) -> SuiteResult:
    """`cfngen test` on a loaded project (what `run_contract_tests` does with a folder)."""
    from cfngen._contract._runner import Runner

    settings = Settings(region=region, enforce_timeout=enforce_timeout, keyword=keyword)
    return CONTRACT.run_tests(
        Runner(project, CONTRACT, settings),
        Listener(on_result=on_result),
        template=template,
        resource=resource,
        handler=handler,
    )


# --------------------------------------------------------------------------- invoke


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


def request_type(action: str) -> str:
    for kind in REQUEST_TYPES:
        if action.lower() == kind.lower():
            return kind
    raise CfngenError(f"unknown request type {action!r}", "use Create, Update or Delete")


def _invoke(
    runner: Runner,
    action: str,
    request_file: Path | None,
    listener: Listener,
    *,
    template: Path | None = None,
    resource: str | None = None,
    handler: str | None = None,
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
        if "ResourceProperties" not in file_event and "RequestType" not in file_event:
            file_event = {"ResourceProperties": file_event}
    if kind != "Update" and old_property:
        raise CfngenError("--old-property is only for Update", "leave it out")
    given_id = physical_id or file_event.get("PhysicalResourceId")
    if kind != "Create" and not given_id:
        raise CfngenError(f"a {kind} needs the resource's physical id", "pass --physical-id ID")
    with opened(runner, template=template, resource=resource, handler=handler) as (
        cloud,
        found,
        notes,
    ):
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
                    "returns: never call os._exit or sys.exit",
                    exit_code=ExitCode.FAILED,
                ) from None
    invocation = as_invocation(exchange)
    if listener.on_invocation is not None:
        listener.on_invocation(invocation)
    succeeded = exchange.status == "SUCCESS" and not exchange.problems
    return InvokeResult(Outcome(kind, [invocation]), verdict(exchange), succeeded, notes)


class CustomResourceContract:
    """The custom resource protocol (a `ContractProtocol`): a plain `handler(event, context)`
    found in the template, answering through the body it PUTs to its ResponseURL."""

    label = "custom resource function"
    #: `cfngen invoke Create` needs no request file: the template has the properties.
    request_optional = True
    #: Options beyond the runner's own that these functions take.
    options: tuple[str, ...] = (
        "template",
        "resource",
        "handler",
        "property",
        "old_property",
        "physical_id",
    )
    status_key = STATUS_KEY
    in_progress: str | None = None
    statuses = STATUSES
    #: No error codes: a FAILED response says why in its Reason.
    error_codes: frozenset[str] = frozenset()
    session_module: str | None = None

    def adapt(self, entrypoint: Any) -> None:
        pass

    def invoke(
        self,
        runner: Runner,
        action: str,
        request_file: Path | None,
        listener: Listener,
        **options: Any,
    ) -> InvokeResult:
        return _invoke(runner, action, request_file, listener, **options)

    def run_tests(self, runner: Runner, listener: Listener, **options: Any) -> SuiteResult:
        for key in ("property", "old_property", "physical_id"):
            if options.pop(key, None):
                raise CfngenError(
                    f"--{key.replace('_', '-')} is for `cfngen invoke`", "leave it out"
                )
        return _run_tests(runner, listener, **options)


CONTRACT = CustomResourceContract()
