"""`cfngen submit` against botocore's Stubber: moto implements none of the registry calls, so
every AWS call is stubbed, its parameters and order checked, and every wait runs on a fake
clock."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import boto3
import pytest
from botocore.stub import ANY, Stubber

from cfngen._errors import CfngenError, ExitCode
from cfngen._package import (
    Clients,
    Clock,
    SubmitOptions,
    build_package,
    make_clients,
    prepare_configuration,
    submit_package,
)
from cfngen._package._stacks import infrastructure_template
from tests._package_projects import NoPackage, hook, hook_project
from tests.test_init_support import cfngen_argv, cfngen_env, made_once

ROLE_STACK = "acme-svc-widget-role-stack"
INFRA = "CloudFormationManagedUploadInfrastructure"
ROLE_ARN = "arn:aws:iam::123456789012:role/acme-svc-widget-role"
LOG_ROLE = "arn:aws:iam::123456789012:role/log-delivery"
BUCKET = "cfn-managed-bucket"
TYPE_ARN = "arn:aws:cloudformation:us-east-1:123456789012:type/resource/Acme-Svc-Widget"
VERSION_ARN = TYPE_ARN + "/00000001"


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> Clock:
        return Clock(now=lambda: self.now, sleep=self.sleep)

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture(autouse=True)
def hermetic(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "home"))
    for name, value in {
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": str(tmp_path / "no-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no-credentials"),
    }.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def resource(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path):
    made = made_once(tmp_path_factory, "widget", "--type-name", "Acme::Svc::Widget")
    root = tmp_path / "widget"
    shutil.copytree(made, root)
    (root / "requirements.txt").write_text("# nothing to install in these tests\n")
    return build_package(root, write=False)


@pytest.fixture
def stubs():
    cfn = boto3.client("cloudformation", region_name="us-east-1")
    s3 = boto3.client("s3", region_name="us-east-1")
    with Stubber(cfn) as cfn_stub, Stubber(s3) as s3_stub:
        yield Clients(cfn, s3, "us-east-1"), cfn_stub, s3_stub
        cfn_stub.assert_no_pending_responses()
        s3_stub.assert_no_pending_responses()


def stack(name: str, status: str, outputs: dict[str, str] | None = None) -> dict:
    body = {"StackName": name, "CreationTime": "2026-01-01T00:00:00Z", "StackStatus": status}
    if outputs:
        body["Outputs"] = [{"OutputKey": k, "OutputValue": v} for k, v in outputs.items()]
    return {"Stacks": [body]}


def expect_stack_created(cfn_stub, name: str, template: str, outputs: dict[str, str]) -> None:
    cfn_stub.add_response(
        "create_stack",
        {"StackId": f"arn:stack/{name}"},
        {
            "StackName": name,
            "TemplateBody": template,
            "Capabilities": ["CAPABILITY_IAM"],
            "EnableTerminationProtection": True,
        },
    )
    cfn_stub.add_response("describe_stacks", stack(name, "CREATE_IN_PROGRESS"), {"StackName": name})
    cfn_stub.add_response("describe_stacks", stack(name, "CREATE_COMPLETE"), {"StackName": name})
    cfn_stub.add_response(
        "describe_stacks", stack(name, "CREATE_COMPLETE", outputs), {"StackName": name}
    )


def expect_stack_up_to_date(cfn_stub, name: str, template: str, outputs: dict[str, str]) -> None:
    args = {"StackName": name, "TemplateBody": template, "Capabilities": ["CAPABILITY_IAM"]}
    cfn_stub.add_client_error(
        "create_stack",
        "AlreadyExistsException",
        "Stack exists",
        expected_params={**args, "EnableTerminationProtection": True},
    )
    cfn_stub.add_client_error(
        "update_stack", "ValidationError", "No updates are to be performed.", expected_params=args
    )
    cfn_stub.add_response(
        "describe_stacks", stack(name, "UPDATE_COMPLETE", outputs), {"StackName": name}
    )


def expect_upload(s3_stub, bucket: str, data: bytes) -> None:
    s3_stub.add_response("put_object", {}, {"Bucket": bucket, "Key": ANY, "Body": data})


def expect_registration(cfn_stub, request: dict, statuses: list[str]) -> None:
    cfn_stub.add_response("register_type", {"RegistrationToken": "reg-1"}, request)
    for status in statuses:
        body = {"ProgressStatus": status, "Description": "Deployment is currently in progress."}
        if status == "COMPLETE":
            body.update(TypeArn=TYPE_ARN, TypeVersionArn=VERSION_ARN, Description="done")
        if status == "FAILED":
            body["Description"] = "Handler failed to start: Runtime.ImportModuleError."
        cfn_stub.add_response("describe_type_registration", body, {"RegistrationToken": "reg-1"})


def register_request(build, **extra) -> dict:
    request = {
        "Type": "RESOURCE",
        "TypeName": "Acme::Svc::Widget",
        "SchemaHandlerPackage": ANY,
        "ClientRequestToken": "token-1",
    }
    request.update(extra)
    return request


def test_the_official_sequence_with_its_stacks_and_set_default(resource, stubs):
    clients, cfn_stub, s3_stub = stubs
    role_template = (resource.project.root / "resource-role.yaml").read_text()
    expect_stack_created(cfn_stub, ROLE_STACK, role_template, {"ExecutionRoleArn": ROLE_ARN})
    expect_stack_up_to_date(
        cfn_stub,
        INFRA,
        infrastructure_template(),
        {"CloudFormationManagedUploadBucketName": BUCKET, "LogAndMetricsDeliveryRoleArn": LOG_ROLE},
    )
    expect_upload(s3_stub, BUCKET, resource.data)
    logging = {"LogRoleArn": LOG_ROLE, "LogGroupName": "acme-svc-widget-logs"}
    expect_registration(
        cfn_stub,
        register_request(resource, LoggingConfig=logging, ExecutionRoleArn=ROLE_ARN),
        ["IN_PROGRESS", "IN_PROGRESS", "COMPLETE"],
    )
    cfn_stub.add_response("set_type_default_version", {}, {"Arn": VERSION_ARN})
    time, said = FakeTime(), []
    result = submit_package(
        resource,
        clients,
        SubmitOptions(set_default=True),
        say=said.append,
        clock=time.clock(),
        token="token-1",
    )
    assert result.type_version_arn == VERSION_ARN
    assert result.default_set
    assert re.fullmatch(
        rf"s3://{BUCKET}/acme-svc-widget-\d{{4}}-\d\d-\d\dT\d\d-\d\d-\d\d\.zip", result.package_url
    )
    assert time.sleeps == [5.0, 10.0, 10.0]  # one stack poll, two registration polls
    assert f"stack {INFRA} is up to date" in said
    assert said[-1] == f"{VERSION_ARN} is now the default version"


def test_the_template_is_the_official_one_unchanged():
    official = Path(__import__("rpdk.core").core.__file__).parent / "data"
    assert (
        infrastructure_template() == (official / "managed-upload-infrastructure.yaml").read_text()
    )


def test_a_named_bucket_and_no_role_deploy_no_stack(resource, stubs):
    clients, cfn_stub, s3_stub = stubs
    expect_upload(s3_stub, "my-bucket", resource.data)
    expect_registration(cfn_stub, register_request(resource), ["COMPLETE"])
    result = submit_package(
        resource,
        clients,
        SubmitOptions(use_role=False, bucket="my-bucket"),
        clock=FakeTime().clock(),
        token="token-1",
    )
    assert result.package_url.startswith("s3://my-bucket/acme-svc-widget-")


def test_a_given_role_arn_replaces_the_role_stack(resource, stubs):
    clients, cfn_stub, s3_stub = stubs
    expect_upload(s3_stub, "my-bucket", resource.data)
    logging = {"LogRoleArn": LOG_ROLE, "LogGroupName": "acme-svc-widget-logs"}
    expect_registration(
        cfn_stub,
        register_request(resource, LoggingConfig=logging, ExecutionRoleArn="arn:mine"),
        ["COMPLETE"],
    )
    submit_package(
        resource,
        clients,
        SubmitOptions(role_arn="arn:mine", bucket="my-bucket", log_role_arn=LOG_ROLE),
        clock=FakeTime().clock(),
        token="token-1",
    )


def test_a_failed_registration_is_a_sentence_and_exit_1(resource, stubs):
    clients, cfn_stub, s3_stub = stubs
    expect_upload(s3_stub, "b", resource.data)
    expect_registration(cfn_stub, register_request(resource), ["IN_PROGRESS", "FAILED"])
    with pytest.raises(CfngenError) as caught:
        submit_package(
            resource,
            clients,
            SubmitOptions(use_role=False, bucket="b", set_default=True),
            clock=FakeTime().clock(),
            token="token-1",
        )
    assert caught.value.exit_code == ExitCode.FAILED
    assert caught.value.message == (
        "CloudFormation could not register Acme::Svc::Widget: "
        "Handler failed to start: Runtime.ImportModuleError"
    )
    assert "--registration-token reg-1" in caught.value.hint


def test_the_wait_stops_at_the_timeout_and_never_sleeps_past_it(resource, stubs):
    clients, cfn_stub, s3_stub = stubs
    expect_upload(s3_stub, "b", resource.data)
    expect_registration(cfn_stub, register_request(resource), ["IN_PROGRESS"] * 4)
    time = FakeTime()
    with pytest.raises(CfngenError) as caught:
        submit_package(
            resource,
            clients,
            SubmitOptions(use_role=False, bucket="b", timeout=25),
            clock=time.clock(),
            token="token-1",
        )
    assert caught.value.exit_code == ExitCode.FAILED
    assert "still being registered after 25 s" in caught.value.message
    assert time.sleeps == [10.0, 10.0, 5.0]
    assert time.now == 25


def test_a_stack_that_rolls_back_names_the_resource_that_failed(resource, stubs):
    clients, cfn_stub, _ = stubs
    template = (resource.project.root / "resource-role.yaml").read_text()
    cfn_stub.add_response("create_stack", {"StackId": "arn:s"}, None)
    for status in ("CREATE_IN_PROGRESS", "ROLLBACK_IN_PROGRESS", "ROLLBACK_COMPLETE"):
        cfn_stub.add_response(
            "describe_stacks", stack(ROLE_STACK, status), {"StackName": ROLE_STACK}
        )
    event = {
        "StackId": "arn:s",
        "EventId": "e1",
        "StackName": ROLE_STACK,
        "Timestamp": "2026-01-01T00:00:00Z",
        "LogicalResourceId": "ExecutionRole",
        "ResourceStatus": "CREATE_FAILED",
        "ResourceStatusReason": "iam:CreateRole is not authorized",
    }
    cfn_stub.add_response(
        "describe_stack_events", {"StackEvents": [event]}, {"StackName": ROLE_STACK}
    )
    with pytest.raises(CfngenError) as caught:
        submit_package(resource, clients, SubmitOptions(), clock=FakeTime().clock())
    assert caught.value.exit_code == ExitCode.FAILED
    assert caught.value.message == (
        f"stack {ROLE_STACK} ended in ROLLBACK_COMPLETE: "
        "ExecutionRole: iam:CreateRole is not authorized"
    )
    assert template  # the role template was read from the project


def test_a_stack_left_in_rollback_complete_says_to_delete_it(resource, stubs):
    clients, cfn_stub, _ = stubs
    cfn_stub.add_client_error("create_stack", "AlreadyExistsException", "exists")
    cfn_stub.add_client_error(
        "update_stack",
        "ValidationError",
        f"Stack:arn:{ROLE_STACK} is in ROLLBACK_COMPLETE state and can not be updated.",
    )
    with pytest.raises(CfngenError) as caught:
        submit_package(resource, clients, SubmitOptions(), clock=FakeTime().clock())
    assert "delete-stack --stack-name acme-svc-widget-role-stack" in caught.value.hint


@pytest.mark.parametrize(
    ("operation", "code", "exit_code", "words"),
    [
        ("put_object", "AccessDenied", ExitCode.FAILED, "AWS refused uploading s3://b/"),
        ("register_type", "ExpiredToken", ExitCode.USAGE, "AWS refused the credentials"),
        ("register_type", "CFNRegistryException", ExitCode.FAILED, "AWS refused registering"),
    ],
)
def test_aws_errors_are_sentences_with_their_exit_code(  # noqa: PLR0917
    resource, stubs, operation, code, exit_code, words
):
    clients, cfn_stub, s3_stub = stubs
    if operation == "put_object":
        s3_stub.add_client_error("put_object", code, "Access Denied")
    else:
        expect_upload(s3_stub, "b", resource.data)
        cfn_stub.add_client_error("register_type", code, "The message.")
    with pytest.raises(CfngenError) as caught:
        submit_package(
            resource, clients, SubmitOptions(use_role=False, bucket="b"), clock=FakeTime().clock()
        )
    assert caught.value.exit_code == exit_code
    assert caught.value.message.startswith(words)
    assert f"({code})" in caught.value.message


# ---------------------------------------------------------------------- hooks and --configure

HOOK_ARN = "arn:aws:cloudformation:us-east-1:123456789012:type/hook/Acme-Svc-Hook"


def hook_configuration(properties: dict, **envelope) -> dict:
    hook = {"HookInvocationStatus": "ENABLED", "FailureMode": "FAIL", "Properties": properties}
    hook.update(envelope)
    return {"CloudFormationConfiguration": {"HookConfiguration": hook}}


def test_a_hook_is_configured_after_registration(tmp_path, stubs):
    clients, cfn_stub, s3_stub = stubs
    project = hook_project(tmp_path / "hook", "# none\n")
    config = tmp_path / "config.json"
    config.write_text(json.dumps(hook_configuration({"EncryptionAlgorithm": "aws:kms"})))
    build = build_package(hook(project), write=False)
    text = prepare_configuration(build.project, config)
    expect_upload(s3_stub, "b", build.data)
    cfn_stub.add_response("register_type", {"RegistrationToken": "reg-1"}, None)
    cfn_stub.add_response(
        "describe_type_registration",
        {"ProgressStatus": "COMPLETE", "TypeArn": HOOK_ARN, "TypeVersionArn": HOOK_ARN + "/1"},
        None,
    )
    cfn_stub.add_response(
        "set_type_configuration", {}, {"TypeArn": HOOK_ARN, "Configuration": text}
    )
    result = submit_package(
        build,
        clients,
        SubmitOptions(use_role=False, bucket="b"),
        configuration=text,
        clock=FakeTime().clock(),
    )
    assert result.configured
    assert json.loads(text) == json.loads(config.read_text())


@pytest.mark.parametrize(
    ("configuration", "named"),
    [
        (
            hook_configuration({"EncryptionAlgorithm": "DES"}),
            "/CloudFormationConfiguration/HookConfiguration/Properties/EncryptionAlgorithm: "
            '"DES" is not allowed; use one of',
        ),
        (hook_configuration({"Unknown": 1}), "/Properties/Unknown: unknown key 'Unknown'"),
        (
            hook_configuration({"Limits": {"Max": 0}}),
            "/Properties/Limits/Max: must be at least 1, not 0",
        ),
        (
            hook_configuration({}, FailureMode="IGNORE"),
            '/HookConfiguration/FailureMode: "IGNORE" is not allowed',
        ),
        (
            hook_configuration({}, TargetOperations=["STACKS"]),
            '/TargetOperations/0: "STACKS" is not allowed',
        ),
        (
            {"HookConfiguration": {}},
            "/CloudFormationConfiguration: missing required key 'CloudFormationConfiguration'",
        ),
        (
            {"CloudFormationConfiguration": {"HookConfiguration": {"Properties": {}}}},
            "/FailureMode: missing required key 'FailureMode'",
        ),
    ],
)
def test_a_configuration_that_breaks_the_schema_is_refused_before_any_call(
    tmp_path, configuration, named
):
    project = hook_project(tmp_path / "hook", "# none\n")
    config = tmp_path / "config.json"
    config.write_text(json.dumps(configuration))
    with pytest.raises(CfngenError) as caught:
        prepare_configuration(hook(project), config)
    assert caught.value.exit_code == ExitCode.FAILED
    assert named in caught.value.message


def test_a_hook_configuration_over_the_quota_is_refused(tmp_path):
    project = hook_project(tmp_path / "hook", "# none\n")
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(hook_configuration({"EncryptionAlgorithm": "AES256" + " " * 205_000}))
    )
    with pytest.raises(CfngenError) as caught:
        prepare_configuration(hook(project), config)
    assert "204,800 bytes" in caught.value.message


# ---------------------------------------------------------------------- credentials and the CLI


def test_missing_region_or_credentials_are_usage_errors(monkeypatch):
    monkeypatch.delenv("AWS_DEFAULT_REGION")
    with pytest.raises(CfngenError) as caught:
        make_clients(region=None, profile=None, endpoint_url=None)
    assert caught.value.exit_code == ExitCode.USAGE
    assert "region" in caught.value.message
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    with pytest.raises(CfngenError) as caught:
        make_clients(region="us-east-1", profile=None, endpoint_url=None)
    assert caught.value.exit_code == ExitCode.USAGE
    assert caught.value.message == "no AWS credentials found"
    with pytest.raises(CfngenError) as caught:
        make_clients(region="us-east-1", profile="nobody", endpoint_url=None)
    assert caught.value.message == "no AWS profile named 'nobody'"


def test_the_cli_without_credentials_exits_2_before_building(resource, tmp_path):
    root = resource.project.root
    env = cfngen_env(tmp_path, AWS_CONFIG_FILE=str(tmp_path / "none"))
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        env.pop(name, None)
    import subprocess

    result = subprocess.run(
        [*cfngen_argv(), "submit"], cwd=root, env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == ExitCode.USAGE
    assert result.stderr.startswith("cfngen: error: no AWS credentials found")
    assert "Traceback" not in result.stderr
    assert not (root / "acme-svc-widget.zip").exists()
    dry = subprocess.run(
        [*cfngen_argv(), "submit", "--dry-run"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert dry.returncode == 0, dry.stderr
    assert (root / "acme-svc-widget.zip").is_file()


def test_a_kind_the_registry_does_not_take_has_no_package(tmp_path):
    from cfngen._project import Project

    with pytest.raises(CfngenError) as caught:
        build_package(Project(tmp_path, NoPackage(), {}))
    assert caught.value.message == (
        "a Lambda-backed custom resource is not registered with CloudFormation, "
        "so it has no package to build"
    )
    assert caught.value.exit_code == ExitCode.USAGE


def test_a_module_is_registered_as_a_module_without_a_role(tmp_path, stubs):
    from tests._package_projects import module

    root = tmp_path / "stack"
    (root / "fragments").mkdir(parents=True)
    config = {"artifact_type": "MODULE", "typeName": "Acme::Svc::Stack::MODULE"}
    (root / ".rpdk-config").write_text(json.dumps(config))
    (root / "fragments" / "stack.yaml").write_text(
        "Resources:\n  Bucket:\n    Type: AWS::S3::Bucket\n"
    )
    build = build_package(module(root), write=False)
    clients, cfn_stub, s3_stub = stubs
    expect_upload(s3_stub, "b", build.data)
    request = {
        "Type": "MODULE",
        "TypeName": "Acme::Svc::Stack::MODULE",
        "SchemaHandlerPackage": ANY,
        "ClientRequestToken": "token-1",
    }
    expect_registration(cfn_stub, request, ["COMPLETE"])
    result = submit_package(
        build, clients, SubmitOptions(bucket="b"), clock=FakeTime().clock(), token="token-1"
    )
    assert result.package_url.startswith("s3://b/acme-svc-stack-module-")


def test_a_resource_configuration_is_the_properties_object_itself(resource, tmp_path):
    project = resource.project
    schema = json.loads(project.schema_path.read_text())
    config = tmp_path / "config.json"
    config.write_text('{"ApiKey": "k"}')
    with pytest.raises(CfngenError) as caught:
        prepare_configuration(project, config)
    assert caught.value.message == "acme-svc-widget.json declares no typeConfiguration to set"
    schema["typeConfiguration"] = {
        "properties": {"ApiKey": {"type": "string", "minLength": 2}},
        "additionalProperties": False,
    }
    project.schema_path.write_text(json.dumps(schema))
    with pytest.raises(CfngenError) as caught:
        prepare_configuration(project, config)
    assert "/ApiKey: must be at least 2 characters long, not 1" in caught.value.message
    config.write_text('{"ApiKey": "key"}')
    assert json.loads(prepare_configuration(project, config)) == {"ApiKey": "key"}


def test_a_stack_wait_stops_at_the_timeout(resource, stubs):
    clients, cfn_stub, _ = stubs
    cfn_stub.add_response("create_stack", {"StackId": "arn:s"}, None)
    for _ in range(3):
        cfn_stub.add_response(
            "describe_stacks", stack(ROLE_STACK, "CREATE_IN_PROGRESS"), {"StackName": ROLE_STACK}
        )
    time = FakeTime()
    with pytest.raises(CfngenError) as caught:
        submit_package(resource, clients, SubmitOptions(timeout=8), clock=time.clock())
    assert caught.value.exit_code == ExitCode.FAILED
    assert caught.value.message == f"stack {ROLE_STACK} is still CREATE_IN_PROGRESS after 8 s"
    assert time.now == 8  # 5 s, then only the 3 s left
