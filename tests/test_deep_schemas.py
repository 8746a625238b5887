"""Deep, recursive and circular schemas: working models, or a clear rejection with a pointer,
never a RecursionError; `validate` and `generate` agree on every one. Long legal names never
make a docs/ file name too long."""

from __future__ import annotations

import json
import os

import pytest

from cfngen._cli import main
from cfngen._errors import ExitCode
from cfngen._generate import InvalidSchemaError, generate_project
from cfngen._models import render_models
from cfngen._schema import MAX_NESTING
from cfngen._schema._depth import MAX_DEPTH
from cfngen._validate import validate_text
from tests._generate_helpers import make_project, snapshot_tree
from tests._maximal import load_models, unload


def schema_with(properties, definitions=None):
    schema = {
        "typeName": "Acme::Test::Widget",
        "description": "A widget.",
        "properties": {"Id": {"type": "string"}, **properties},
        "additionalProperties": False,
        "primaryIdentifier": ["/properties/Id"],
        "readOnlyProperties": ["/properties/Id"],
        "handlers": {"create": {"permissions": ["s3:GetObject"]}},
        "tagging": {"taggable": False},
    }
    if definitions is not None:
        schema["definitions"] = definitions
    return schema


def nested_objects(levels):
    node = {"type": "string"}
    for i in range(levels):
        node = {"type": "object", "properties": {f"L{i}": node}, "additionalProperties": False}
    return schema_with({"Deep": node})


def nested_arrays(levels):
    node = {"type": "string"}
    for _ in range(levels):
        node = {"type": "array", "insertionOrder": True, "items": node}
    return schema_with({"Deep": node})


def ref_chain(links):
    """D0 -> D1 -> ... -> D<links>, a string: definitions that only name the next one."""
    definitions = {f"D{i}": {"$ref": f"#/definitions/D{i + 1}"} for i in range(links)}
    definitions[f"D{links}"] = {"type": "string"}
    return schema_with({"R": {"$ref": "#/definitions/D0"}}, definitions)


def object_chain(links):
    """D0 has a property Next of type D1, ..., D<links> is a string."""
    definitions = {
        f"D{i}": {
            "type": "object",
            "properties": {"Next": {"$ref": f"#/definitions/D{i + 1}"}},
            "additionalProperties": False,
        }
        for i in range(links)
    }
    definitions[f"D{links}"] = {"type": "string"}
    return schema_with({"R": {"$ref": "#/definitions/D0"}}, definitions)


def refs(**definitions):
    return schema_with({"A": {"$ref": "#/definitions/A"}}, definitions)


def obj(**properties):
    return {"type": "object", "properties": properties, "additionalProperties": False}


def ref(name):
    return {"$ref": f"#/definitions/{name}"}


#: name -> (schema, value of property A that the models must give back as it came, or None)
RECURSIVE = {
    "object that contains itself": (
        refs(A=obj(Next=ref("A"), V={"type": "string"})),
        {"V": "a", "Next": {"V": "b", "Next": {}}},
    ),
    "two objects that contain each other": (
        refs(A=obj(B=ref("B")), B=obj(A=ref("A"), V={"type": "integer"})),
        {"B": {"V": 1, "A": {"B": {}}}},
    ),
    "list of itself": (
        refs(A={"type": "array", "insertionOrder": True, "items": ref("A")}),
        [[], [[]]],
    ),
    "map of itself": (
        refs(A={"type": "object", "patternProperties": {".*": ref("A")}}),
        {"x": {"y": {}}},
    ),
    "object with a list of itself": (
        refs(A=obj(Children={"type": "array", "insertionOrder": False, "items": ref("A")})),
        {"Children": [{"Children": []}]},
    ),
    # These never say what the value is: a warning, and any value is accepted.
    "A -> A": (refs(A=ref("A")), {"anything": [1, "2"]}),
    "A -> B -> A": (refs(A=ref("B"), B=ref("A")), "a string"),
    "A = allOf[B], B = allOf[A]": (
        refs(A={"allOf": [ref("B")]}, B={"allOf": [ref("A")]}),
        5,
    ),
    "A = anyOf[string, A]": (refs(A={"anyOf": [{"type": "string"}, ref("A")]}), "s"),
}

#: name -> (schema, the pointer of the error)
TOO_DEEP = {
    "objects nested 300 levels": (nested_objects(300), "/properties/Deep/properties/L299"),
    "arrays nested 300 levels": (nested_arrays(300), "/properties/Deep/items"),
    "a chain of 500 definitions": (ref_chain(500), "/definitions/D"),
    "a chain of 300 objects": (object_chain(300), "/definitions/D"),
}


