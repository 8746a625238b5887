"""Every name the official `cfn generate`'s models.py binds is bound in cfngen's too: the
classes under the plugin's names, their `_Name` aliases (`_AttributeValue = AttributeValue`,
which handlers import), and its helpers. Judged against the module the installed official
Python plugin renders from the same schema (tests/_official_models.py), for resource types and
for a hook's configuration and target models, on the oldest and the newest Python a project
may declare."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from cfngen._generate import generate_project
from cfngen._models import render_models
from tests._maximal import load_models, unload
from tests._official_models import bound_names, hook_models, resource_models, target_models

STRING = {"type": "string"}


def obj(**properties):
    return {"type": "object", "properties": properties, "additionalProperties": False}


def resource(properties, definitions=None, **extra):
    return {
        "typeName": "Acme::Test::Thing",
        "description": "a thing",
        "properties": {"Id": STRING, **properties},
        **({"definitions": definitions} if definitions else {}),
        "primaryIdentifier": ["/properties/Id"],
        "readOnlyProperties": ["/properties/Id"],
        "additionalProperties": False,
        **extra,
    }


#: Schema shapes whose official class names cfngen's models used to lose.
SHAPES = {
    # A definition used by two properties, one named after it (`Memo: Optional["_Memo"]`).
    "definition-used-twice": resource(
        {"Memo": {"$ref": "#/definitions/Memo"}, "Copy": {"$ref": "#/definitions/Memo"}},
        {"Memo": obj(Heading=STRING, Body=STRING)},
    ),
    # A DynamoDB item: a recursive attribute value in lists and maps.
    "dynamodb-item": resource(
        {
            "Item": {
                "type": "object",
                "patternProperties": {".+": {"$ref": "#/definitions/AttributeValue"}},
            },
            "Keys": {"type": "array", "items": {"$ref": "#/definitions/KeySchema"}},
        },
        {
            "AttributeValue": obj(
                S=STRING,
                N=STRING,
                L={"type": "array", "items": {"$ref": "#/definitions/AttributeValue"}},
                M={
                    "type": "object",
                    "patternProperties": {".+": {"$ref": "#/definitions/AttributeValue"}},
                },
            ),
            "KeySchema": obj(AttributeName=STRING, KeyType={"enum": ["HASH", "RANGE"]}),
        },
    ),
    # Definition names that are not UpperCamelCase: the plugin upper-cases the first letter only.
    "lower-and-snake-case": resource(
        {"Spec": {"$ref": "#/definitions/tag_spec"}, "Target": {"$ref": "#/definitions/target"}},
        {"tag_spec": obj(Key=STRING), "target": obj(Arn=STRING)},
    ),
    # Objects without a definition: named after their property, in arrays and maps too.
    "inline-objects": resource(
        {
            "Config": obj(Mode=STRING, Deep=obj(Z=STRING)),
            "Rules": {"type": "array", "items": obj(Name=STRING)},
            "Labels": {"type": "object", "patternProperties": {"^[a-z]+$": obj(V=STRING)}},
        }
    ),
    # A definition with branches the plugin merges into one class.
    "one-of-definition": resource(
        {"Destination": {"$ref": "#/definitions/Destination"}},
        {"Destination": {"oneOf": [obj(Bucket=STRING), obj(Queue=STRING)]}},
    ),
    # A definition named like a typing name: the plugin's class shadows typing.Mapping.
    "typing-name": resource(
        {"Map": {"$ref": "#/definitions/Mapping"}}, {"Mapping": obj(Source=STRING)}
    ),
    "type-configuration": resource(
        {},
        {"Credentials": obj(ApiKey=STRING)},
        typeConfiguration={
            "properties": {
                "Credentials": {"$ref": "#/definitions/Credentials"},
                "Limits": obj(Max={"type": "integer"}),
            },
            "additionalProperties": False,
        },
    ),
}
PYTHONS = [(3, 8), (3, 12)]


def missing_names(official_text: str, module) -> list[str]:
    return sorted(name for name in bound_names(official_text) if not hasattr(module, name))


@pytest.mark.parametrize("python", PYTHONS, ids=lambda v: f"py{v[0]}{v[1]}")
@pytest.mark.parametrize("shape", list(SHAPES))
def test_resource_models_bind_every_name_the_official_models_bind(shape, python):
    schema = SHAPES[shape]
    official = resource_models(schema)
    package = f"_official_names_{shape.replace('-', '_')}_{python[1]}"
    try:
        models = load_models(render_models(schema, python=python), package)
        assert missing_names(official, models) == []
        # `_Name` is the class `Name` wherever both are classes here, as in the official one.
        for name in bound_names(official) - {"_T"}:
            plain = getattr(models, name[1:], None) if name.startswith("_") else None
            if isinstance(plain, type):
                assert getattr(models, name) is plain, name
    finally:
        unload(package)


HANDLERS = """\
from cloudformation_cli_python_lib import Action, OperationStatus, ProgressEvent, Resource

