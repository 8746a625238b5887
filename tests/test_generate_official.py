"""`cfngen generate` inside projects made by the official `cfn init`, which must keep working
with the official toolchain (`cfn validate`, `cfn submit --dry-run`) afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cfngen._files._ownership import MARKER
from cfngen._generate import generate_project
from tests._generate_helpers import snapshot_tree

BIN = Path(sys.executable).parent
TYPE_NAME = "Acme::Test::Widget"
PACKAGE = "acme_test_widget"

pytestmark = pytest.mark.oracle


def cfn(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "cfn"), *args], cwd=cwd, capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def cfn_init_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cfn-init")
    result = cfn("init", "-t", TYPE_NAME, "-a", "RESOURCE", "python312", "--no-docker", cwd=root)
    assert result.returncode == 0, result.stderr
    (root / "rpdk.log").unlink(missing_ok=True)
    return root


@pytest.fixture
def official(cfn_init_template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(cfn_init_template, root)
    return root


def test_takes_over_what_the_official_tool_generated(official):
    """cfn init already ran cfn generate: its models, role, docs and placeholder inputs are
    derived files the official tool itself overwrites, so cfngen replaces them."""
    handlers = official / "src" / PACKAGE / "handlers.py"
    before = handlers.read_bytes()
    result = generate_project(official)
    written = {p.as_posix() for p in result.written}
    assert {
        f"src/{PACKAGE}/models.py",
        "resource-role.yaml",
        "docs/README.md",
        "example_inputs/inputs_1_create.json",
    } <= written
    assert handlers.read_bytes() == before
    assert MARKER in (official / f"src/{PACKAGE}/models.py").read_text().splitlines()[0]


def test_the_official_sam_template_keeps_codeuri_build_and_says_why(official, capsys):
    """The official build flow packages build/; cfngen does not silently point it elsewhere."""
    from cfngen._cli import main

    template = official / "template.yml"
    before = template.read_bytes()
    assert b"CodeUri: build/" in before
    assert main(["generate", str(official)]) == 0
    assert template.read_bytes() == before
    err = capsys.readouterr().err
    [line] = [line for line in err.splitlines() if "template.yml" in line]
    assert "left template.yml alone" in line and "CodeUri: build/" in line and "cfn init" in line


def test_an_edited_official_sam_template_stays_the_users(official):
    template = official / "template.yml"
    template.write_text(template.read_text() + "      Environment:\n        Variables: {}\n")
    result = generate_project(official)
    assert [p.as_posix() for p in result.skipped] == ["template.yml"]
    assert "Environment" in template.read_text()


def test_user_written_docs_and_inputs_stay_the_users(official):
    (official / "docs" / "README.md").write_text("# Our own notes\n")
    (official / "example_inputs" / "inputs_1_create.json").write_text('{"Title": "real"}\n')
    result = generate_project(official)
    assert {p.as_posix() for p in result.skipped} == {
        "docs/README.md",
        "example_inputs/inputs_1_create.json",
        "template.yml",
    }


def set_runtime(root: Path, runtime: str, language: str) -> None:
    config = json.loads((root / ".rpdk-config").read_text())
    config["runtime"], config["language"] = runtime, language
    (root / ".rpdk-config").write_text(json.dumps(config, indent=4) + "\n")


def test_official_toolchain_accepts_python314_recorded_as_python312(official):
    """The official plugin knows python38..python312 only: a newer runtime keeps
    `"language": "python312"` and records the real runtime, which ends up in the package."""
    import zipfile

    set_runtime(official, "python3.14", "python312")
    assert cfn("validate", cwd=official).returncode == 0
    result = cfn("submit", "--dry-run", cwd=official)
    assert result.returncode == 0, result.stderr[-2000:]
    with zipfile.ZipFile(official / "acme-test-widget.zip") as package:
        config = json.loads(package.read(".rpdk-config"))
    assert (config["runtime"], config["language"]) == ("python3.14", "python312")


def test_official_toolchain_rejects_an_unknown_language(official):
    set_runtime(official, "python3.13", "python313")
    assert cfn("validate", cwd=official).returncode != 0


def call_handler(root: Path, action: str) -> dict:
    """Run the project's handlers through the library's test entrypoint, in a fresh process."""
    code = (
        "import json, sys\n"
        f"from {PACKAGE}.handlers import test_entrypoint\n"
        "event = {'credentials': {'accessKeyId': 'a', 'secretAccessKey': 'b',"
        " 'sessionToken': 'c'}, 'action': sys.argv[1], 'request': {'clientRequestToken': 't',"
        " 'desiredResourceState': {'Title': 'x', 'TestCode': 'NOT_STARTED'},"
        " 'logicalResourceIdentifier': 'L'}, 'callbackContext': None}\n"
        "print(json.dumps(test_entrypoint(event, None)))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "AWS_DEFAULT_REGION": "us-east-1"}
    out = subprocess.run(
        [sys.executable, "-c", code, action], env=env, capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_official_project_keeps_working_after_generate(official):
    """With the real renderers: handlers import and run, cfn validate and submit succeed."""
    result = generate_project(official)
    assert [p.as_posix() for p in result.skipped] == ["template.yml"]
    before = snapshot_tree(official)
    for action in ("CREATE", "READ"):
        event = call_handler(official, action)
        assert event["status"] in ("SUCCESS", "IN_PROGRESS", "FAILED"), event
        assert "Uninitialized" not in json.dumps(event)
    assert cfn("validate", cwd=official).returncode == 0
    submitted = cfn("submit", "--dry-run", cwd=official)
    assert submitted.returncode == 0, submitted.stderr[-2000:]
    # ... and generate is then a no-op that agrees with what is on disk.
    assert generate_project(official, check=True).drift == []
    after = {k: v for k, v in snapshot_tree(official).items() if k in before}
    assert after == before


# --------------------------------------------------------------------------- the official names


def _offline_cfn(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`cfn ARGS` without credentials, as the hook's offline path needs (with any, even fake
    ones, the official tool asks CloudFormation for the targets' schemas)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(
        AWS_EC2_METADATA_DISABLED="true",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_CONFIG_FILE=os.devnull,
        AWS_SHARED_CREDENTIALS_FILE=os.devnull,
    )
    return subprocess.run(
        [str(BIN / "cfn"), *args], cwd=cwd, capture_output=True, text=True, check=False, env=env
    )


#: A DynamoDB item type's schema, in the shape of the community one: recursive attribute values.
ITEM_SCHEMA_PARTS = {
    "definitions": {
        "AttributeValue": {
            "type": "object",
            "properties": {
                "S": {"type": "string"},
                "N": {"type": "string"},
                "L": {"type": "array", "items": {"$ref": "#/definitions/AttributeValue"}},
                "M": {
                    "type": "object",
                    "patternProperties": {".+": {"$ref": "#/definitions/AttributeValue"}},
                },
            },
            "additionalProperties": False,
        },
        "keyElement": {
            "type": "object",
            "properties": {"AttributeName": {"type": "string"}, "KeyType": {"type": "string"}},
            "additionalProperties": False,
        },
    },
    "properties": {
        "TableName": {"type": "string"},
        "Item": {
            "type": "object",
            "patternProperties": {".+": {"$ref": "#/definitions/AttributeValue"}},
        },
        "Keys": {"type": "array", "items": {"$ref": "#/definitions/keyElement"}},
    },
}
ITEM_HANDLERS = """\
from cloudformation_cli_python_lib import Action, OperationStatus, ProgressEvent, Resource

