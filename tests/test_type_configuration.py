"""The type configuration handlers run with, for resource types and hooks alike: where it comes
from (--typeconfig, .rpdk-config contractSettings, stand-ins, none), its check against the
schema before any handler runs, dynamic references resolved from seeded values, and secrets
kept out of every output.

The projects are written by hand in the official `cfn init` layout, with handlers in the style
third-party types use (`Resource(TYPE_NAME, ResourceModel, TypeConfigurationModel)`, a client
built from `request.typeConfiguration.ApiKey`). Each handler call appends what it was given to
the file WIDGET_SEEN names, so the tests see what reached the handlers, and count the calls.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

SECRET = "sup3r-s3cret-value"
KEY_PATTERN = r"^\{\{resolve:ssm-secure:[a-zA-Z0-9_.\-/]+\}\}$"
CONFIG = {"ApiKey": "{{resolve:ssm-secure:/acme/api-key}}", "Endpoint": "https://api.example"}
SEED = ("--ssm", f"/acme/api-key={SECRET}")
ENVELOPE = {"CloudFormationConfiguration": {"HookConfiguration": {"Properties": CONFIG}}}

TYPE_CONFIGURATION = {
    "properties": {
        "ApiKey": {"type": "string", "pattern": KEY_PATTERN},
        "Endpoint": {"type": "string"},
    },
    "required": ["ApiKey"],
    "additionalProperties": False,
}
RECORD = """
def _seen(action, configuration):
    path = os.environ.get("WIDGET_SEEN")
    if path:
        with open(path, "a") as seen:
            seen.write(json.dumps({
                "action": action,
                "type": type(configuration).__name__,
                "config": None if configuration is None else configuration._serialize(),
            }) + "\\n")
"""
RESOURCE_HANDLERS = (
    """\
import json
import logging
import os
import re
import uuid

from cloudformation_cli_python_lib import (
    Action, HandlerErrorCode, OperationStatus, ProgressEvent, Resource,
)

from .models import ResourceHandlerRequest, ResourceModel, TypeConfigurationModel

LOG = logging.getLogger(__name__)
resource = Resource("Acme::Test::Widget", ResourceModel, TypeConfigurationModel)
test_entrypoint = resource.test_entrypoint
WIDGETS = {}
"""
    + RECORD
    + """

def _api(request):
    # A third-party client is built from the account's key.
    return {"key": request.typeConfiguration.ApiKey}


@resource.handler(Action.CREATE)
def create_handler(session, request: ResourceHandlerRequest, callback_context):
    _seen("CREATE", request.typeConfiguration)
    _api(request)
    model = request.desiredResourceState
    # CloudFormation sends every value as a string: the pattern is what tells (an ssm-secure
    # reference arrives as it is written).
    title = str(model.Title)
    if model.Title is not None and not re.fullmatch("[a-z ]+|[{][{]resolve:.*", title):
        return ProgressEvent.failed(HandlerErrorCode.InvalidRequest, "Title is lowercase words")
    model.Id = str(uuid.uuid4())
    WIDGETS[model.Id] = model._serialize()
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.READ)
def read_handler(session, request: ResourceHandlerRequest, callback_context):
    _seen("READ", request.typeConfiguration)
    model = request.desiredResourceState
    if model.Id not in WIDGETS:
        return ProgressEvent.failed(HandlerErrorCode.NotFound, f"{model.Id} not found")
    found = ResourceModel._deserialize(WIDGETS[model.Id])
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=found)


@resource.handler(Action.UPDATE)
def update_handler(session, request: ResourceHandlerRequest, callback_context):
    _seen("UPDATE", request.typeConfiguration)
    model = request.desiredResourceState
    if model.Id not in WIDGETS:
        return ProgressEvent.failed(HandlerErrorCode.NotFound, f"{model.Id} not found")
    WIDGETS[model.Id] = model._serialize()
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.DELETE)
def delete_handler(session, request: ResourceHandlerRequest, callback_context):
    _seen("DELETE", request.typeConfiguration)
    model = request.desiredResourceState
    if WIDGETS.pop(model.Id, None) is None:
        return ProgressEvent.failed(HandlerErrorCode.NotFound, f"{model.Id} not found")
    return ProgressEvent(status=OperationStatus.SUCCESS)


