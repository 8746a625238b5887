"""`cfngen generate` for hooks: offline, without credentials, in projects cfngen made and in
projects the official tool made (the real ones in tests/fixtures/hooks/projects)."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cfngen._errors import CfngenError
from cfngen._generate import generate_project
from cfngen._kinds._shared import _targets

FIXTURES = Path(__file__).parent / "fixtures" / "hooks"
PYENV = Path("/root/.pyenv/versions")


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    """No credentials at all and a private cfngen home: generate must not need either."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", os.devnull)
    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "cfngen-home"))


def copy_fixture(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(FIXTURES / "projects" / name, root)
    return root


def hook_project(tmp_path: Path, schema: dict, *, cfngen_style: bool = False) -> Path:
    """A minimal hook project in the official layout."""
    root = tmp_path / "hook"
    package = root / "src" / "acme_guard_hook"
    package.mkdir(parents=True)
    config = {
        "artifact_type": "HOOK",
        "typeName": "Acme::Guard::Hook",
        "language": "python312",
        "runtime": "python3.12",
        "entrypoint": "acme_guard_hook.handlers.hook",
        "testEntrypoint": "acme_guard_hook.handlers.test_entrypoint",
    }
    (root / ".rpdk-config").write_text(json.dumps(config))
    (root / "acme-guard-hook.json").write_text(
        json.dumps({"typeName": "Acme::Guard::Hook", **schema}, indent=4)
    )
    (package / "__init__.py").write_text("")
    (package / "handlers.py").write_text("")
    if cfngen_style:
        (root / ".copier-answers.yml").write_text("_commit: 0.2.0\n")
    return root


def schema_with(targets: list[str], config: dict | None = None, permissions=()) -> dict:
    return {
        "description": "a hook",
        "typeConfiguration": {"properties": config or {}, "additionalProperties": False},
        "handlers": {
            "preCreate": {"targetNames": targets, "permissions": list(permissions)},
        },
        "additionalProperties": False,
    }


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def load_package(root: Path, package: str, module: str = "handlers"):
    sys.path.insert(0, str(root / "src"))
    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
        del sys.modules[name]
    try:
        return importlib.import_module(f"{package}.{module}")
    finally:
        sys.path.remove(str(root / "src"))


# --------------------------------------------------------------------------- official projects


@pytest.mark.parametrize("name", ["cloudfront-loggingenabled", "s3-bucketversioningenabled"])
def test_official_projects_generate_offline_and_keep_what_their_handlers_use(tmp_path, name):
    root = copy_fixture(tmp_path, name)
    result = generate_project(root)
    assert result.report is not None and result.report.valid
    config = json.loads((root / ".rpdk-config").read_text())
    package = config["entrypoint"].split(".")[0]
    handlers = load_package(root, package)
    models = sys.modules[f"{package}.models"]
    # What handlers written for the official plugin rely on.
    assert models.TypeConfigurationModel._deserialize({}) is None
    assert hasattr(models, "HookHandlerRequest")
    assert callable(handlers.hook) and callable(handlers.test_entrypoint)
    target = next(
        iter(
            _targets.target_names(
                json.loads(
                    root.joinpath(
                        "-".join(config["typeName"].split("::")).lower() + ".json"
                    ).read_text()
                )
            )
        )
    )
    module = importlib.import_module(f"{package}.target_models.{_targets.module_name(target)}")
    assert isinstance(getattr(module, _targets.class_name(target)), type)


def test_a_cfngen_project_gets_a_typed_configuration_that_is_never_none(tmp_path):
    config = {"Mode": {"type": "string"}, "Limit": {"type": "integer"}}
    root = hook_project(tmp_path, schema_with(["AWS::S3::Bucket"], config), cfngen_style=True)
    generate_project(root)
    models = load_package(root, "acme_guard_hook", "models")
    empty = models.TypeConfigurationModel._deserialize({})
    assert empty is not None and empty.Mode is None
    typed = models.TypeConfigurationModel._deserialize({"Mode": "x", "Limit": "5"})
    assert (typed.Mode, typed.Limit) == ("x", 5)


def test_the_target_model_round_trips_a_real_bucket(tmp_path):
    root = hook_project(tmp_path, schema_with(["AWS::S3::Bucket"]))
    generate_project(root)
    load_package(root, "acme_guard_hook")
    module = importlib.import_module("acme_guard_hook.target_models.aws_s3_bucket")
    bucket = {
        "BucketName": "b",
        "Tags": [{"Key": "k", "Value": "v"}],
        "VersioningConfiguration": {"Status": "Enabled"},
        "BucketEncryption": {
            "ServerSideEncryptionConfiguration": [
                {"ServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms"}}
            ]
        },
    }
    model = module.AwsS3Bucket._deserialize(bucket)
    assert model.VersioningConfiguration.Status == "Enabled"
    assert model._serialize() == bucket


