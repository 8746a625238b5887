"""Models for a resource schema: the normaliser (tables), and what render_models produces."""

import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cfngen._models import MODELS_FILE, render_models
from cfngen._models._names import class_name, needs_alias, python_name
from cfngen._models._normalise import normalise
from tests._maximal import first_difference, load_models, maximal, stringify, unload
from tests.conftest import other_hash_seed

ROOT = Path(__file__).resolve().parent.parent


def schema_with(prop, definitions=None, **extra):
    return {
        "typeName": "Acme::Test::Thing",
        "properties": {"P": prop},
        **({"definitions": definitions} if definitions else {}),
        "additionalProperties": False,
        "primaryIdentifier": ["/properties/P"],
        **extra,
    }


TAG = {"type": "object", "properties": {"Key": {"type": "string"}}, "required": ["Key"]}

# ---------------------------------------------------------------------- the normaliser


@pytest.mark.parametrize(
    ("prop", "expected"),
    [
        # validation keywords, descriptions, defaults: nothing that shapes a type
        (
            {"type": "string", "minLength": 1, "pattern": "^a", "description": "d", "default": "a"},
            {"type": "string"},
        ),
        ({"type": "string", "format": "date-time"}, {"type": "string"}),
        ({"type": "integer", "minimum": 1, "maximum": 5, "default": 3}, {"type": "integer"}),
        # siblings of $ref go
        (
            {"$ref": "#/definitions/Tag", "description": "d", "type": "object"},
            {"$ref": "#/definitions/Tag"},
        ),
        # arrays are lists whatever insertionOrder/uniqueItems say
        (
            {
                "type": "array",
                "insertionOrder": False,
                "uniqueItems": True,
                "items": {"type": "string"},
            },
            {"type": "array", "items": {"type": "string"}},
        ),
        ({"items": {"type": "integer"}}, {"type": "array", "items": {"type": "integer"}}),
        ({"type": "array"}, {"type": "array", "items": {}}),
        (
            {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
            {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
        ),
        # free-form objects are maps of anything
        ({"type": "object"}, {"type": "object"}),
        ({"type": "object", "additionalProperties": False}, {"type": "object"}),
        ({"type": "object", "properties": {}}, {"type": "object"}),
        ({"type": "object", "additionalProperties": True}, {"type": "object"}),
        # maps from patternProperties / additionalProperties
        (
            {"type": "object", "patternProperties": {"^a": {"type": "string", "maxLength": 3}}},
            {"type": "object", "additionalProperties": {"type": "string"}},
        ),
        (
            {"patternProperties": {"^a": {"type": "string"}, "^b": {"type": "integer"}}},
            {
                "type": "object",
                "additionalProperties": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            },
        ),
        (
            {"type": "object", "additionalProperties": {"$ref": "#/definitions/Tag"}},
            {"type": "object", "additionalProperties": {"$ref": "#/definitions/Tag"}},
        ),
        # type lists and unions
        ({"type": ["string", "object"]}, {"anyOf": [{"type": "string"}, {"type": "object"}]}),
        ({"type": ["string"]}, {"type": "string"}),
        ({"type": ["boolean", "null"]}, {"anyOf": [{"type": "boolean"}, {"type": "null"}]}),
        (
            {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "string"}]},
            {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        ),
        ({"anyOf": [{"type": "string"}, {}]}, {"type": "string"}),
        # branches that say nothing of the type (required, format, pattern, {}) are dropped
        ({"type": "string", "anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]}, {"type": "string"}),
        ({"type": "string", "oneOf": [{"pattern": "a"}, {"pattern": "b"}]}, {"type": "string"}),
        # the parent's type applies to every branch
        (
            {"type": "string", "anyOf": [{"enum": ["a"]}, {"enum": ["b"]}]},
            {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "string", "enum": ["b"]}]},
        ),
        # allOf of one reference stays a reference
        (
            {"allOf": [{"$ref": "#/definitions/Tag"}], "description": "d"},
            {"$ref": "#/definitions/Tag"},
        ),
        (
            {"allOf": [{"$ref": "#/definitions/Tag"}, {"required": ["Key"]}]},
            {"$ref": "#/definitions/Tag"},
        ),
        # enums and const become Literal; a float cannot be in a Literal
        ({"type": "string", "enum": ["a", "b", "a"]}, {"type": "string", "enum": ["a", "b"]}),
        ({"enum": ["a", 1, True, None]}, {"enum": ["a", 1, True, None]}),
        ({"type": "integer", "enum": [1, True]}, {"type": "integer", "enum": [1, True]}),
        ({"type": "number", "enum": [1.5, 2]}, {"type": "number"}),
        ({"const": "x"}, {"const": "x"}),
        ({"type": "string", "const": "x"}, {"type": "string", "const": "x"}),
        ({"type": "object", "enum": [{"a": 1}]}, {"type": "object"}),
        # nothing said: anything
        ({}, {}),
        ({"description": "d"}, {}),
        ({"type": "nonsense"}, {}),
        # references that are not definitions
        ({"$ref": "https://example.com/schema.json#/definitions/X"}, {}),
        ({"$ref": "#/properties/Other"}, {"type": "integer"}),
        ({"$ref": "#/definitions/Missing"}, {}),
    ],
)
def test_normalised_property(prop, expected):
    schema = schema_with(prop, {"Tag": TAG})
    schema["properties"]["Other"] = {"type": "integer", "minimum": 1}
    normalised = normalise(schema).schema
    assert normalised["properties"]["P"] == expected


def test_required_and_defaults_never_reach_the_generator():
    text = json.dumps(normalise(schema_with(TAG, {"Tag": TAG}, required=["P"])).schema)
    assert '"required"' not in text
    assert '"default"' not in text


def test_objects_with_properties_become_named_classes():
    schema = schema_with(
        {
            "type": "object",
            "properties": {
                "Inner": {"type": "object", "properties": {"X": {"type": "string"}}},
                "Items": {"type": "array", "items": {"type": "object", "properties": {"Y": {}}}},
            },
        },
        typeConfiguration={"properties": {"Level": {"type": "integer"}}},
    )
    normalised = normalise(schema, {"properties": {"Attempts": {"type": "integer"}}})
    assert normalised.schema["properties"]["P"] == {"$ref": "#/definitions/P"}
    assert normalised.classes == {
        "Inner": ["X"],
        "Items": ["Y"],
        "P": ["Inner", "Items"],
        "ResourceModel": ["P"],
        "TypeConfigurationModel": ["Level"],
        "CallbackContext": ["Attempts", "cfngen"],
    }


def test_definitions_keep_their_names_before_nested_objects():
    schema = schema_with(
        {"type": "object", "properties": {"Tag": {"type": "object", "properties": {"Z": {}}}}},
        {"Tag": TAG},
    )
    classes = normalise(schema).classes
    assert classes["Tag"] == ["Key"]
    assert classes["PTag"] == ["Z"]


def test_callback_context_definitions_do_not_clash_with_the_resource():
    callback = {
        "properties": {"Step": {"$ref": "#/definitions/Tag"}},
        "definitions": {"Tag": {"type": "object", "properties": {"Mine": {"type": "string"}}}},
    }
    normalised = normalise(schema_with({"$ref": "#/definitions/Tag"}, {"Tag": TAG}), callback)
    assert normalised.classes["Tag"] == ["Key"]
    assert normalised.classes["Tag2"] == ["Mine"]
    step = normalised.schema["definitions"]["CallbackContext"]["properties"]["Step"]
    assert step == {"$ref": "#/definitions/Tag2"}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Tag", "Tag"),
        ("AWS::Lambda::Function.Environment", "Environment"),
        ("lower_name", "LowerName"),
        ("my-def", "MyDef"),
        ("S3Location", "S3Location"),
        ("3DConfig", "Model3DConfig"),
        ("---", "Model"),
        ("Größe", "GrE"),
    ],
)
def test_class_names(name, expected):
    assert class_name(name) == expected