@resource.handler(Action.LIST)
def list_handler(session, request: ResourceHandlerRequest, callback_context):
    _seen("LIST", request.typeConfiguration)
    models = [ResourceModel._deserialize(w) for w in WIDGETS.values()]
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModels=models)
"""
)
HOOK_HANDLERS = (
    """\
import json
import os

from cloudformation_cli_python_lib import (
    HandlerErrorCode, Hook, HookInvocationPoint, OperationStatus, ProgressEvent,
)

from .models import HookHandlerRequest, TypeConfigurationModel

hook = Hook("Acme::Test::Hook", TypeConfigurationModel)
test_entrypoint = hook.test_entrypoint
"""
    + RECORD
    + """

@hook.handler(HookInvocationPoint.CREATE_PRE_PROVISION)
def pre_create_handler(session, request: HookHandlerRequest, callback_context, configuration):
    _seen("preCreate", configuration)
    key = configuration.ApiKey
    bucket = request.hookContext.targetModel.get("resourceProperties", {})
    if not bucket.get("BucketName", "").startswith("ok"):
        return ProgressEvent(
            status=OperationStatus.FAILED,
            errorCode=HandlerErrorCode.NonCompliant,
            message="a bucket name starts with ok",
        )
    return ProgressEvent(status=OperationStatus.SUCCESS, message=f"checked ({len(key)})")
"""
)
NAMES = {"resource": ("Acme::Test::Widget", "acme_test_widget", "resource")}
NAMES["hook"] = ("Acme::Test::Hook", "acme_test_hook", "hook")


def schema_of(kind: str, configuration: dict | None = TYPE_CONFIGURATION) -> dict:
    type_name = NAMES[kind][0]
    if kind == "hook":
        schema = {
            "typeName": type_name,
            "description": "Checks buckets against a policy service",
            "handlers": {"preCreate": {"targetNames": ["AWS::S3::Bucket"], "permissions": []}},
            "additionalProperties": False,
        }
    else:
        schema = {
            "typeName": type_name,
            "description": "A widget a third-party API keeps",
            "properties": {
                "Id": {"type": "string"},
                "Title": {"type": "string", "pattern": "^[a-z ]+$"},
            },
            "primaryIdentifier": ["/properties/Id"],
            "readOnlyProperties": ["/properties/Id"],
            "additionalProperties": False,
            "tagging": {"taggable": False},
            "handlers": {
                name: {"permissions": []} for name in ("create", "read", "update", "delete", "list")
            },
        }
    if configuration is not None:
        schema["typeConfiguration"] = configuration
    return schema


def write_project(
    root: Path,
    kind: str,
    *,
    schema: dict | None = None,
    handlers: str | None = None,
    settings: dict | None = None,
) -> Path:
    """A project in `cfn init`'s layout, its models made by `cfngen generate`."""
    type_name, package, attribute = NAMES[kind]
    config = {
        "artifact_type": kind.upper(),
        "typeName": type_name,
        "language": "python312",
        "runtime": "python3.12",
        "entrypoint": f"{package}.handlers.{attribute}",
        "testEntrypoint": f"{package}.handlers.test_entrypoint",
        "settings": {"use_docker": False, "no_docker": True, "protocolVersion": "2.0.0"},
    }
    if settings is not None:
        config["contractSettings"] = settings
    files = {
        ".rpdk-config": json.dumps(config, indent=4) + "\n",
        "-".join(type_name.split("::")).lower() + ".json": json.dumps(
            schema or schema_of(kind), indent=4
        ),
        "requirements.txt": "cloudformation-cli-python-lib>=2.1.9\n",
        f"src/{package}/__init__.py": "",
        f"src/{package}/handlers.py": handlers
        or (RESOURCE_HANDLERS if kind == "resource" else HOOK_HANDLERS),
    }
    if kind == "hook":
        bucket = {"AWS::S3::Bucket": {"resourceProperties": {"BucketName": "ok-bucket"}}}
        bad = {"AWS::S3::Bucket": {"resourceProperties": {"BucketName": "bad"}}}
        files["inputs/inputs_1_pre_create.json"] = json.dumps(bucket)
        files["inputs/inputs_1_invalid_pre_create.json"] = json.dumps(bad)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    made = run_cli("generate", root)
    assert made.exit_code == 0, made.stderr
    return root