def generated(tmp_path, schema):
    """generate on a project with `schema`: None when it worked, else the report's errors."""
    root = make_project(tmp_path / "p", schema)
    before = snapshot_tree(root)
    try:
        generate_project(root)
    except InvalidSchemaError as error:
        assert snapshot_tree(root) == before
        return [(d.pointer, d.message) for d in error.report.diagnostics if d.severity == "error"]
    return None


@pytest.mark.parametrize("name", list(RECURSIVE))
def test_recursive_schemas_generate_models_that_round_trip(name, tmp_path, request):
    schema, value = RECURSIVE[name]
    report = validate_text(json.dumps(schema))
    assert report.valid, report.diagnostics
    assert generated(tmp_path, schema) is None
    package = f"_deep_{abs(hash(name))}"
    models = load_models(render_models(schema), package)
    try:
        given = {"Id": "x", "A": value}
        assert models.ResourceModel._deserialize(given)._serialize() == given
    finally:
        unload(package)


@pytest.mark.parametrize(
    "name", ["A -> A", "A -> B -> A", "A = allOf[B], B = allOf[A]", "A = anyOf[string, A]"]
)
def test_ref_loops_are_a_warning_at_each_ref_and_strict_rejects_them(name):
    schema, _ = RECURSIVE[name]
    report = validate_text(json.dumps(schema))
    loops = [d for d in report.diagnostics if "leads back to itself" in d.message]
    assert loops and all(d.severity == "warning" for d in loops)
    assert all(d.pointer.startswith("/definitions/") and d.pointer.endswith("$ref") for d in loops)
    assert not validate_text(json.dumps(schema), strict=True).valid


@pytest.mark.parametrize("name", list(TOO_DEEP))
def test_too_deep_is_one_error_with_a_pointer_in_validate_and_generate(name, tmp_path):
    schema, pointer = TOO_DEEP[name]
    text = json.dumps(schema)
    errors = [
        (d.pointer, d.message) for d in validate_text(text).diagnostics if d.severity == "error"
    ]
    assert len(errors) == 1 and errors[0][0].startswith(pointer), errors
    assert "deep" in errors[0][1]
    assert generated(tmp_path, schema) == errors


@pytest.mark.parametrize(
    "schema",
    [
        nested_objects(MAX_DEPTH - 2),
        nested_arrays(MAX_DEPTH - 2),
        ref_chain(MAX_DEPTH - 3),
        object_chain(MAX_DEPTH // 2 - 2),
    ],
    ids=["objects", "arrays", "definitions", "objects through definitions"],
)
def test_just_inside_the_limit_everything_works(schema, tmp_path):
    """The limit is one that validation, models, docs and example inputs all stay within."""
    assert validate_text(json.dumps(schema)).valid
    assert generated(tmp_path, schema) is None


@pytest.mark.parametrize("levels", [MAX_NESTING + 1, 5000, 100_000])
def test_a_document_nested_beyond_reason_is_refused_not_crashed_on(levels, tmp_path):
    # Deep JSON where no schema is (an example value): refused where it crosses the line, or
    # by the parser for a document Python cannot even read.
    schema = schema_with({"P": {"type": "array", "default": []}})
    text = json.dumps(schema).replace('"default": []', '"default": ' + "[" * levels + "]" * levels)
    report = validate_text(text)
    errors = [d for d in report.diagnostics if d.severity == "error"]
    assert len(errors) == 1 and "nested" in errors[0].message
    (tmp_path / "s.json").write_text(text)
    assert main(["validate", str(tmp_path / "s.json")]) == ExitCode.FAILED


def test_the_cli_says_it_once_and_exits_1(tmp_path, capsys):
    root = make_project(tmp_path / "p", nested_objects(400))
    assert main(["generate", str(root)]) == ExitCode.FAILED
    err = capsys.readouterr().err
    assert err.count(" deep") == 1
    assert "RecursionError" not in err and "Traceback" not in err


# --------------------------------------------------------------------------- long names

LONG = "N" * 64


def test_long_nested_names_give_docs_file_names_that_fit(tmp_path):
    inner = obj(X={"type": "string"})
    for i in range(8):
        inner = obj(**{LONG[:-1] + str(i): inner})
    schema = schema_with(
        {LONG: inner, "Other": ref(LONG)}, {LONG: obj(**{LONG: {"type": "string"}})}
    )
    assert validate_text(json.dumps(schema)).valid
    assert generated(tmp_path, schema) is None
    names = sorted(p.name for p in (tmp_path / "p" / "docs").iterdir())
    assert len(names) == 11  # README, eight nested pages and the definition's
    assert all(len(name.encode()) <= 80 for name in names), names
    assert len({n.lower() for n in names}) == len(names)
    max_name = os.pathconf(tmp_path, "PC_NAME_MAX")
    assert all(len(name) < max_name for name in names)