@pytest.mark.parametrize(
    ("name", "renamed"),
    [
        ("Mapping", "MappingModel"),
        ("ResourceModel", "ResourceModelModel"),
        ("CallbackContext", "CallbackContextModel"),
        ("CfnModel", "CfnModelModel"),
        ("Any", "AnyModel"),
        ("Literal", "LiteralModel"),
        ("Optional", "OptionalModel"),
    ],
)
def test_definitions_that_clash_with_our_names_are_renamed(name, renamed):
    classes = normalise(schema_with({"$ref": f"#/definitions/{name}"}, {name: TAG})).classes
    assert classes[renamed] == ["Key"]


@pytest.mark.parametrize(
    ("name", "alias"),
    [
        ("Key", False),
        ("Type", False),
        ("type", False),
        ("match", False),
        ("None", True),
        ("from", True),
        ("class", True),
        ("my-prop", True),
        ("1abc", True),
        ("_x", True),
        ("a.b", True),
        ("Größe", True),
        ("", True),
    ],
)
def test_properties_that_need_their_json_name_as_alias(name, alias):
    assert needs_alias(name) is alias


@pytest.mark.parametrize(
    ("name", "used", "expected"),
    [
        ("from", set(), "from_"),
        ("None", set(), "None_"),
        ("from", {"from_"}, "from__2"),
        ("my-prop", set(), "my_prop"),
        ("1abc", set(), "field_1abc"),
        ("_x", set(), "field_x"),
        ("__init__", set(), "field_init__"),
        ("", set(), "field_"),
        ("Größe", set(), "Gr__e"),
        ("ﬁle", {"file"}, "field_le"),
        ("a b", {"a_b", "a_b_2"}, "a_b_3"),
    ],
)
def test_python_names_for_properties(name, used, expected):
    assert python_name(name, used) == expected