@pytest.fixture
def seen(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "seen.jsonl"
    monkeypatch.setenv("WIDGET_SEEN", str(path))
    return path


def calls(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


# --------------------------------------------------------------------------- the sources

#: How the configuration is given: (--typeconfig file contents, contractSettings, what the
#: output names as its source).
SOURCES = {
    "flag": (CONFIG, None, "--typeconfig"),
    "flag-envelope": (ENVELOPE, None, "--typeconfig"),
    "contractSettings": (
        None,
        {"typeConfiguration": {"configuration": CONFIG}},
        "contractSettings",
    ),
    "alias-inside": (
        None,
        {"typeConfiguration": {"configuration": CONFIG, "configurationAlias": "default"}},
        "contractSettings",
    ),
    "alias-beside": (
        None,
        {"configurationAlias": "default", "typeConfiguration": {"configuration": CONFIG}},
        "contractSettings",
    ),
    "none": (None, None, "stand-ins"),
}


@pytest.mark.parametrize(
    ("kind", "source"),
    [
        (kind, source)
        for kind in ("resource", "hook")
        for source in SOURCES
        # An envelope given to a resource type is refused: the next test.
        if (kind, source) != ("resource", "flag-envelope")
    ],
)
def test_the_configuration_reaches_every_handler_typed(tmp_path, seen, kind, source):
    """Every handler call, LIST's included, gets TypeConfigurationModel with the seeded value
    of its reference; without a configuration, stand-ins valid for the schema and one warning.
    (The code before refused --typeconfig for a resource type and sent None.)"""
    flag_file, settings, named = SOURCES[source]
    root = write_project(tmp_path / "p", kind, settings=settings)
    args: list[str] = ["test", root, *SEED]
    if flag_file is not None:
        (tmp_path / "config.json").write_text(json.dumps(flag_file))
        args += ["--typeconfig", str(tmp_path / "config.json")]
    result = run_cli(*args)
    assert result.exit_code == 0, result.stdout + result.stderr
    configuration_lines = [
        line for line in result.stderr.splitlines() if "type configuration" in line
    ]
    assert len(configuration_lines) == 1, result.stderr
    assert named in configuration_lines[0]
    made = calls(seen)
    actions = {call["action"] for call in made}
    assert actions == (
        {"preCreate"} if kind == "hook" else {"CREATE", "READ", "UPDATE", "DELETE", "LIST"}
    )
    missing_test = [c for c in made if c["config"] is None]
    assert not missing_test, "ApiKey is required: no test sends none"
    assert {call["type"] for call in made} == {"TypeConfigurationModel"}
    if source == "none":
        assert {call["config"]["ApiKey"] for call in made} == {"cfngen-stand-in-ApiKey"}
        assert "stand-ins" in configuration_lines[0]
    else:
        assert {json.dumps(call["config"], sort_keys=True) for call in made} == {
            json.dumps({**CONFIG, "ApiKey": SECRET}, sort_keys=True)
        }
    assert SECRET not in result.stdout + result.stderr


def test_an_envelope_given_to_a_resource_type_is_refused_naming_its_key(tmp_path, seen):
    root = write_project(tmp_path / "p", "resource")
    (tmp_path / "config.json").write_text(json.dumps(ENVELOPE))
    result = run_cli("test", root, "--typeconfig", tmp_path / "config.json")
    assert result.exit_code == 2, result.stderr
    assert "CloudFormationConfiguration" in result.stderr
    assert calls(seen) == []


def test_the_home_folder_file_is_read_only_when_named(tmp_path, seen, monkeypatch):
    """`cfn test` reads ~/.cfn-cli/typeConfiguration.json silently; cfngen never does."""
    home = tmp_path / "home"
    (home / ".cfn-cli").mkdir(parents=True)
    home_file = home / ".cfn-cli" / "typeConfiguration.json"
    home_file.write_text(json.dumps(CONFIG))
    monkeypatch.setenv("HOME", str(home))
    root = write_project(tmp_path / "p", "resource")
    result = run_cli("test", root, "-k", "create_read", *SEED)
    assert result.exit_code == 0, result.stderr
    assert {c["config"]["ApiKey"] for c in calls(seen)} == {"cfngen-stand-in-ApiKey"}
    seen.unlink()
    result = run_cli("test", root, "-k", "create_read", *SEED, "--typeconfig", home_file)
    assert result.exit_code == 0, result.stderr
    assert {c["config"]["ApiKey"] for c in calls(seen)} == {SECRET}


# --------------------------------------------------------------------------- checked first

#: A configuration SetTypeConfiguration refuses, and the pointer the refusal names.
REFUSED = {
    "not-a-reference": ({"ApiKey": "plain-key"}, "/ApiKey"),
    "missing-required": ({"Endpoint": "https://x"}, "/ApiKey"),
    "unknown-property": ({**CONFIG, "Region": "x"}, "/Region"),
    "wrong-type": ({**CONFIG, "Endpoint": 5}, "/Endpoint"),
}


@pytest.mark.parametrize("kind", ["resource", "hook"])
@pytest.mark.parametrize("where", ["flag", "contractSettings"])
@pytest.mark.parametrize("case", list(REFUSED))
def test_a_configuration_the_schema_refuses_runs_no_handler(tmp_path, seen, kind, where, case):
    configuration, pointer = REFUSED[case]
    settings = {"typeConfiguration": {"configuration": configuration}}
    root = write_project(tmp_path / "p", kind, settings=settings if where != "flag" else None)
    args: list[str] = []
    if where == "flag":
        (tmp_path / "config.json").write_text(json.dumps(configuration))
        args = ["--typeconfig", str(tmp_path / "config.json")]
    result = run_cli("test", root, *args, *SEED)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert f"{pointer}: " in result.stderr, result.stderr
    assert "no handler was run" in result.stderr
    assert calls(seen) == [], "a handler ran with a configuration the schema refuses"


@pytest.mark.parametrize(
    "reference",
    [
        "{{resolve:ssm-secure:}}",
        "{{resolve:vault:/acme/key}}",
        "{{resolve:ssm-secure:/acme/key",
        "{{resolve:secretsmanager:id:SecretBinary}}",
    ],
)
def test_a_malformed_reference_stops_the_run_at_its_pointer(tmp_path, seen, reference):
    schema = schema_of(
        "resource",
        {
            **TYPE_CONFIGURATION,
            "properties": {"ApiKey": {"type": "string"}, "Endpoint": {"type": "string"}},
        },
    )
    root = write_project(tmp_path / "p", "resource", schema=schema)
    (tmp_path / "config.json").write_text(json.dumps({"ApiKey": reference}))
    result = run_cli("test", root, "--typeconfig", tmp_path / "config.json")
    assert result.exit_code == 2, result.stderr
    assert "/ApiKey: " in result.stderr and "malformed dynamic reference" in result.stderr
    assert calls(seen) == []


def test_a_reference_nothing_was_seeded_for_gets_a_stand_in_and_a_warning(tmp_path, seen):
    root = write_project(tmp_path / "p", "resource")
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    result = run_cli("test", root, "-k", "create_read", "--typeconfig", tmp_path / "config.json")
    assert result.exit_code == 0, result.stderr
    assert "{{resolve:ssm-secure:/acme/api-key}}" in result.stderr
    assert "stand-in" in result.stderr
    assert {c["config"]["ApiKey"] for c in calls(seen)} == {"cfngen-stand-in-acme-api-key"}


def test_secrets_manager_references_resolve_a_json_key_and_the_value_is_in_moto(tmp_path, seen):
    """The seeded secret is in the test's AWS too: a handler that reads it itself finds it."""
    schema = schema_of(
        "resource",
        {
            "properties": {"ApiKey": {"type": "string"}, "Endpoint": {"type": "string"}},
            "required": ["ApiKey"],
            "additionalProperties": False,
        },
    )
    handlers = RESOURCE_HANDLERS.replace(
        '    return {"key": request.typeConfiguration.ApiKey}',
        "    import boto3\n"
        '    stored = boto3.client("secretsmanager").get_secret_value(SecretId="acme/creds")\n'
        '    assert json.loads(stored["SecretString"])["key"] == request.typeConfiguration.ApiKey\n'
        '    return {"key": request.typeConfiguration.ApiKey}',
    )
    root = write_project(tmp_path / "p", "resource", schema=schema, handlers=handlers)
    config = {"ApiKey": "{{resolve:secretsmanager:acme/creds:SecretString:key}}"}
    (tmp_path / "config.json").write_text(json.dumps(config))
    secret = json.dumps({"key": "k-0123456789", "user": "acme"})
    result = run_cli(
        "test", root, "-k", "create_read", "--typeconfig", tmp_path / "config.json",
        "--secret", f"acme/creds={secret}",
    )  # fmt: skip
    assert result.exit_code == 0, result.stdout + result.stderr
    assert {c["config"]["ApiKey"] for c in calls(seen)} == {"k-0123456789"}


# --------------------------------------------------------------------------- none required

OPTIONAL = {
    "properties": {"Endpoint": {"type": "string"}},
    "additionalProperties": False,
}


@pytest.mark.parametrize("handles_none", [True, False])
def test_missing_type_configuration_is_tested_when_none_is_required(tmp_path, seen, handles_none):
    """An account that never called SetTypeConfiguration sends none: a handler that reads
    request.typeConfiguration.X without a check fails contract_handles_missing_type_configuration
    (and only it: the other tests send the configuration given)."""
    reads = (
        "    endpoint = (request.typeConfiguration.Endpoint if request.typeConfiguration else None)"
        if handles_none
        else "    endpoint = request.typeConfiguration.Endpoint"
    )
    handlers = RESOURCE_HANDLERS.replace(
        '    return {"key": request.typeConfiguration.ApiKey}',
        reads + '\n    return {"endpoint": endpoint}',
    )
    schema = schema_of("resource", OPTIONAL)
    settings = {"typeConfiguration": {"configuration": {"Endpoint": "https://api.example"}}}
    root = write_project(
        tmp_path / "p", "resource", schema=schema, handlers=handlers, settings=settings
    )
    result = run_cli("test", root, "--format", "json")
    report = json.loads(result.stdout)
    outcome = {t["name"]: t["outcome"] for t in report["tests"]}
    test = "contract_handles_missing_type_configuration"
    assert outcome[test] == ("passed" if handles_none else "failed"), result.stdout
    others = {name: o for name, o in outcome.items() if name != test}
    assert "failed" not in others.values(), others
    assert any(c["config"] is None for c in calls(seen))
    assert any(c["config"] == {"Endpoint": "https://api.example"} for c in calls(seen))


def test_the_missing_configuration_test_is_only_for_types_that_declare_one(tmp_path, seen):
    """A type without typeConfiguration has the official suite's tests alone; one whose
    configuration is required has the test, skipped (an account must set it first)."""
    from cfngen._kinds.resource.contract._suite import TEST_NAMES

    root = write_project(
        tmp_path / "p", "resource", schema=schema_of("resource", None),
        handlers=RESOURCE_HANDLERS.replace("request.typeConfiguration.ApiKey", "None"),
    )  # fmt: skip
    result = run_cli("test", root, "--format", "json")
    assert [t["name"] for t in json.loads(result.stdout)["tests"]] == list(TEST_NAMES)
    assert "type configuration" not in result.stderr
    required = write_project(tmp_path / "q", "resource")
    result = run_cli("test", required, "--format", "json", *SEED)
    tests = {t["name"]: t for t in json.loads(result.stdout)["tests"]}
    missing = tests["contract_handles_missing_type_configuration"]
    assert missing["outcome"] == "skipped"
    assert "requires ApiKey" in missing["message"]


# --------------------------------------------------------------------------- invoke


@pytest.mark.parametrize("action", ["CREATE", "READ", "UPDATE", "DELETE", "LIST"])
def test_invoke_sends_the_typed_configuration_for_every_action(tmp_path, seen, action):
    root = write_project(tmp_path / "p", "resource")
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"desiredResourceState": {"Id": "w-1", "Title": "a"}}))
    result = run_cli(
        "invoke", action, request, "--project", root, "--typeconfig", tmp_path / "config.json",
        *SEED,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr  # READ and others: NotFound offline
    (call,) = calls(seen)
    assert (call["action"], call["type"]) == (action, "TypeConfigurationModel")
    assert call["config"] == {**CONFIG, "ApiKey": SECRET}
    assert "type configuration (--typeconfig" in result.stderr
    assert SECRET not in result.stdout + result.stderr


def test_an_entrypoint_made_without_the_configuration_model_is_named(tmp_path, seen):
    """`cfn init` writes Resource(TYPE_NAME, ResourceModel): the library then gives None in
    every request, in the registry too. Said once, not hidden by filling it in."""
    handlers = RESOURCE_HANDLERS.replace(
        "ResourceModel, TypeConfigurationModel)", "ResourceModel)"
    ).replace('{"key": request.typeConfiguration.ApiKey}', "{}")
    root = write_project(tmp_path / "p", "resource", handlers=handlers)
    result = run_cli("test", root, "-k", "create_read", *SEED)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "made without a TypeConfigurationModel" in result.stderr
    assert {c["config"] for c in calls(seen)} == {None}


@pytest.mark.parametrize(
    "seed", [("--ssm", "ssm-reserved=x"), ("--ssm", "no-equals-sign"), ("--secret", "=value")]
)
def test_a_seed_aws_or_the_flag_refuses_is_one_message(tmp_path, seen, seed):
    root = write_project(tmp_path / "p", "resource")
    result = run_cli("test", root, "-k", "create_read", *seed)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("error:") == 1
    assert "hint:" in result.stderr  # cfngen's message, not argparse's
    assert calls(seen) == []


# --------------------------------------------------------------------------- references in inputs


@pytest.mark.parametrize(
    ("reference", "seed", "expected"),
    [
        # A name without a slash: an export placeholder to the code before.
        ("{{resolve:ssm:title}}", ("--ssm", "title=hello"), "hello"),
        ("{{resolve:ssm:/acme/title:3}}", ("--ssm", "/acme/title=hello"), "hello"),
        ("{{resolve:secretsmanager:acme/t:SecretString:t}}",
         ("--secret", 'acme/t={"t": "x y z w v"}'), "****"),
        # CloudFormation resolves ssm-secure only in properties of AWS types that support it.
        ("{{resolve:ssm-secure:/acme/title}}", ("--ssm", "/acme/title=hello"),
         "{{resolve:ssm-secure:/acme/title}}"),
    ],
)  # fmt: skip
def test_references_in_a_request_reach_the_handler_resolved(
    tmp_path, seen, reference, seed, expected
):
    root = write_project(
        tmp_path / "p", "resource", settings={"typeConfiguration": {"configuration": CONFIG}}
    )
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"desiredResourceState": {"Title": reference}}))
    result = run_cli(
        "invoke", "CREATE", request, "--project", root, "--format", "json", *SEED, *seed
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["response"]["resourceModel"]["Title"] == expected
    assert "CloudFormation export" not in result.stderr
    assert ("unresolved" in result.stderr) == expected.startswith("{{")


def test_references_in_inputs_files_are_resolved_before_they_are_checked(tmp_path, seen):
    root = write_project(
        tmp_path / "p", "resource", settings={"typeConfiguration": {"configuration": CONFIG}}
    )
    (root / "inputs" / "inputs_1_create.json").write_text(
        '{"Title": "{{resolve:ssm:/acme/title}}"}'
    )
    (root / "inputs" / "inputs_1_update.json").write_text('{"Title": "other words"}')
    result = run_cli("test", root, "-k", "create_read", *SEED, "--ssm", "/acme/title=hello there")
    assert result.exit_code == 0, result.stdout + result.stderr
    bad = run_cli("test", root, "-k", "create_read", *SEED, "--ssm", "/acme/title=NOT-LOWER")
    assert bad.exit_code == 2 and "inputs_1_create.json" in bad.stderr
