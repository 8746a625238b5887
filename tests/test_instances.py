"""Example inputs for tricky schemas, and what model_errors says about bad models."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cfngen._instances import (
    create_inputs,
    example_inputs,
    input_errors,
    invalid_input,
    model_errors,
    update_input,
)
from cfngen._patterns import search


def resource(properties, **extra):
    """A minimal resource schema around `properties`."""
    return {
        "typeName": "Test::Unit::Thing",
        "properties": properties,
        "additionalProperties": False,
        "primaryIdentifier": ["/properties/Id"],
        "readOnlyProperties": ["/properties/Id"],
        **extra,
    } | {"properties": {"Id": {"type": "string"}, **properties}}


def create(schema):
    inputs = create_inputs(schema, 1)
    assert inputs, input_errors(schema, example_inputs(schema)["create"])
    value = inputs[0]
    assert input_errors(schema, value) == []
    assert "Id" not in value
    return value


# -- generation for tricky schemas ----------------------------------------------------------

TREE = {
    "type": "object",
    "properties": {
        "Name": {"type": "string", "maxLength": 8},
        "Children": {"type": "array", "items": {"$ref": "#/definitions/Node"}},
    },
    "required": ["Name"],
    "additionalProperties": False,
}


def test_recursive_refs_terminate():
    schema = resource({"Root": {"$ref": "#/definitions/Node"}}, definitions={"Node": TREE})
    value = create(schema)
    depth, node = 0, value["Root"]
    while node.get("Children"):
        node, depth = node["Children"][0], depth + 1
    assert 1 <= depth < 40


def test_mutually_recursive_required_refs_end_in_optional_ones():
    schema = resource(
        {"A": {"$ref": "#/definitions/A"}},
        required=["A"],
        definitions={
            "A": {"type": "object", "properties": {"B": {"$ref": "#/definitions/B"}}},
            "B": {
                "type": "object",
                "properties": {"A": {"$ref": "#/definitions/A"}, "Leaf": {"type": "integer"}},
                "required": ["Leaf"],
            },
        },
    )
    assert "A" in create(schema)


def test_impossible_recursion_gives_up_without_raising():
    schema = resource(
        {"Loop": {"$ref": "#/definitions/Loop"}},
        required=["Loop"],
        definitions={
            "Loop": {
                "type": "object",
                "properties": {"Next": {"$ref": "#/definitions/Loop"}},
                "required": ["Next"],
            }
        },
    )
    assert create_inputs(schema, 1) == []
    assert input_errors(schema, example_inputs(schema)["create"]) != []


@pytest.mark.parametrize("keyword", ["oneOf", "anyOf"])
def test_alternatives_by_required_properties(keyword):
    schema = resource(
        {"A": {"type": "string"}, "B": {"type": "integer"}, "C": {"type": "boolean"}},
        **{keyword: [{"required": ["A"]}, {"required": ["B"]}]},
    )
    value = create(schema)
    assert (
        ("A" in value) != ("B" in value) if keyword == "oneOf" else ("A" in value or "B" in value)
    )


def test_one_of_alternatives_by_type():
    schema = resource(
        {
            "Port": {
                "oneOf": [
                    {"type": "integer", "minimum": 1, "maximum": 65535},
                    {"type": "string", "pattern": "^[0-9]+$"},
                ]
            }
        },
        required=["Port"],
    )
    assert create(schema)["Port"] == 1


def test_unique_enum_items_fill_min_items():
    schema = resource(
        {
            "Days": {
                "type": "array",
                "items": {"type": "string", "enum": ["MON", "TUE", "WED"]},
                "minItems": 3,
                "uniqueItems": True,
            }
        },
        required=["Days"],
    )
    assert sorted(create(schema)["Days"]) == ["MON", "TUE", "WED"]


def test_unique_pattern_items():
    schema = resource(
        {
            "Cidrs": {
                "type": "array",
                "items": {"type": "string", "pattern": r"^10\.\d{1,3}\.0\.0/16$"},
                "minItems": 4,
                "uniqueItems": True,
            }
        },
        required=["Cidrs"],
    )
    cidrs = create(schema)["Cidrs"]
    assert len(set(cidrs)) == 4


@pytest.mark.parametrize(
    ("pattern", "min_length", "max_length"),
    [
        ("^[a-z]+$", 0, 3),
        ("^[a-zA-Z0-9-]+$", 40, 40),
        (r"^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@-]+$", 0, 32),
        (r"^(?=.{8,12}$)[a-z]+(-[a-z]+)*$", 0, None),
        (r"^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[^A-Za-z0-9])\S{8,64}$", 0, None),
        (r"^(?!aws:)[\p{L}\p{Z}\p{N}_.:/=+\-@]*$", 1, 128),
        (r"^[\w-.]+@[\w-]+\.[a-z]{2,4}$", 0, 20),
        (r"^(?i)(Enabled|Disabled)$", 0, None),
    ],
)
def test_strings_meet_pattern_and_lengths(pattern, min_length, max_length):
    prop = {"type": "string", "pattern": pattern, "minLength": min_length}
    if max_length is not None:
        prop["maxLength"] = max_length
    value = create(resource({"S": prop}, required=["S"]))["S"]
    assert search(pattern, value)
    assert min_length <= len(value) <= (max_length or len(value))


def test_pattern_properties_keys_and_min_properties():
    schema = resource(
        {
            "Limits": {
                "type": "object",
                "patternProperties": {"^[A-Z][a-z]{2,5}$": {"type": "integer", "minimum": 3}},
                "additionalProperties": False,
                "minProperties": 2,
            }
        },
        required=["Limits"],
    )
    limits = create(schema)["Limits"]
    assert len(limits) >= 2
    assert all(search("^[A-Z][a-z]{2,5}$", key) and value >= 3 for key, value in limits.items())


@pytest.mark.parametrize(
    ("number", "check"),
    [
        (
            {"type": "integer", "exclusiveMinimum": 5, "multipleOf": 5},
            lambda v: v > 5 and v % 5 == 0,
        ),
        (
            {"type": "number", "minimum": 0.6, "exclusiveMaximum": 1, "multipleOf": 0.25},
            lambda v: v == 0.75,
        ),
        ({"type": "integer", "minimum": 1000, "maximum": 1000}, lambda v: v == 1000),
        ({"type": "number", "maximum": -3.5}, lambda v: v <= -3.5),
        ({"type": "integer", "exclusiveMaximum": 0}, lambda v: v < 0),
    ],
)
def test_numbers(number, check):
    value = create(resource({"N": number}, required=["N"]))["N"]
    assert check(value)


def test_dependencies_and_dependent_required_pull_in_properties():
    schema = resource(
        {"A": {"type": "string"}, "B": {"type": "string"}, "C": {"type": "string"}},
        dependencies={"A": ["B"]},
        dependentRequired={"B": ["C"]},
    )
    value = create(schema)
    assert {"A", "B", "C"} <= set(value)


def test_not_required_drops_the_excluded_property():
    schema = resource(
        {"Domain": {"type": "string"}, "Custom": {"type": "string"}},
        required=["Domain"],
        **{"not": {"required": ["Custom"]}},
    )
    assert "Custom" not in create(schema)


def test_if_then_else():
    schema = resource(
        {"Mode": {"type": "string", "enum": ["auto", "manual"]}, "Size": {"type": "integer"}},
        required=["Mode"],
        **{
            "if": {"properties": {"Mode": {"const": "manual"}}},
            "then": {"required": ["Size"]},
            "else": {"not": {"required": ["Size"]}},
        },
    )
    value = create(schema)
    assert ("Size" in value) == (value["Mode"] == "manual")


def test_all_of_is_merged():
    schema = resource(
        {
            "Name": {
                "allOf": [
                    {"type": "string", "minLength": 5},
                    {"pattern": "^[a-z]+$"},
                    {"maxLength": 6},
                ]
            }
        },
        required=["Name"],
    )
    assert 5 <= len(create(schema)["Name"]) <= 6


def test_read_only_properties_are_left_out_everywhere():
    schema = resource(
        {
            "Config": {
                "type": "object",
                "properties": {"Arn": {"type": "string"}, "Size": {"type": "integer"}},
            },
            "Items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"Key": {"type": "string"}, "Status": {"type": "string"}},
                },
            },
        },
        readOnlyProperties=[
            "/properties/Id",
            "/properties/Config/Arn",
            "/properties/Items/*/Status",
        ],
    )
    value = create(schema)
    assert value["Config"] == {"Size": 1}
    assert all("Status" not in item for item in value["Items"])


@pytest.mark.parametrize(
    ("fmt", "check"),
    [
        ("date-time", lambda v: v.startswith("2024-") and v.endswith("Z")),
        ("ipv4-network", lambda v: v.endswith("/16")),
        ("AWS::IAM::Role.Arn", lambda v: v.startswith("arn:aws:iam::123456789012:role/")),
        ("AWS::EC2::VPC.Id", lambda v: search(r"^vpc-([0-9a-f]{8}|[0-9a-f]{17})$", v)),
        ("email", lambda v: "@" in v),
    ],
)
def test_formats(fmt, check):
    value = create(resource({"F": {"type": "string", "format": fmt}}, required=["F"]))["F"]
    assert check(value)


def test_maps_get_an_entry():
    schema = resource(
        {"Tags": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 4}}},
        required=["Tags"],
    )
    tags = create(schema)["Tags"]
    assert len(tags) == 1 and all(len(v) <= 4 for v in tags.values())


def test_unreadable_pattern_is_ignored_like_the_validator_ignores_it():
    schema = resource({"D": {"type": "string", "pattern": "^[a-z[]+$"}}, required=["D"])
    assert isinstance(create(schema)["D"], str)


# -- update, invalid, several creates -----------------------------------------------------

UPDATABLE = resource(
    {
        "Name": {"type": "string", "pattern": "^[a-z]+$"},
        "Engine": {"type": "string", "enum": ["postgres", "mysql"]},
        "Size": {"type": "integer", "minimum": 1},
        "Tags": {"type": "array", "items": {"type": "string"}},
    },
    required=["Name", "Engine"],
    createOnlyProperties=["/properties/Name", "/properties/Engine"],
)


def test_update_keeps_create_only_values_and_changes_an_updatable_one():
    inputs = example_inputs(UPDATABLE)
    create_value, update = inputs["create"], inputs["update"]
    assert input_errors(UPDATABLE, update) == []
    assert (update["Name"], update["Engine"]) == (create_value["Name"], create_value["Engine"])
    assert update["Size"] != create_value["Size"]


def test_update_equals_create_when_nothing_is_updatable():
    schema = resource(
        {"Name": {"type": "string"}},
        required=["Name"],
        createOnlyProperties=["/properties/Name"],
    )
    value = create(schema)
    assert update_input(schema, value) == value


def test_update_changes_a_property_whose_nested_part_is_create_only_never():
    schema = resource(
        {
            "Config": {"type": "object", "properties": {"Zone": {"type": "string"}}},
            "Note": {"type": "string"},
        },
        createOnlyProperties=["/properties/Config/Zone"],
    )
    value = create(schema)
    update = update_input(schema, value)
    assert update["Config"] == value["Config"] and update["Note"] != value["Note"]


def test_invalid_has_a_wrong_type_for_a_required_property():
    inputs = example_inputs(UPDATABLE)
    invalid = inputs["invalid"]
    assert input_errors(UPDATABLE, invalid) == [("/Name", "must be a string, not an integer")]
    assert {k: v for k, v in invalid.items() if k != "Name"} == {
        k: v for k, v in inputs["create"].items() if k != "Name"
    }


def test_invalid_without_typed_properties_adds_an_undeclared_one():
    schema = resource({"Anything": {}}, required=["Anything"])
    invalid = invalid_input(schema, create(schema))
    assert ("/UndeclaredProperty", "unknown key 'UndeclaredProperty'") in input_errors(
        schema, invalid
    )


def test_several_distinct_creates():
    values = create_inputs(UPDATABLE, 3)
    assert len(values) == 3
    assert len({json.dumps(v, sort_keys=True) for v in values}) == 3
    assert all(input_errors(UPDATABLE, v) == [] for v in values)


def test_as_many_creates_as_the_schema_allows():
    schema = resource({"On": {"type": "boolean"}}, required=["On"])
    assert sorted(v["On"] for v in create_inputs(schema, 5)) == [False, True]


def test_same_inputs_under_another_hash_seed():
    from tests._corpus import corpus

    # Every 97th real schema, handed over as JSON (the children need not load the corpus).
    sampled = list(corpus().values())[::97]
    schemas = json.dumps(sampled)
    code = (
        "import json, sys; from cfngen._instances import example_inputs;"
        "schemas = json.load(sys.stdin);"
        "print(json.dumps([example_inputs(schema) for schema in schemas], sort_keys=True))"
    )
    outputs = set()
    for seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        result = subprocess.run(
            [sys.executable, "-c", code],
            input=schemas,
            capture_output=True,
            text=True,
            env=env,
            cwd=Path(__file__).parent.parent,
            check=True,
        )
        outputs.add(result.stdout)
    assert len(outputs) == 1
    assert len(json.loads(outputs.pop())) == len(sampled)  # inputs for each schema


# -- model_errors -------------------------------------------------------------------------

MODEL_SCHEMA = resource(
    {
        "Name": {"type": "string", "pattern": r"^\d+$", "maxLength": 5},
        "Kind": {"type": "string", "enum": ["A", "B"]},
        "Count": {"type": "integer", "minimum": 1},
        "When": {"type": "string", "format": "date-time"},
        "Items": {"type": "array", "items": {"$ref": "#/definitions/Item"}, "uniqueItems": True},
        "Port": {"oneOf": [{"type": "integer"}, {"type": "string", "pattern": "^[0-9]+$"}]},
    },
    required=["Name", "Kind"],
    definitions={
        "Item": {
            "type": "object",
            "properties": {"Key": {"type": "string", "minLength": 2}},
            "required": ["Key"],
            "additionalProperties": False,
        }
    },
)


@pytest.mark.parametrize(
    ("model", "errors"),
    [
        ({"Id": "x", "Name": "123", "Kind": "A"}, []),
        ({"Name": 5, "Kind": "A"}, [("/Name", "must be a string, not an integer")]),
        (
            {"Name": "\u0661\u0662", "Kind": "A"},
            [("/Name", '"١٢" does not match ^\\d+$')],
        ),
        ({"Name": "1", "Kind": "C"}, [("/Kind", '"C" is not allowed; use one of "A", "B"')]),
        ({"Kind": "A"}, [("/Name", "missing required key 'Name'")]),
        (
            {"Name": "1", "Kind": "A", "Colour": "red"},
            [("/Colour", "unknown key 'Colour'")],
        ),
        ({"Name": "123456", "Kind": "A"}, [("/Name", "must be at most 5 characters long, not 6")]),
        ({"Name": "1", "Kind": "A", "Count": 0}, [("/Count", "must be at least 1, not 0")]),
        (
            {"Name": "1", "Kind": "A", "When": "yesterday"},
            [("/When", '"yesterday" is not a valid date-time')],
        ),
        (
            {"Name": "1", "Kind": "A", "Items": [{"Key": "k"}, {}]},
            [
                ("/Items/0/Key", "must be at least 2 characters long, not 1"),
                ("/Items/1/Key", "missing required key 'Key'"),
            ],
        ),
        (
            {"Name": "1", "Kind": "A", "Items": [{"Key": "ab"}, {"Key": "ab"}]},
            [("/Items", 'lists {"Key": "ab"} more than once; remove the repeats')],
        ),
        (
            {"Name": "1", "Kind": "A", "Port": True},
            [
                (
                    "/Port",
                    "matches none of the allowed alternatives"
                    " (closest: must be an integer, not a boolean)",
                )
            ],
        ),
    ],
)
def test_model_errors(model, errors):
    assert model_errors(MODEL_SCHEMA, model) == errors


def test_one_of_matching_twice():
    schema = resource({"P": {"oneOf": [{"type": "integer"}, {"minimum": 0}]}})
    assert model_errors(schema, {"P": 3}) == [
        ("/P", "matches more than one of the alternatives, but must match exactly one")
    ]


def test_partial_models_skip_presence_rules_only():
    schema = resource(
        {"A": {"type": "string"}, "B": {"type": "string"}, "Secret": {"type": "string"}},
        required=["Secret"],
        oneOf=[{"required": ["A"]}, {"required": ["B"]}],
        writeOnlyProperties=["/properties/Secret"],
    )
    model = {"Id": "1", "A": "a", "B": "b"}
    assert model_errors(schema, model, partial=True) == []
    assert model_errors(schema, {**model, "A": 1}, partial=True) == [
        ("/A", "must be a string, not an integer")
    ]
    assert ("/Secret", "missing required key 'Secret'") in model_errors(schema, model)


def test_read_only_properties_are_not_required_in_inputs_but_are_in_models():
    schema = resource({"Name": {"type": "string"}}, required=["Id", "Name"])
    assert input_errors(schema, {"Name": "n"}) == []
    assert model_errors(schema, {"Name": "n"}) == [("/Id", "missing required key 'Id'")]


def test_a_dangling_ref_is_a_user_error():
    from cfngen._errors import CfngenError, ExitCode

    schema = resource({"X": {"$ref": "#/definitions/Missing"}}, required=["X"])
    with pytest.raises(CfngenError, match="points at nothing") as caught:
        example_inputs(schema)
    assert caught.value.exit_code == ExitCode.FAILED
    with pytest.raises(CfngenError, match="cfngen validate"):
        model_errors(schema, {"X": 1})