# ---------------------------------------------------------------------- rendered models

AWKWARD = {
    "typeName": "Acme::Awkward::Thing",
    "definitions": {
        "Mapping": {"type": "object", "properties": {"A": {"type": "string"}}},
        "Any": {"type": "object", "properties": {"B": {"type": "integer"}}},
        "ResourceModel": {"type": "object", "properties": {"C": {"type": "boolean"}}},
        "AWS::Thing.Dotted": {"type": "object", "properties": {"D": {"type": "string"}}},
        "Transition": {"type": "object", "properties": {"Days": {"type": "integer"}}},
        "Rule": {
            "type": "object",
            "properties": {
                "Transition": {"$ref": "#/definitions/Transition"},
                "Transitions": {"type": "array", "items": {"$ref": "#/definitions/Transition"}},
                "Rule": {"$ref": "#/definitions/Rule"},
            },
        },
        "Str": {"type": "string", "maxLength": 3},
    },
    "properties": {
        "None": {"type": "string"},
        "from": {"type": "integer"},
        "from_": {"type": "integer"},
        "Type": {"type": "string"},
        "str": {"type": "string"},
        "field": {"type": "string"},
        "dataclass": {"type": "string"},
        "my-prop": {"type": "boolean"},
        "1abc": {"type": "number"},
        "_x": {"type": "string"},
        "Größe": {"type": "integer"},
        "M": {"$ref": "#/definitions/Mapping"},
        "A": {"$ref": "#/definitions/Any"},
        "RM": {"$ref": "#/definitions/ResourceModel"},
        "Dotted": {"$ref": "#/definitions/AWS::Thing.Dotted"},
        "Rules": {"type": "array", "items": {"$ref": "#/definitions/Rule"}},
        "S": {"$ref": "#/definitions/Str"},
        "Mapping": {"type": "object", "properties": {"Inline": {"type": "string"}}},
    },
    "required": ["Type"],
    "additionalProperties": False,
    "primaryIdentifier": ["/properties/Type"],
}