def test_the_typed_target_helper_gives_the_model(tmp_path):
    root = hook_project(tmp_path, schema_with(["AWS::S3::Bucket", "STACK"]))
    generate_project(root)
    load_package(root, "acme_guard_hook")
    name = "acme_guard_hook.cfngen_runtime.hooks"
    support = sys.modules.get(name) or importlib.import_module(name)
    from cloudformation_cli_python_lib.utils import UnmodelledHookRequest

    request = UnmodelledHookRequest(
        clientRequestToken="t",
        targetName="AWS::S3::Bucket",
        targetModel={"resourceProperties": {"BucketName": "b"}},
    ).to_modelled()
    assert support.typed_target(request).BucketName == "b"
    stack = UnmodelledHookRequest(
        clientRequestToken="t",
        targetName="STACK",
        targetModel={
            "template": "Resources:\n  B:\n    Type: AWS::S3::Bucket\n"
            "    Properties:\n      BucketName: !Ref Name\n"
        },
    ).to_modelled()
    assert support.stack_template(stack).resources["B"]["Properties"] == {
        "BucketName": {"Ref": "Name"}
    }
    assert support.typed_target(stack) is None


# --------------------------------------------------------------------------- wildcards


def test_a_wildcard_over_every_type_stays_fast_and_small(tmp_path):
    """A module per type would be 1,854 modules and many minutes (docs/benchmarks.md times
    this case): only the table is written."""
    root = hook_project(tmp_path, schema_with(["AWS::*", "STACK"]))
    result = generate_project(root)
    models = sorted((root / "src" / "acme_guard_hook" / "target_models").glob("*.py"))
    assert [p.name for p in models] == ["__init__.py"]
    assert not any(p.parts[0] == "target-schemas" for p in result.written)
    # Besides the runtime library's modules (one file each since it is a package).
    assert len([p for p in result.written if "cfngen_runtime" not in p.parts]) < 15


def test_a_type_matched_by_a_wildcard_gets_a_model_when_the_code_imports_it(tmp_path):
    root = hook_project(tmp_path, schema_with(["AWS::SQS::*"]))
    handlers = root / "src" / "acme_guard_hook" / "handlers.py"
    handlers.write_text("from .target_models.aws_sqs_queue import AwsSqsQueue\n")
    generate_project(root)
    table = (root / "src/acme_guard_hook/target_models/__init__.py").read_text()
    assert '"AWS::SQS::Queue": ("aws_sqs_queue", "AwsSqsQueue")' in table
    assert (root / "src/acme_guard_hook/target_models/aws_sqs_queue.py").is_file()
    assert not (root / "src/acme_guard_hook/target_models/aws_sqs_queuepolicy.py").exists()
    handlers.write_text("")  # the import goes: so does the model
    result = generate_project(root)
    assert Path("src/acme_guard_hook/target_models/aws_sqs_queue.py") in result.removed


def test_the_real_wildcard_hook_models_no_type_it_does_not_import(tmp_path):
    root = copy_fixture(tmp_path, "lambda-invoker")
    generate_project(root)
    folder = root / "src" / "awscommunity_lambda_invoker" / "target_models"
    assert [p.name for p in folder.glob("*.py")] == ["__init__.py"]


# --------------------------------------------------------------------------- target schemas


def test_a_pinned_target_schema_wins_and_stays_the_users(tmp_path):
    root = hook_project(tmp_path, schema_with(["AWS::S3::Bucket"]))
    pinned = _targets.bundled_schema("AWS::S3::Bucket")
    pinned["properties"]["Flavour"] = {"type": "string"}
    (root / "target-schemas").mkdir()
    text = json.dumps(pinned)
    (root / "target-schemas" / "aws-s3-bucket.json").write_text(text)
    generate_project(root)
    module = (root / "src/acme_guard_hook/target_models/aws_s3_bucket.py").read_text()
    assert "Flavour: str | None" in module
    assert (root / "target-schemas" / "aws-s3-bucket.json").read_text() == text


