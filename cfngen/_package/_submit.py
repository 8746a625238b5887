"""`cfngen submit`: upload the package and register it, saying what happens while it waits.

The sequence is the official `cfn submit`'s (cloudformation-cli 0.2.41, Project._upload and
_wait_for_registration): the execution-role stack from the role template (unless --role-arn or
--no-role), the managed upload infrastructure stack (unless --bucket), an S3 upload,
RegisterType, waiting on DescribeTypeRegistration, then SetTypeDefaultVersion with
--set-default. Unlike it, the wait has a --timeout, registry errors are sentences, and a hook
can be configured (SetTypeConfiguration) in the same run.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError, ExitCode
from cfngen._package import _stacks
from cfngen._package._aws import Clients, Clock, aws_call, duration
from cfngen._package._build import BuildResult, file_set_for
from cfngen._package._configure import read_configuration
from cfngen._package._layout import configuration_schema_of, registered_name
from cfngen._package._layout import hyphenated as hyphenated_name
from cfngen._project import Project
from cfngen._schema import load_object

#: The official tool polls every 30 s; registration usually takes a few minutes.
REGISTRATION_POLL = 10.0
#: How often a long wait says it is still waiting.
_REPORT_EVERY = 30.0

Say = Callable[[str], None]


@dataclass(frozen=True)
class SubmitOptions:
    role_arn: str | None = None
    #: False for --no-role: register without an execution role.
    use_role: bool = True
    set_default: bool = False
    #: Upload here instead of the managed upload infrastructure's bucket.
    bucket: str | None = None
    #: The role CloudFormation delivers the handlers' logs with (default: the managed one).
    log_role_arn: str | None = None
    timeout: float = 3600.0


@dataclass(frozen=True)
class SubmitResult:
    type_arn: str
    type_version_arn: str
    package_url: str
    registration_token: str
    default_set: bool
    configured: bool


def prepare_configuration(project: Project, path: Path) -> str:
    """The `--configure` file as SetTypeConfiguration takes it, checked against the
    extension's configuration schema before anything is built or uploaded."""
    configuration = file_set_for(project).configuration
    if configuration is None:
        raise CfngenError(
            f"a {project.kind.label} has no type configuration", "leave out --configure"
        )
    schema = configuration_schema_of(project)
    if schema is None:
        raise CfngenError(
            f"{project.schema_path.name} declares no typeConfiguration to set",
            "add one to the schema, or leave out --configure",
        )
    return read_configuration(path, configuration, schema)