#: Property names a hand-written schema may well use: keywords, builtins, our own names, names
#: Python normalises ("ﬁle" is "file"), names that only differ in case or punctuation.
NAMES = [
    *[
        "mro",
        "self",
        "cls",
        "json_data",
        "values",
        "_extra",
        "field_extra",
        "__init__",
        "__class__",
        "__dict__",
        "_serialize",
    ],
    *[
        "CfnModel",
        "ResourceModel",
        "BaseResourceHandlerRequest",
        "annotations",
        "dataclass",
        "typing",
        "Any",
    ],
    *[
        "Literal",
        "TypeAlias",
        "field",
        "None",
        "True",
        "False",
        "a",
        "A",
        "file",
        "ﬁle",
        "field_1",
        "1",
        "from_",
        "from",
        "x-y",
        "x_y",
    ],
    *["list", "dict", "str", "int", "float", "bool", "object", "type", "match", "_", "__"],
    *["", " ", "a b", "é"],
]
EVERY_NAME = {
    "typeName": "Acme::Names::Thing",
    "definitions": {
        name: {"type": "object", "properties": {"Inner": {"type": "string"}}}
        for name in ("Resource", "BaseModel", "dataclass", "field", "Model", "ResourceModel2")
    },
    "properties": {
        **{name: {"type": "integer"} for name in NAMES},
        "Nested": {
            "type": "object",
            "properties": {name: {"$ref": "#/definitions/Resource"} for name in NAMES},
        },
    },
    "additionalProperties": False,
    "primaryIdentifier": ["/properties/A"],
}


@pytest.fixture
def loaded(request):
    packages = []

    def load(schema, callback=None):
        files = render_models(schema, callback)
        package = f"_test_models_{len(packages)}_{request.node.name[:20].replace('[', '_')}"
        packages.append(package)
        return load_models(files, package)

    yield load
    for package in packages:
        unload(package)


def test_render_gives_models_and_runtime():
    files = render_models(schema_with({"type": "string"}))
    library = ROOT / "cfngen" / "_support" / "cfngen_runtime"
    shipped = {f"cfngen_runtime/{p.name}": p.read_text() for p in library.glob("*.py")}
    assert files == {MODELS_FILE: files[MODELS_FILE], **shipped}
    assert not files[MODELS_FILE].startswith("#")


def test_models_have_the_classes_handlers_import(loaded):
    from cloudformation_cli_python_lib.interface import BaseResourceHandlerRequest

    models = loaded(schema_with({"$ref": "#/definitions/Tag"}, {"Tag": TAG}))
    assert models.ResourceModel().P is None
    assert models.Tag(Key="k")._serialize() == {"Key": "k"}
    assert models.TypeConfigurationModel()._serialize() == {}
    assert models.CallbackContext()._serialize() == {}
    assert issubclass(models.ResourceHandlerRequest, BaseResourceHandlerRequest)
    assert {"desiredResourceState", "previousResourceState", "typeConfiguration"} <= set(
        models.ResourceHandlerRequest.__dataclass_fields__
    )


def test_type_configuration_and_callback_context(loaded):
    schema = schema_with(
        {"type": "string"},
        {"Stage": {"type": "string", "enum": ["Beta", "Prod"]}},
        typeConfiguration={
            "properties": {
                "Stage": {"$ref": "#/definitions/Stage"},
                "Limits": {"type": "object", "properties": {"Max": {"type": "integer"}}},
            },
            "additionalProperties": False,
        },
    )
    callback = {"properties": {"Attempts": {"type": "integer"}, "Ids": {"type": "array"}}}
    models = loaded(schema, callback)
    config = models.TypeConfigurationModel._deserialize({"Stage": "Prod", "Limits": {"Max": "3"}})
    assert config._serialize() == {"Stage": "Prod", "Limits": {"Max": 3}}
    context = models.CallbackContext._deserialize({"Attempts": "1", "Ids": []})
    assert (context.Attempts, context.Ids) == (1, [])


def test_fields_follow_the_schema(loaded):
    schema = schema_with({"type": "string"})
    schema["properties"] = {
        "Tags": {"type": "array", "insertionOrder": False, "uniqueItems": True, "items": TAG},
        "Labels": {"type": "object", "patternProperties": {".*": {"type": "integer"}}},
        "Mode": {"type": "string", "enum": ["A", "B"]},
        "Either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "Count": {"type": "integer"},
    }
    schema["required"] = ["Count", "Mode"]
    text = render_models(schema)[MODELS_FILE]
    assert "Tags: list[Tags] | None" in text
    assert "Labels: dict[str, int] | None = None" in text
    assert 'Mode: Literal["A", "B"] | None = None' in text
    assert "Either: str | int | None = None" in text
    assert "Count: int | None = None" in text
    assert "set[" not in text
    assert loaded(schema).ResourceModel() is not None  # nothing is required: partial models