from .models import (
    ResourceHandlerRequest,
    ResourceModel,
    _AttributeValue,
    _KeySchema,
    _ResourceModel,
    set_or_none,
)

resource = Resource("Acme::Test::Thing", ResourceModel)
test_entrypoint = resource.test_entrypoint


def _nested(value: _AttributeValue) -> _AttributeValue:
    # The way handlers written for the official models walk an item: by the aliases.
    if value.M:
        return _AttributeValue(M={k: _nested(v) for k, v in value.M.items()})
    return _AttributeValue(S=value.S, N=value.N, L=value.L)


@resource.handler(Action.CREATE)
def create_handler(session, request: ResourceHandlerRequest, callback_context):
    desired = request.desiredResourceState
    model = _ResourceModel(
        Id="item-1",
        Item={k: _nested(v) for k, v in (desired.Item or {}).items()},
        Keys=[_KeySchema(AttributeName=k.AttributeName, KeyType=k.KeyType) for k in desired.Keys],
    )
    assert set_or_none(["a", "a"]) == {"a"} and set_or_none([]) is None
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)
"""


def test_a_handler_that_uses_the_official_aliases_runs_through_the_entrypoint(
    tmp_path, monkeypatch
):
    """The community DynamoDB item type's way: handlers import `_AttributeValue` and build
    models with it; after cfngen's models replace the official ones, the handler still runs."""
    from tests.test_runtime_support import lambda_event

    schema = SHAPES["dynamodb-item"]
    folder = tmp_path / "acme_test_thing"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for name, text in render_models(schema, python=(3, 8)).items():
        (folder / name).parent.mkdir(exist_ok=True)
        (folder / name).write_text(text)
    (folder / "handlers.py").write_text(HANDLERS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    import importlib

    unload("acme_test_thing")
    try:
        handlers = importlib.import_module("acme_test_thing.handlers")
        item = {"pk": {"S": "a"}, "doc": {"M": {"n": {"N": "5"}, "l": {"L": [{"S": "x"}]}}}}
        properties = {"Item": item, "Keys": [{"AttributeName": "pk", "KeyType": "HASH"}]}
        response = handlers.resource(lambda_event("CREATE", properties), None)
        assert response["status"] == "SUCCESS", response
        assert response["resourceModel"] == {"Id": "item-1", **properties}
    finally:
        unload("acme_test_thing")


# --------------------------------------------------------------------------- hooks


HOOK_SCHEMA = {
    "typeName": "Acme::Guard::Hook",
    "description": "checks buckets",
    "typeConfiguration": {
        "properties": {
            "Mode": {"type": "string", "enum": ["strict", "lenient"]},
            "Limits": {"$ref": "#/definitions/limits"},
            "Exempt": {"type": "array", "insertionOrder": False, "items": obj(Name=STRING)},
        },
        "additionalProperties": False,
    },
    "definitions": {"limits": obj(Max={"type": "integer"})},
    "handlers": {"preCreate": {"targetNames": ["AWS::S3::Bucket"], "permissions": []}},
    "additionalProperties": False,
}


def hook_project(root: Path, runtime: str = "python3.12") -> Path:
    """A hook in the layout `cfn init --artifact-type HOOK` makes, generated by cfngen."""
    package = root / "src" / "acme_guard_hook"
    package.mkdir(parents=True)
    config = {
        "artifact_type": "HOOK",
        "typeName": "Acme::Guard::Hook",
        "language": runtime.replace(".", ""),
        "runtime": runtime,
        "entrypoint": "acme_guard_hook.handlers.hook",
        "testEntrypoint": "acme_guard_hook.handlers.test_entrypoint",
    }
    (root / ".rpdk-config").write_text(json.dumps(config, indent=4))
    (root / "acme-guard-hook.json").write_text(json.dumps(HOOK_SCHEMA, indent=4))
    (package / "__init__.py").write_text("")
    (package / "handlers.py").write_text("hook = test_entrypoint = None\n")
    return root


def import_generated(root: Path, module: str):
    import importlib

    unload("acme_guard_hook")
    sys.path.insert(0, str(root / "src"))
    try:
        return importlib.import_module(f"acme_guard_hook.{module}")
    finally:
        sys.path.remove(str(root / "src"))


@pytest.fixture
def offline_home(monkeypatch, tmp_path):
    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.mark.parametrize("module", ["models", "target_models.aws_s3_bucket"])
def test_hook_models_bind_every_name_the_official_models_bind(module, tmp_path, offline_home):
    from cfngen._kinds._shared import _targets

    root = hook_project(tmp_path / "hook")
    generate_project(root)
    if module == "models":
        official = hook_models(HOOK_SCHEMA)
    else:
        official = target_models(_targets.bundled_schema("AWS::S3::Bucket"), "AWS::S3::Bucket")
    try:
        assert missing_names(official, import_generated(root, module)) == []
    finally:
        unload("acme_guard_hook")


@pytest.mark.oracle  # the runtime's own CPython is the judge
@pytest.mark.parametrize("python", PYTHONS, ids=lambda v: f"py{v[0]}{v[1]}")
def test_every_official_name_imports_on_the_declared_runtime(python, tmp_path, offline_home):
    """Resource and hook models on the project's own CPython: every official name imports,
    and the hook's configuration and target models read what CloudFormation sends."""
    from cfngen._kinds._shared import _targets
    from tests._pythons import run_json, runtime_python

    runtime = f"python{python[0]}.{python[1]}"
    root = hook_project(tmp_path / "hook", runtime)
    generate_project(root)
    resources = tmp_path / "resources"
    expected = {}
    for shape, schema in SHAPES.items():
        package = resources / f"p_{shape.replace('-', '_')}"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        for name, text in render_models(schema, python=python).items():
            (package / name).parent.mkdir(exist_ok=True)
            (package / name).write_text(text)
        expected[f"p_{shape.replace('-', '_')}.models"] = sorted(
            bound_names(resource_models(schema))
        )
    shutil.copytree(root / "src" / "acme_guard_hook", resources / "acme_guard_hook")
    expected["acme_guard_hook.models"] = sorted(bound_names(hook_models(HOOK_SCHEMA)))
    bucket = _targets.bundled_schema("AWS::S3::Bucket")
    expected["acme_guard_hook.target_models.aws_s3_bucket"] = sorted(
        bound_names(target_models(bucket, "AWS::S3::Bucket"))
    )
    code = (
        "import importlib\n"
        "out = {m: [n for n in names if not hasattr(importlib.import_module(m), n)]"
        " for m, names in job.items()}\n"
        "hook = importlib.import_module('acme_guard_hook.models')\n"
        "config = hook.TypeConfigurationModel._deserialize("
        "{'Mode': 'strict', 'Limits': {'Max': '3'}, 'Exempt': [{'Name': 'a'}]})\n"
        "out['config'] = config._serialize()\n"
        "target = importlib.import_module('acme_guard_hook.target_models.aws_s3_bucket')\n"
        "bucket = target.AwsS3Bucket._deserialize({'BucketName': 'b', "
        "'VersioningConfiguration': {'Status': 'Enabled'}})\n"
        "out['bucket'] = bucket._serialize()\n"
        "json.dump(out, sys.stdout)\n"
    )
    out = run_json(runtime_python(python), resources, code, expected)
    config, bucket = out.pop("config"), out.pop("bucket")
    assert out == {module: [] for module in expected}
    assert config == {"Mode": "strict", "Limits": {"Max": 3}, "Exempt": [{"Name": "a"}]}
    assert bucket == {"BucketName": "b", "VersioningConfiguration": {"Status": "Enabled"}}