from .models import ResourceHandlerRequest, ResourceModel, _AttributeValue, _KeyElement

resource = Resource("Acme::Test::Widget", ResourceModel)
test_entrypoint = resource.test_entrypoint


def _copy(value):
    # As the community item type walks an item: through the models' private aliases.
    return _AttributeValue(
        S=value.S,
        N=value.N,
        L=[_copy(v) for v in value.L] if value.L else None,
        M={k: _copy(v) for k, v in value.M.items()} if value.M else None,
    )


@resource.handler(Action.CREATE)
def create_handler(session, request: ResourceHandlerRequest, callback_context):
    desired = request.desiredResourceState
    model = ResourceModel(
        TableName=desired.TableName,
        Item={name: _copy(value) for name, value in (desired.Item or {}).items()},
        Keys=[_KeyElement(AttributeName=k.AttributeName, KeyType=k.KeyType) for k in desired.Keys],
    )
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)
"""
HOOK_HANDLERS = """\
from cloudformation_cli_python_lib import (
    Hook,
    HookInvocationPoint,
    OperationStatus,
    ProgressEvent,
)

from .models import HookHandlerRequest, TypeConfigurationModel, _Limits
from .target_models.aws_s3_bucket import _AwsS3Bucket, _VersioningConfiguration

hook = Hook("Acme::Test::Hook", TypeConfigurationModel)
test_entrypoint = hook.test_entrypoint


