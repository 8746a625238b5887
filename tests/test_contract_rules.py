"""The pure pieces of `cfngen test`: -k expressions, time limits, model comparison, inputs."""

from __future__ import annotations

import pytest

from cfngen._contract._select import compile_expression
from cfngen._errors import CfngenError
from cfngen._kinds.resource._view import ResourceSchema
from cfngen._kinds.resource.contract._inputs import InputProblem, InputSet, update_request
from cfngen._kinds.resource.contract._request import Limits
from cfngen._kinds.resource.contract._rules import (
    MISSING,
    differences,
    missing_identifiers,
    pruned,
)

NAMES = [
    "contract_create_read",
    "contract_create_list",
    "contract_delete_list",
    "contract_update_not_updatable",
    "contract_create_read[inputs_2]",
]


@pytest.mark.parametrize(
    ("expression", "selected"),
    [
        ("", NAMES),
        ("read", ["contract_create_read", "contract_create_read[inputs_2]"]),
        ("READ", ["contract_create_read", "contract_create_read[inputs_2]"]),
        ("list and not delete", ["contract_create_list"]),
        ("not_updatable or delete_list", ["contract_delete_list", "contract_update_not_updatable"]),
        ("not (create or delete)", ["contract_update_not_updatable"]),
        ("inputs_2", ["contract_create_read[inputs_2]"]),
        (
            "create and (read or list) and not inputs_2",
            ["contract_create_read", "contract_create_list"],
        ),
    ],
)
def test_k_expressions(expression, selected):
    match = compile_expression(expression)
    assert [name for name in NAMES if match(name)] == selected


@pytest.mark.parametrize(
    "expression", ["and", "read and", "(read", "read)", "read or or list", "not"]
)
def test_malformed_k_expressions_are_usage_errors(expression):
    with pytest.raises(CfngenError, match="-k"):
        compile_expression(expression)


@pytest.mark.parametrize(
    ("enforce", "create", "read"),
    [(None, 60, 30), (10, 20, 10), (0.5, 1, 0.5)],
)
def test_enforce_timeout_gives_read_and_list_s_and_the_others_2s(enforce, create, read):
    limits = Limits.enforce(enforce)
    assert [limits.for_action(a) for a in ("CREATE", "UPDATE", "DELETE", "READ", "LIST")] == [
        create,
        create,
        create,
        read,
        read,
    ]


SCHEMA = {
    "properties": {
        "Name": {"type": "string"},
        "Id": {"type": "string"},
        "Secret": {"type": "string"},
        "Tags": {"type": "array", "insertionOrder": False, "items": {"$ref": "#/definitions/Tag"}},
        "Steps": {"type": "array", "items": {"type": "string"}},
        "Config": {"$ref": "#/definitions/Config"},
    },
    "definitions": {
        "Tag": {"type": "object", "properties": {"Key": {"type": "string"}}},
        "Config": {
            "type": "object",
            "properties": {"Mode": {"type": "string"}, "Password": {"type": "string"}},
        },
    },
    "primaryIdentifier": ["/properties/Id"],
    "additionalIdentifiers": [["/properties/Name"]],
    "readOnlyProperties": ["/properties/Id"],
    "writeOnlyProperties": ["/properties/Secret", "/properties/Config/Password"],
    "createOnlyProperties": ["/properties/Name"],
    "handlers": {"create": {}, "read": {}},
}
INFO = ResourceSchema(SCHEMA)


@pytest.mark.parametrize(
    ("expected", "actual", "rows"),
    [
        # readOnly and writeOnly input properties are not compared; extra output is fine.
        ({"Name": "a", "Id": "x", "Secret": "s"}, {"Name": "a", "Id": "y", "More": 1}, []),
        ({"Name": "a"}, {"Name": "b"}, [("/Name", "a", "b")]),
        ({"Name": "a"}, {}, [("/Name", "a", MISSING)]),
        ({"Config": {"Mode": "m", "Password": "p"}}, {"Config": {"Mode": "m"}}, []),
        ({"Config": {"Mode": "m"}}, {"Config": {"Mode": "n"}}, [("/Config/Mode", "m", "n")]),
        # insertionOrder: false compares as a multiset; the default keeps the order.
        ({"Tags": [{"Key": "a"}, {"Key": "b"}]}, {"Tags": [{"Key": "b"}, {"Key": "a"}]}, []),
        (
            {"Steps": ["a", "b"]},
            {"Steps": ["b", "a"]},
            [("/Steps/0", "a", "b"), ("/Steps/1", "b", "a")],
        ),
        ({"Steps": ["a"]}, {"Steps": ["a", "b"]}, [("/Steps", ["a"], ["a", "b"])]),
        # 1 and True are different JSON values.
        ({"Name": 1}, {"Name": True}, [("/Name", 1, True)]),
    ],
)
def test_differences_between_input_and_returned_model(expected, actual, rows):
    assert differences(INFO, expected, actual) == rows


def test_identifiers_and_pruning():
    assert missing_identifiers(INFO, {"Name": "a"}) == ["/Id"]
    assert missing_identifiers(INFO, {"Id": ""}) == ["/Id"]
    assert missing_identifiers(INFO, {"Id": "x"}) == []
    info = ResourceSchema({"writeOnlyProperties": ["/properties/L/*/P"]})
    assert pruned({"L": [{"P": 1, "Q": 2}, {"P": 3}]}, info.write_only) == {"L": [{"Q": 2}, {}]}


def test_update_request_from_files_takes_identifiers_and_read_only_values_of_the_resource():
    schema = {**SCHEMA, "primaryIdentifier": ["/properties/Name"]}
    info = ResourceSchema(schema)
    inputs = InputSet(
        create={"Name": "a"}, update={"Name": "a", "Steps": ["s"]}, invalid=None, label="inputs_1"
    )
    current = {"Name": "a", "Id": "generated", "Steps": []}
    assert update_request(info, inputs, current) == {"Name": "a", "Id": "generated", "Steps": ["s"]}
    inputs.update = {"Name": "b"}
    with pytest.raises(InputProblem, match="changes the createOnly identifier /Name"):
        update_request(info, inputs, current)


def test_generated_update_request_goes_on_top_of_the_resource():
    inputs = InputSet(create={"Name": "a"}, update={"Steps": ["s"]}, invalid=None)
    assert update_request(INFO, inputs, {"Name": "a", "Id": "i"}) == {
        "Name": "a",
        "Id": "i",
        "Steps": ["s"],
    }


@pytest.mark.parametrize(
    ("schema", "writable"),
    [
        ({"primaryIdentifier": ["/properties/N"], "createOnlyProperties": ["/properties/N"]}, True),
        ({"primaryIdentifier": ["/properties/N"]}, False),
        (
            {"primaryIdentifier": ["/properties/Id"], "readOnlyProperties": ["/properties/Id"]},
            False,
        ),
        (
            {
                "primaryIdentifier": ["/properties/Id"],
                "readOnlyProperties": ["/properties/Id", "/properties/Arn"],
                "additionalIdentifiers": [["/properties/Arn"], ["/properties/Name"]],
            },
            True,
        ),
        (
            {
                "primaryIdentifier": ["/properties/Id"],
                "readOnlyProperties": ["/properties/Id", "/properties/Arn"],
                "additionalIdentifiers": [["/properties/Arn"]],
            },
            False,
        ),
    ],
)
def test_writable_identifiers_decide_whether_a_duplicate_create_must_fail(schema, writable):
    assert ResourceSchema(schema).writable_identifiers is writable