def test_awkward_names_keep_their_json_names(loaded):
    models = loaded(AWKWARD)
    typed, expected = maximal(AWKWARD)
    assert set(typed) == set(AWKWARD["properties"])
    assert models.ResourceModel._deserialize(typed)._serialize() == typed
    assert (
        first_difference(expected, models.ResourceModel._deserialize(stringify(typed))._serialize())
        is None
    )
    # "from_" is a property of its own here, so "from" is the next free name
    made = models.ResourceModel(from__2=1, from_=2, None_="n", field_1abc=1.5, my_prop=True)
    assert made._serialize() == {"from": 1, "from_": 2, "None": "n", "1abc": 1.5, "my-prop": True}
    rule = {"Transition": {"Days": 1}, "Transitions": [{"Days": 2}], "Rule": {"Rule": {}}}
    assert models.Rule._deserialize(rule)._serialize() == rule


def test_every_name_keeps_its_json_name(loaded):
    models = loaded(EVERY_NAME)
    typed, expected = maximal(EVERY_NAME)
    assert set(typed) == set(EVERY_NAME["properties"])
    assert set(typed["Nested"]) == set(NAMES)
    assert first_difference(typed, models.ResourceModel._deserialize(typed)._serialize()) is None
    back = models.ResourceModel._deserialize(stringify(typed))._serialize()
    assert first_difference(expected, back) is None


TYPED_HANDLERS = """
from typing import Any, MutableMapping, Optional

from cloudformation_cli_python_lib.boto3_proxy import SessionProxy
from cloudformation_cli_python_lib.interface import (
    Action, BaseModel, OperationStatus, ProgressEvent,
)

from .cfngen_runtime.protocol import Resource
from .models import CallbackContext, ResourceHandlerRequest, ResourceModel, TypeConfigurationModel

resource = Resource("Acme::Awkward::Thing", ResourceModel, TypeConfigurationModel)
test_entrypoint = resource.test_entrypoint


@resource.handler(Action.CREATE)
def create(
    session: Optional[SessionProxy],
    request: ResourceHandlerRequest,
    callback_context: MutableMapping[str, Any],
) -> ProgressEvent:
    model = request.desiredResourceState
    assert model is not None
    context = CallbackContext._deserialize(callback_context)
    context_json: dict[str, Any] = context._serialize()
    model.from_ = (model.from_ or 0) + 1
    model.Rules = [Rule(Transitions=[Transition(Days=1)])]
    return ProgressEvent(
        status=OperationStatus.IN_PROGRESS, resourceModel=model, callbackContext=context_json
    )


@resource.handler(Action.LIST)
def list_(
    session: Optional[SessionProxy],
    request: ResourceHandlerRequest,
    callback_context: MutableMapping[str, Any],
) -> ProgressEvent:
    token: Optional[str] = request.nextToken
    # ProgressEvent.resourceModels is a list[BaseModel], and lists are invariant
    models: list[BaseModel] = [ResourceModel._deserialize({"Type": "t"})]
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModels=models, nextToken=token)


from .models import Rule, Transition  # noqa: E402
"""


@pytest.mark.oracle  # mypy is the judge
def test_awkward_models_and_typed_handlers_type_check(tmp_path):
    write_package(tmp_path, "awkward", render_models(AWKWARD), TYPED_HANDLERS)
    write_package(tmp_path, "every_name", render_models(EVERY_NAME))
    result = mypy(tmp_path)
    assert result.returncode == 0, result.stdout


def test_same_bytes_every_time():
    assert render_models(AWKWARD) == render_models(AWKWARD)