def submit_package(
    build: BuildResult,
    clients: Clients,
    options: SubmitOptions,
    *,
    configuration: str | None = None,
    say: Say = lambda message: None,
    clock: Clock | None = None,
    token: str | None = None,
) -> SubmitResult:
    """Register `build`; raises CfngenError (exit 1) when registration fails or times out."""
    clock = clock or Clock()
    cfn, project = clients.cloudformation, build.project
    type_name = registered_name(project)
    hyphenated = hyphenated_name(project)
    role_arn = options.role_arn
    if options.use_role and not role_arn and _has_handlers(build):
        template = build.file_set.role_template
        assert template is not None  # kinds with handlers declare their role template
        role_arn = _execution_role(
            cfn, project.root / template, hyphenated, say=say, clock=clock, timeout=options.timeout
        )

    bucket, log_role = options.bucket, options.log_role_arn
    if bucket is None:
        outputs = _stacks.deploy(
            cfn,
            _stacks.INFRA_STACK,
            _stacks.infrastructure_template(),
            say=say,
            clock=clock,
            timeout=options.timeout,
        )
        bucket = _stacks.output(outputs, _stacks.BUCKET_OUTPUT, _stacks.INFRA_STACK)
        log_role = log_role or _stacks.output(outputs, _stacks.LOG_ROLE_OUTPUT, _stacks.INFRA_STACK)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H-%M-%S")
    key = f"{hyphenated}-{stamp}.zip"
    url = f"s3://{bucket}/{key}"
    aws_call(f"uploading {url}", clients.s3.put_object, Bucket=bucket, Key=key, Body=build.data)
    say(f"uploaded {build.path.name} to {url}")

    request: dict[str, Any] = {
        "Type": build.file_set.registry_type,
        "TypeName": type_name,
        "SchemaHandlerPackage": url,
        "ClientRequestToken": token or str(uuid.uuid4()),
    }
    if log_role:
        request["LoggingConfig"] = {"LogRoleArn": log_role, "LogGroupName": f"{hyphenated}-logs"}
    if role_arn and options.use_role:
        request["ExecutionRoleArn"] = role_arn
    registration = aws_call(f"registering {type_name}", cfn.register_type, **request)
    registration_token = str(registration["RegistrationToken"])
    say(f"registering {type_name} (registration token {registration_token})")
    done = _wait_for_registration(
        cfn, registration_token, type_name, say=say, clock=clock, timeout=options.timeout
    )
    type_arn, version_arn = str(done.get("TypeArn", "")), str(done.get("TypeVersionArn", ""))
    say(f"registered {version_arn}")

    if options.set_default:
        aws_call(
            f"making {version_arn} the default version",
            cfn.set_type_default_version,
            Arn=version_arn,
        )
        say(f"{version_arn} is now the default version")
    if configuration is not None:
        aws_call(
            f"configuring {type_name}",
            cfn.set_type_configuration,
            TypeArn=type_arn,
            Configuration=configuration,
        )
        say(f"set the type configuration of {type_arn}")
    return SubmitResult(
        type_arn,
        version_arn,
        url,
        registration_token,
        options.set_default,
        configuration is not None,
    )


def _has_handlers(build: BuildResult) -> bool:
    if build.file_set.role_template is None:
        return False
    schema = load_object(build.project.schema_path, "fix the schema")
    return bool(schema.get("handlers"))


def _execution_role(
    cfn: Any, template_path: Path, hyphenated: str, *, say: Say, clock: Clock, timeout: float
) -> str:
    try:
        template = template_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CfngenError(
            f"{template_path}: no such file; it defines the handlers' execution role",
            "run `cfngen generate`, or pass --role-arn (or --no-role)",
        ) from None
    name = _stacks.role_stack_name(hyphenated)
    outputs = _stacks.deploy(cfn, name, template, say=say, clock=clock, timeout=timeout)
    return _stacks.output(outputs, _stacks.ROLE_OUTPUT, name)


def _wait_for_registration(
    cfn: Any, token: str, type_name: str, *, say: Say, clock: Clock, timeout: float
) -> dict[str, Any]:
    start = clock.now()
    reported = start
    while True:
        response = aws_call(
            f"reading the registration of {type_name}",
            cfn.describe_type_registration,
            RegistrationToken=token,
        )
        status = response.get("ProgressStatus")
        elapsed = clock.now() - start
        if status == "COMPLETE":
            say(f"registration complete after {duration(elapsed)}")
            return dict(response)
        if status == "FAILED":
            description = str(response.get("Description") or "no reason given").rstrip(".")
            raise CfngenError(
                f"CloudFormation could not register {type_name}: {description}",
                "fix what it names and submit again (`aws cloudformation "
                f"describe-type-registration --registration-token {token}` shows the same)",
                exit_code=ExitCode.FAILED,
            )
        if elapsed >= timeout:
            raise CfngenError(
                f"{type_name} is still being registered after {duration(timeout)}: "
                "cfngen stopped waiting, CloudFormation did not stop registering",
                "see how it ends with `aws cloudformation describe-type-registration "
                f"--registration-token {token}`, or wait longer with --timeout",
                exit_code=ExitCode.FAILED,
            )
        if clock.now() - reported >= _REPORT_EVERY:
            say(f"still registering {type_name} ({status}, {duration(elapsed)})")
            reported = clock.now()
        clock.sleep(min(REGISTRATION_POLL, max(timeout - elapsed, 0.0)))
