"""docs/: the property reference, like the official one and right where it is not."""

from __future__ import annotations

import json
import re

import pytest

from cfngen._kinds.resource._docs import render_docs


def section(text: str, heading: str) -> str:
    """The text under `#### heading` up to the next heading of that level or higher."""
    match = re.search(rf"^#### {re.escape(heading)}\n(.*?)(?=^#{{1,4}} |\Z)", text, re.S | re.M)
    assert match, heading
    return match.group(1)


SCHEMA = {
    "typeName": "Acme::Test::Widget",
    "description": "A widget.",
    "definitions": {
        "Tag": {
            "type": "object",
            "properties": {"Key": {"type": "string"}, "Value": {"type": "string"}},
            "required": ["Key"],
        },
        "Node": {
            "type": "object",
            "description": "A tree node.",
            "properties": {"Children": {"type": "array", "items": {"$ref": "#/definitions/Node"}}},
        },
    },
    "properties": {
        "Name": {
            "type": "string",
            "description": "The name.",
            "minLength": 1,
            "maxLength": 64,
            "pattern": "^[a-z<>]+$",
        },
        "Mode": {"type": "string", "enum": ["ON", "OFF"]},
        "Count": {"type": ["integer", "string"]},
        "Tags": {"type": "array", "items": {"$ref": "#/definitions/Tag"}},
        "Root": {"$ref": "#/definitions/Node", "description": "The root."},
        "Settings": {
            "type": "object",
            "properties": {"Depth": {"type": "integer"}, "Id": {"type": "string"}},
        },
        "Labels": {"type": "object", "patternProperties": {".*": {"type": "string"}}},
        "Either": {"oneOf": [{"type": "string"}, {"type": "boolean"}]},
        "Arn": {"type": "string", "description": "The widget's ARN."},
    },
    "required": ["Name"],
    "primaryIdentifier": ["/properties/Name"],
    "readOnlyProperties": ["/properties/Arn", "/properties/Settings/Id"],
    "createOnlyProperties": ["/properties/Name"],
    "conditionalCreateOnlyProperties": ["/properties/Mode"],
}


@pytest.fixture(scope="module")
def docs() -> dict[str, str]:
    return render_docs(SCHEMA, "Acme::Test::Widget")


def test_one_page_per_object_type(docs):
    assert set(docs) == {"README.md", "tag.md", "node.md", "settings.md"}


def test_readme_syntax_lists_writable_properties_without_read_only_ones(docs):
    readme = docs["README.md"]
    json_block = readme.split("### JSON")[1].split("</pre>")[0]
    assert '"Type" : "Acme::Test::Widget"' in json_block
    assert '>Name</a>" : <i>String</i>,' in json_block
    assert ">Arn<" not in readme.split("## Return Values")[0]
    # The last writable property carries no trailing comma, whatever follows it.
    assert '>Either</a>" : <i>String, Boolean</i>\n' in json_block


def test_property_details(docs):
    name = section(docs["README.md"], "Name")
    assert "The name." in name
    assert "_Required_: Yes" in name
    assert "_Minimum Length_: <code>1</code>" in name
    assert "_Maximum Length_: <code>64</code>" in name
    assert "_Pattern_: <code>^[a-z&lt;&gt;]+$</code>" in name
    assert "#update-replacement" in name
    mode = section(docs["README.md"], "Mode")
    assert "_Allowed Values_: <code>ON</code> | <code>OFF</code>" in mode
    assert "#update-some-interrupt" in mode
    assert "_Required_: No" in mode
    assert "#update-no-interrupt" in section(docs["README.md"], "Count")


@pytest.mark.parametrize(
    ("prop", "long_type"),
    [
        ("Count", "Integer, String"),
        ("Tags", 'List of <a href="tag.md">Tag</a>'),
        ("Root", '<a href="node.md">Node</a>'),
        ("Settings", '<a href="settings.md">Settings</a>'),
        ("Labels", "Map of String"),
        ("Either", "String, Boolean"),
    ],
)
def test_long_form_types(docs, prop, long_type):
    assert f"_Type_: {long_type}\n" in section(docs["README.md"], prop)


def test_a_ref_keeps_the_referencing_description(docs):
    assert "The root." in section(docs["README.md"], "Root")


def test_recursive_definitions_link_to_themselves(docs):
    node = docs["node.md"]
    assert node.startswith("# Acme::Test::Widget Node\n\nA tree node.")
    assert '_Type_: List of <a href="node.md">Node</a>' in node


def test_sub_pages_mark_required_and_read_only(docs):
    tag = docs["tag.md"]
    assert "_Required_: Yes" in section(tag, "Key")
    assert "_Required_: No" in section(tag, "Value")
    assert "Id" not in docs["settings.md"]  # read-only nested property


def test_return_values(docs):
    values = docs["README.md"].split("## Return Values")[1]
    assert "Ref returns the Name." in values
    assert "#### Arn\n\nThe widget's ARN." in values
    assert "#### Settings.Id\n\nReturns the <code>Settings.Id</code> value." in values


def test_no_properties_no_docs():
    assert render_docs({"typeName": "A::B::C"}, "A::B::C") == {}


def test_page_names_that_clash_get_a_suffix():
    schema = {
        "definitions": {"Inner": {"type": "object", "properties": {"A": {"type": "string"}}}},
        "properties": {
            "Inner": {"type": "object", "properties": {"B": {"type": "string"}}},
            "Other": {"$ref": "#/definitions/Inner"},
        },
    }
    docs = render_docs(schema, "A::B::C")
    assert set(docs) == {"README.md", "inner.md", "inner-2.md"}
    assert docs["inner.md"] != docs["inner-2.md"]


def test_markdown_reserved_first_characters_are_escaped():
    docs = render_docs({"properties": {"#Odd": {"type": "string"}}}, "A::B::C")
    assert "#### \\#Odd\n" in docs["README.md"]


def test_same_pages_as_the_official_docs(tmp_path):
    """The official `cfn generate` docs for its own example schema: same pages, same shape."""
    from rpdk.core.data_loaders import resource_json
    from rpdk.core.project import Project

    schema = resource_json("rpdk.core.project", "data/examples/resource/initech.tps.report.v1.json")
    schema["typeName"] = "Acme::Test::Widget"
    project = Project(root=tmp_path)
    project.type_name = "Acme::Test::Widget"
    project.artifact_type = "RESOURCE"
    project.schema = json.loads(json.dumps(schema))
    project.generate_docs()
    official = {p.name: p.read_text() for p in (tmp_path / "docs").iterdir()}
    ours = render_docs(schema, "Acme::Test::Widget")
    assert set(ours) == set(official)
    for name, text in ours.items():
        headings = re.findall(r"^#+ .*$", text, re.M)
        assert headings == re.findall(r"^#+ .*$", official[name], re.M), name
        types = re.findall(r"^_Type_: .*$", text, re.M)
        assert types == re.findall(r"^_Type_: .*$", official[name], re.M), name