def test_an_edited_copy_of_a_bundled_schema_becomes_the_users_pin(tmp_path):
    root = hook_project(tmp_path, schema_with(["AWS::S3::Bucket"]))
    generate_project(root)
    path = root / "target-schemas" / "aws-s3-bucket.json"
    model = root / "src/acme_guard_hook/target_models/aws_s3_bucket.py"
    pinned = json.loads(path.read_text())
    pinned["properties"]["Flavour"] = {"type": "string"}
    path.write_text(json.dumps(pinned, indent=4))
    result = generate_project(root)
    assert not result.warnings, result.warnings  # not "no longer generated ... delete it"
    assert "Flavour: str | None" in model.read_text()
    assert json.loads(path.read_text()) == pinned
    assert generate_project(root).up_to_date
    path.unlink()  # back to the bundled schema
    generate_project(root)
    assert json.loads(path.read_text()) == _targets.bundled_schema("AWS::S3::Bucket")
    assert "Flavour" not in model.read_text()


def test_the_bundled_schema_is_written_for_the_official_tools(tmp_path):
    root = hook_project(tmp_path, schema_with(["AWS::SQS::Queue"]))
    generate_project(root)
    written = json.loads((root / "target-schemas" / "aws-sqs-queue.json").read_text())
    assert written == _targets.bundled_schema("AWS::SQS::Queue")
    assert "enumCaseInsensitive" not in json.dumps(written)  # cfn-lint's own keywords removed
    assert generate_project(root).up_to_date


def test_a_private_target_without_a_schema_is_a_warning(tmp_path):
    root = hook_project(tmp_path, schema_with(["Acme::Private::Thing"]))
    result = generate_project(root)
    assert any("no schema for the target Acme::Private::Thing" in w for w in result.warnings)


@pytest.mark.parametrize(
    ("path", "text", "message"),
    [
        ("target-schemas/aws-s3-bucket.json", "{broken", "is not valid JSON"),
        ("target-schemas/aws-s3-bucket.json", '{"properties": {}}', "has no typeName"),
        ("target-schemas/aws-s3-bucket.json", "[]", "has no typeName"),
        ("target-info.json", "{broken", "is not valid JSON"),
    ],
)
def test_a_pinned_target_schema_that_is_no_schema_is_refused(tmp_path, path, text, message):
    """The official loader refuses it too; ignoring it would model (and package) the bundled
    schema of a type the user meant to pin."""
    root = hook_project(tmp_path, schema_with(["AWS::S3::Bucket"]))
    generate_project(root)
    (root / path).write_text(text)
    before = snapshot(root)
    with pytest.raises(CfngenError) as error:
        generate_project(root)
    assert error.value.message.startswith(path)
    assert message in error.value.message
    assert snapshot(root) == before


def test_a_target_schema_file_may_hold_a_list_of_schemas(tmp_path):
    """As the official loader reads it (TypeSchemaLoader.load_type_schemas)."""
    root = hook_project(tmp_path, schema_with(["Acme::Private::Thing", "Acme::Private::Other"]))
    (root / "target-schemas").mkdir()
    schemas = [
        {"typeName": name, "properties": {"Flavour": {"type": "string"}}}
        for name in ("Acme::Private::Thing", "Acme::Private::Other")
    ]
    (root / "target-schemas" / "private.json").write_text(json.dumps(schemas))
    result = generate_project(root)
    assert not any("no schema for the target" in w for w in result.warnings)
    for module in ("acme_private_thing", "acme_private_other"):
        text = (root / f"src/acme_guard_hook/target_models/{module}.py").read_text()
        assert "Flavour: str | None" in text


# --------------------------------------------------------------------------- derived files


def test_the_role_is_the_official_hook_role(tmp_path):
    root = hook_project(
        tmp_path,
        schema_with(["STACK"], permissions=["s3:GetObject", "kms:Decrypt", "s3:GetObject"]),
    )
    generate_project(root)
    role = yaml.safe_load((root / "hook-role.yaml").read_text())
    properties = role["Resources"]["ExecutionRole"]["Properties"]
    statement = properties["AssumeRolePolicyDocument"]["Statement"][0]
    assert statement["Principal"]["Service"] == [
        "hooks.cloudformation.amazonaws.com",
        "resources.cloudformation.amazonaws.com",
    ]
    arn = statement["Condition"]["StringLike"]["aws:SourceArn"]["Fn::Sub"]
    assert arn.endswith(":type/hook/Acme-Guard-Hook/*")
    assert properties["MaxSessionDuration"] == 8400
    policy = properties["Policies"][0]["PolicyDocument"]["Statement"][0]
    assert (policy["Effect"], policy["Action"]) == ("Allow", ["kms:Decrypt", "s3:GetObject"])


def test_a_hook_without_permissions_gets_a_role_that_denies_everything(tmp_path):
    root = hook_project(tmp_path, schema_with(["STACK"]))
    generate_project(root)
    role = yaml.safe_load((root / "hook-role.yaml").read_text())
    policy = role["Resources"]["ExecutionRole"]["Properties"]["Policies"][0]
    assert policy["PolicyDocument"]["Statement"][0]["Effect"] == "Deny"