def test_same_bytes_under_another_hash_seed_and_folder(tmp_path, monkeypatch):
    # Rendered here, under this process's hash seed, and in another process under another
    # seed, in a folder whose tool settings would change the output if anything read them.
    # Both render: nothing is read from the model cache.
    (tmp_path / "pyproject.toml").write_text(
        "[tool.black]\nline-length = 40\nskip-magic-trailing-comma = true\n"
        "[tool.ruff]\nline-length = 40\n[tool.ruff.format]\nquote-style = 'single'\n"
        "[tool.datamodel-codegen]\nsnake-case-field = true\nuse-annotated = true\n"
    )
    (tmp_path / "ruff.toml").write_text("line-length = 40\n[format]\nquote-style = 'single'\n")
    code = textwrap.dedent(
        """
        import hashlib, json
        from cfngen._models import render_models
        from tests.test_models import AWKWARD
        from tests.test_runtime_support import SINK, CALLBACK
        out = [render_models(AWKWARD), render_models(SINK, CALLBACK)]
        print(hashlib.sha256(json.dumps(out).encode()).hexdigest())
        """
    )
    monkeypatch.setenv("CFNGEN_NO_CACHE", "1")
    from tests.test_runtime_support import CALLBACK, SINK

    out = [render_models(AWKWARD), render_models(SINK, CALLBACK)]
    here = hashlib.sha256(json.dumps(out).encode()).hexdigest()
    there = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env={
            "PYTHONHASHSEED": other_hash_seed(),
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(ROOT),
            "CFNGEN_NO_CACHE": "1",
        },
    ).stdout.strip()
    assert there == here


def test_models_are_black_formatted():
    from black import format_str
    from black.mode import Mode, TargetVersion

    for name, text in render_models(AWKWARD).items():
        # Both land in the user's project, whose code black formats with its defaults.
        assert format_str(text, mode=Mode(target_versions={TargetVersion.PY310})) == text, name


@pytest.mark.parametrize("python", [(3, 8), (3, 9), (3, 10)])
def test_black_writes_the_same_bytes_when_ruff_is_missing(monkeypatch, python):
    from cfngen._models import _format

    with_ruff = render_models(AWKWARD, python=python)
    monkeypatch.setattr(_format, "_ruff_format", lambda *args: None)
    assert render_models(AWKWARD, python=python) == with_ruff


# ---------------------------------------------------------------------- official handlers


def official_handlers(type_name):
    """handlers.py exactly as `cfn init` writes it with the official Python plugin."""
    import importlib.util

    import jinja2

    spec = importlib.util.find_spec("rpdk.python")
    assert spec is not None and spec.submodule_search_locations
    template = Path(spec.submodule_search_locations[0]) / "templates" / "handlers.py"
    return jinja2.Template(template.read_text()).render(
        support_lib_pkg="cloudformation_cli_python_lib", type_name=type_name
    )


def write_package(root, package, files, handlers=None):
    folder = root / package
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    if handlers is not None:
        (folder / "handlers.py").write_text(handlers)
    return folder


def mypy(folder, *args):
    # The runtime library's modules are checked where they are written (cfngen's own mypy); here
    # mypy follows the models' and handlers' imports into the ones they use.
    exclude = ("--exclude", "/cfngen_runtime/")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *exclude, *args, "."],
        capture_output=True,
        text=True,
        cwd=folder,
        check=False,
    )


def test_official_handlers_work_with_our_models(tmp_path, monkeypatch):
    """A project made by `cfn init` keeps working after `cfngen generate` replaces models.py."""
    from tests.test_runtime_support import lambda_event

    schema = schema_with({"type": "array", "items": {"$ref": "#/definitions/Tag"}}, {"Tag": TAG})
    write_package(
        tmp_path, "acme_test_thing", render_models(schema), official_handlers(schema["typeName"])
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    import importlib

    # Another test may have left a package of this name loaded (the contract runner imports a
    # project's handlers in this process first): this test's must be the one imported.
    unload("acme_test_thing")
    try:
        handlers = importlib.import_module("acme_test_thing.handlers")
        properties = {"P": [{"Key": "a"}, {"Key": "b"}]}
        for action in ("CREATE", "READ", "UPDATE"):
            response = handlers.resource(lambda_event(action, properties), None)
            assert response["status"] == "SUCCESS", response
            assert response["resourceModel"] == properties
        assert handlers.resource(lambda_event("LIST"), None)["resourceModels"] == []
        assert (
            handlers.resource(lambda_event("DELETE", properties), None)["status"] == "IN_PROGRESS"
        )
    finally:
        unload("acme_test_thing")