@hook.handler(HookInvocationPoint.CREATE_PRE_PROVISION)
def pre_create_handler(session, request: HookHandlerRequest, callback_context, configuration):
    bucket = _AwsS3Bucket._deserialize(request.hookContext.targetModel["resourceProperties"])
    limits = configuration.Limits if configuration else _Limits(Max=0)
    versioning = bucket.VersioningConfiguration or _VersioningConfiguration(Status="Off")
    return ProgressEvent(
        status=OperationStatus.SUCCESS, message=f"{versioning.Status} max {limits.Max}"
    )
"""


def _official_hook(root: Path) -> None:
    """Configuration definitions in the hook's schema, then the official generate, offline."""
    from cfngen._kinds._shared import _targets

    path = root / "acme-test-hook.json"
    schema = json.loads(path.read_text())
    schema["definitions"] = {
        "limits": {
            "type": "object",
            "properties": {"Max": {"type": "integer"}},
            "additionalProperties": False,
        }
    }
    schema["typeConfiguration"]["properties"]["Limits"] = {"$ref": "#/definitions/limits"}
    path.write_text(json.dumps(schema, indent=4))
    folder = root / "target-schemas"
    folder.mkdir()
    bucket = _targets.bundled_schema_text("AWS::S3::Bucket")
    assert bucket is not None
    (folder / _targets.schema_file_name("AWS::S3::Bucket")).write_text(bucket)
    generated = _offline_cfn("generate", "--local-only", cwd=root)
    assert generated.returncode == 0, generated.stderr[-2000:]


def _official_item(root: Path) -> None:
    path = root / "acme-test-widget.json"
    schema = json.loads(path.read_text())
    schema.update(ITEM_SCHEMA_PARTS)
    schema["primaryIdentifier"] = ["/properties/TableName"]
    for key in ("readOnlyProperties", "createOnlyProperties", "required"):
        schema.pop(key, None)
    path.write_text(json.dumps(schema, indent=4))
    generated = cfn("generate", cwd=root)
    assert generated.returncode == 0, generated.stderr[-2000:]


OFFICIAL = {
    "resource": (_official_item, ITEM_HANDLERS, ["models.py"]),
    "hook": (_official_hook, HOOK_HANDLERS, ["models.py", "target_models/aws_s3_bucket.py"]),
}
CALLS = {
    "resource": (
        "CREATE",
        {
            "desiredResourceState": {
                "TableName": "t",
                "Item": {"pk": {"S": "a"}, "doc": {"M": {"l": {"L": [{"N": "5"}]}}}},
                "Keys": [{"AttributeName": "pk", "KeyType": "HASH"}],
            }
        },
        '"doc": {\n',
    ),
    "hook": (
        "preCreate",
        {
            "AWS::S3::Bucket": {
                "resourceProperties": {
                    "BucketName": "b",
                    "VersioningConfiguration": {"Status": "Enabled"},
                }
            }
        },
        '"message": "Enabled max 0"',
    ),
}


