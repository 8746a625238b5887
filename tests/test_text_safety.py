"""Text from the schema in derived files: IAM actions are checked before they reach the role,
YAML keeps every string exactly (Unicode included), descriptions reach docs/ as Markdown that
shows them as written (no raw NUL, CR or HTML)."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from cfngen._generate._jinja import yaml_string
from cfngen._kinds._shared._iam import action_problem
from cfngen._kinds._shared._role import render_role
from cfngen._kinds.resource._docs import markdown_text, render_docs
from cfngen._validate import validate_text

# --------------------------------------------------------------------------- IAM actions

#: (action, a fragment of why it is not one); None: it is one.
ACTIONS = [
    ("s3:GetObject", None),
    ("*", None),
    ("s3:Get*", None),
    ("s3:Get?bject", None),
    ("execute-api:Invoke", None),
    ("s3:REST.PUT.OBJECT", None),  # in registered AWS schemas (Logs::LogGroup)
    ("s3: GetObject", "a space"),
    ("s3:GetObject ", "a space"),
    ("s3:Get\x00Object", "NUL (U+0000)"),
    ("s3:GetObject\n", "a newline (U+000A)"),
    ("s3:GetObject\r", "a carriage return"),
    ("s3:\tGetObject", "a tab"),
    ("ec2:Describe\u200bInstances", "zero width space (U+200B)"),
    ("s3:Get\x1bObject", "a control character (U+001B)"),
    ("s3:Gét", "'é'"),
    ("s3GetObject", "service:Action"),
    ("s3:", "service:Action"),
    (":GetObject", "service:Action"),
    ("s3:Get:Object", "may not contain ':'"),
    ('s3:Get"Object', "may not contain '\"'"),
    ("s3/x:Get", "service prefix 's3/x'"),
]


@pytest.mark.parametrize(("action", "why"), ACTIONS)
def test_each_planted_action_is_named_for_what_is_wrong(action, why):
    problem = action_problem(action)
    if why is None:
        assert problem is None
    else:
        assert problem is not None and why in problem


def schema_with_permissions(create, tagging=None):
    schema = {
        "typeName": "Acme::Test::Widget",
        "description": "d",
        "properties": {"Id": {"type": "string"}},
        "additionalProperties": False,
        "primaryIdentifier": ["/properties/Id"],
        "readOnlyProperties": ["/properties/Id"],
        "handlers": {"create": {"permissions": create}},
        "tagging": {"taggable": False},
    }
    if tagging is not None:
        schema["tagging"] = {"taggable": True, "tagProperty": "/properties/Id", **tagging}
    return schema


@pytest.mark.parametrize(("action", "why"), [a for a in ACTIONS if a[1] is not None])
def test_a_malformed_action_is_an_error_at_its_pointer(action, why):
    report = validate_text(json.dumps(schema_with_permissions(["s3:GetObject", action])))
    errors = [(d.pointer, d.message) for d in report.diagnostics if d.severity == "error"]
    assert len(errors) == 1
    assert errors[0][0] == "/handlers/create/permissions/1"
    assert "is not an IAM action" in errors[0][1] and why in errors[0][1]


def test_tagging_permissions_are_actions_too():
    schema = schema_with_permissions(["s3:GetObject"], {"permissions": ["s3:Tag Resource"]})
    [error] = [d for d in validate_text(json.dumps(schema)).diagnostics if d.severity == "error"]
    assert error.pointer == "/tagging/permissions/0"


def test_an_empty_action_is_a_warning_and_left_out_of_the_role():
    schema = schema_with_permissions(["", "s3:GetObject"])
    report = validate_text(json.dumps(schema))
    assert report.valid
    assert any(d.pointer == "/handlers/create/permissions/0" for d in report.diagnostics)
    role = yaml.safe_load(render_role(schema, "Acme::Test::Widget"))
    statement = role["Resources"]["ExecutionRole"]["Properties"]["Policies"][0]
    assert statement["PolicyDocument"]["Statement"][0]["Action"] == ["s3:GetObject"]


# --------------------------------------------------------------------------- YAML


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_yaml_strings_read_back_exactly(value):
    text = yaml_string(value)
    assert "\n" not in text
    assert yaml.safe_load(f"x: {text}\n")["x"] == value


@pytest.mark.parametrize("value", ["é", "日本語", "😀", "a\u2028b", "a\x85b", "\ufeff", "\ud800"])
def test_yaml_strings_keep_unicode(value):
    text = yaml_string(value)
    assert yaml.safe_load(f"x: {text}")["x"] == value
    if value in ("é", "日本語"):
        assert value in text  # written as it is, not as \u escapes


def test_the_role_reads_back_whatever_action_it_is_given():
    # validate refuses these; the role must still not turn them into something else.
    actions = ["s3:GetObject", "x:Gé😀", "a\u2028b", "quote\"'"]
    role = yaml.safe_load(render_role(schema_with_permissions(actions), "Acme::Test::Widget"))
    statement = role["Resources"]["ExecutionRole"]["Properties"]["Policies"][0]
    assert statement["PolicyDocument"]["Statement"][0]["Action"] == sorted(actions)


# --------------------------------------------------------------------------- Markdown

#: (description, what must not be in the page, what must be)
DESCRIPTIONS = [
    ("a\x00b", "\x00", "ab"),
    ("line one\r\nline two\rthree", "\r", "line one\nline two\nthree"),
    ("<script>alert(1)</script>", "<script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
    ("Tom & Jerry", "Tom & Jerry", "Tom &amp; Jerry"),
    ("first\n# not a heading", "\n# not", "\n\\# not a heading"),
    ("\x1b[31mred\x1b[0m", "\x1b", "[31mred[0m"),
    ("tabs\tstay", "", "tabs\tstay"),
    ("日本語 é 😀", "", "日本語 é 😀"),
]


@pytest.mark.parametrize(("description", "absent", "present"), DESCRIPTIONS)
def test_descriptions_reach_docs_as_markdown_that_shows_them(description, absent, present):
    assert present in markdown_text(description)
    schema = {
        "typeName": "Acme::Test::Widget",
        "description": description,
        "properties": {
            "Id": {"type": "string", "description": description},
            "Config": {
                "type": "object",
                "description": description,
                "properties": {"Mode": {"type": "string", "description": description}},
            },
        },
        "readOnlyProperties": ["/properties/Id"],
    }
    pages = render_docs(schema, "Acme::Test::Widget")
    assert len(pages) == 2
    for text in pages.values():
        if absent:
            assert absent not in text
        assert present in text
        assert "\r" not in text and "\x00" not in text


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_no_description_leaves_a_control_character_or_a_tag_in_the_docs(description):
    text = markdown_text(description)
    assert not any(ord(c) < 32 and c not in "\n\t" for c in text)
    assert "<" not in text and ">" not in text