def test_the_sam_template_runs_the_hook_entrypoint(tmp_path):
    root = hook_project(tmp_path, schema_with(["STACK"]))
    generate_project(root)
    template = yaml.safe_load((root / "template.yml").read_text())
    functions = template["Resources"]
    assert functions["TypeFunction"]["Properties"]["Handler"] == "acme_guard_hook.handlers.hook"
    assert "hook" in template["Description"]


def test_the_configuration_schema_is_the_one_cfn_generate_writes(tmp_path):
    config = {"Mode": {"type": "string", "enum": ["a", "b"]}}
    root = hook_project(tmp_path, schema_with(["STACK"], config))
    generate_project(root)
    expected = {
        "properties": config,
        "additionalProperties": False,
        "definitions": {},
        "typeName": "Acme::Guard::Hook",
    }
    path = root / "acme-guard-hook-configuration.json"
    assert json.loads(path.read_text()) == expected
    assert path.read_text() == json.dumps(expected, indent=4) + "\n"


def test_an_invalid_schema_changes_nothing(tmp_path):
    root = hook_project(tmp_path, schema_with(["STACK"]))
    generate_project(root)
    schema = json.loads((root / "acme-guard-hook.json").read_text())
    schema["handlers"]["preCreate"]["permissions"] = ["cloudformation:*"]
    (root / "acme-guard-hook.json").write_text(json.dumps(schema))
    before = snapshot(root)
    with pytest.raises(CfngenError) as error:
        generate_project(root)
    assert error.value.exit_code == 1
    assert snapshot(root) == before


def test_check_reports_drift_and_writes_nothing(tmp_path):
    root = hook_project(tmp_path, schema_with(["STACK"]))
    generate_project(root)
    schema = json.loads((root / "acme-guard-hook.json").read_text())
    schema["handlers"]["preCreate"]["permissions"] = ["s3:GetObject"]
    (root / "acme-guard-hook.json").write_text(json.dumps(schema))
    before = snapshot(root)
    result = generate_project(root, check=True)
    assert Path("hook-role.yaml") in result.drift
    assert snapshot(root) == before


# --------------------------------------------------------------------------- runtimes


SUPPORTED = [v for v in ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13")]


@pytest.mark.parametrize("version", SUPPORTED)
def test_the_support_module_runs_on_every_lambda_python(tmp_path, version):
    """The runtime library's hooks module imports and parses a change set on each runtime a
    project may declare (cloudformation_cli_python_lib replaced by the few names it takes)."""
    found = sorted(PYENV.glob(f"{version}.*"))
    assert found, f"Python {version} is not under {PYENV}"
    python = found[-1] / "bin" / "python"
    lib = tmp_path / "cloudformation_cli_python_lib"
    lib.mkdir()
    (lib / "__init__.py").write_text("")
    (lib / "hook.py").write_text(
        "class Hook:\n    def _invoke_handler(self, *a):\n        raise ValueError('x')\n"
    )
    (lib / "interface.py").write_text(
        "from dataclasses import dataclass\n"
        "class BaseHookHandlerRequest: pass\n"
        "class HandlerErrorCode:\n    NonCompliant = 'NonCompliant'\n"
        "    HandlerInternalFailure = 'HandlerInternalFailure'\n"
        "class OperationStatus:\n    SUCCESS='SUCCESS'\n    FAILED='FAILED'\n"
        "@dataclass\nclass ProgressEvent:\n    status: str\n"
        "    errorCode: object = None\n    message: str = ''\n"
    )
    from cfngen._support import vendored

    for relpath, text in vendored("pkg").items():
        (tmp_path / relpath).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relpath).write_text(text)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    script = (
        "import types, pkg.cfngen_runtime.hooks as h\n"
        "ctx = types.SimpleNamespace(targetName='CHANGE_SET', targetModel={'template': '{}', "
        "'changedResources': [{'action': 'CREATE', 'logicalResourceId': 'B', 'resourceType': "
        "'AWS::S3::Bucket', 'afterContext': '{\"Properties\": {\"BucketName\": \"\"}}'}]})\n"
        "r = types.SimpleNamespace(hookContext=ctx)\n"
        "c = h.change_set(r).changes[0]\n"
        "assert c.properties == {'BucketName': ''}, c\n"
        "e = h.Hook()._invoke_handler(None, r, None, {}, None)\n"
        "assert e.message == 'ValueError: x', e\n"
        "print('ok')\n"
    )
    result = subprocess.run(
        [str(python), "-c", script], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.stdout.strip() == "ok", result.stderr