@pytest.mark.parametrize("kind", ["resource", "hook"])
def test_every_name_the_official_models_bound_survives_generate(
    kind, tmp_path, tmp_path_factory, monkeypatch
):
    """A `cfn init` project whose handlers import the official models' private aliases
    (`_AttributeValue`, as the community DynamoDB item type does): after `cfngen generate`
    replaced models.py (and the hook's target models), every name the official modules bound
    imports on the project's Python, and the handlers run through `cfngen invoke`."""
    from tests._official_models import bound_names
    from tests._official_projects import PACKAGES, cfn_init
    from tests._pythons import run_json, runtime_python
    from tests.conftest import run_cli

    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "home"))
    root = tmp_path / kind
    shutil.copytree(cfn_init(tmp_path_factory, kind), root)
    official_generate, handlers, modules = OFFICIAL[kind]
    official_generate(root)
    package = root / "src" / PACKAGES[kind]
    official = {name: sorted(bound_names((package / name).read_text())) for name in modules}
    assert "_AttributeValue" in official["models.py"] or kind == "hook"
    (package / "handlers.py").write_text(handlers)
    (root / "requirements.txt").write_text("")

    assert run_cli("generate", root).exit_code == 0
    job = {
        f"{PACKAGES[kind]}.{name.removesuffix('.py').replace('/', '.')}": names
        for name, names in official.items()
    }
    code = (
        "import importlib\n"
        "json.dump({m: [n for n in names if not hasattr(importlib.import_module(m), n)]"
        " for m, names in job.items()}, sys.stdout)\n"
    )
    missing = run_json(runtime_python((3, 12)), root / "src", code, job)
    assert missing == {module: [] for module in job}

    action, request, expected = CALLS[kind]
    (root / "request.json").write_text(json.dumps(request))
    result = run_cli("invoke", action, root / "request.json", "--project", root)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert expected in result.stdout


# ------------------------------------------------------------ cfn generate after cfngen's

CFNGEN_PROJECTS = {
    "resource": ("widget", "--type-name", "Acme::Svc::Widget"),
    "hook": ("editor-hook", "--artifact-type", "hook", "-t", "Acme::Svc::Hook"),
}


@pytest.mark.parametrize("kind", sorted(CFNGEN_PROJECTS))
def test_the_official_generate_in_a_cfngen_project_is_not_a_hand_edit(
    kind, tmp_path, tmp_path_factory, monkeypatch
):
    """`cfn generate` in a project cfngen made rewrites models.py, the role and docs/ in its
    own form; `cfngen generate` then derives them again (it stopped on them as edited by
    hand), and the project is as cfngen left it."""
    from tests.conftest import made_once, run_cli, tree_files

    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "home"))
    root = tmp_path / kind
    shutil.copytree(made_once(tmp_path_factory, *CFNGEN_PROJECTS[kind]), root, symlinks=True)
    before = tree_files(root)
    official = (
        cfn("generate", cwd=root)
        if kind == "resource"
        else _offline_cfn("generate", "--local-only", cwd=root)
    )
    assert official.returncode == 0, official.stderr[-2000:]
    (root / "rpdk.log").unlink(missing_ok=True)
    rewritten = sorted(p for p, data in tree_files(root).items() if before.get(p) != data)
    assert {"docs/README.md", next(p for p in before if p.endswith("/models.py"))} <= set(
        rewritten
    ), rewritten

    result = run_cli("generate", root)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "edited by hand" not in result.stderr
    assert {f"wrote {p}" for p in rewritten if p in before} <= set(result.stdout.splitlines())
    after = tree_files(root)
    assert {p: after.get(p) for p in before} == before
    assert run_cli("generate", "--check", root).exit_code == 0
