"""`cfngen validate` in a custom resource project: a correct template and properties schema
pass; each planted defect is reported at its pointer with the right severity."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfngen._kinds.custom_resource._validate import check_file

TEMPLATE = """\
Transform: AWS::Serverless-2016-10-31
Parameters:
  Env:
    Type: String
    Default: prod
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: src/
      Handler: app.handler
      Runtime: python3.12
      Timeout: 30
  Thing:
    Type: Custom::Thing
    Properties:
      ServiceToken: !GetAtt Fn.Arn
      ServiceTimeout: 120
      Name: !Sub "${Env}-thing"
      Size: 3
"""
SCHEMA = {
    "type": "object",
    "properties": {
        "ServiceToken": {"type": "string"},
        "Name": {"type": "string", "pattern": "^[a-z-]+$"},
        "Size": {"type": "integer", "maximum": 10},
    },
    "required": ["Name"],
}


def report(tmp_path: Path, template: str = TEMPLATE, schema: object = SCHEMA):
    (tmp_path / "template.yaml").write_text(template)
    if schema is not None:
        (tmp_path / "properties-schema.json").write_text(
            schema if isinstance(schema, str) else json.dumps(schema)
        )
    return check_file(tmp_path / "template.yaml", strict=False)


def found(result) -> list[tuple[str, str]]:
    return [(d.severity, d.pointer) for d in result.diagnostics]


def test_a_correct_project_is_clean(tmp_path):
    result = report(tmp_path)
    assert result.diagnostics == []
    schema = check_file(tmp_path / "properties-schema.json", strict=True)
    assert schema.diagnostics == [] and schema.valid


# (replace, with) in TEMPLATE -> the one (severity, pointer) expected, and a word of the message.
PLANTED = {
    "no ServiceToken": (
        ("      ServiceToken: !GetAtt Fn.Arn\n", ""),
        ("error", "/Resources/Thing/Properties"),
        "ServiceToken",
    ),
    "a type name over 60 characters": (
        ("Type: Custom::Thing", "Type: Custom::" + "T" * 61),
        ("error", "/Resources/Thing/Type"),
        "60",
    ),
    "ServiceTimeout out of range": (
        ("ServiceTimeout: 120", "ServiceTimeout: 7200"),
        ("error", "/Resources/Thing/Properties/ServiceTimeout"),
        "3600",
    ),
    "no ServiceTimeout": (
        ("      ServiceTimeout: 120\n", ""),
        ("warning", "/Resources/Thing/Properties"),
        "an hour",
    ),
    "ServiceTimeout shorter than the function's Timeout": (
        ("ServiceTimeout: 120", "ServiceTimeout: 10"),
        ("warning", "/Resources/Thing/Properties/ServiceTimeout"),
        "shorter",
    ),
    "a ServiceToken naming no function": (
        ("!GetAtt Fn.Arn", "arn:aws:lambda:us-east-1:123456789012:function:elsewhere"),
        ("warning", "/Resources/Thing/Properties/ServiceToken"),
        "--handler",
    ),
    "a property the schema rejects": (
        ("Size: 3", "Size: 30"),
        ("error", "/Resources/Thing/Properties/Size"),
        "must be at most",
    ),
    "a required property missing": (
        ('      Name: !Sub "${Env}-thing"\n', ""),
        ("error", "/Resources/Thing/Properties/Name"),
        "missing required key 'Name'",
    ),
    "a parameter default the schema rejects": (
        ("Default: prod", "Default: PROD"),
        ("error", "/Resources/Thing/Properties/Name"),
        "does not match",
    ),
}


@pytest.mark.parametrize("case", PLANTED)
def test_each_planted_defect_is_reported_where_it_is(tmp_path, case):
    (old, new), expected, word = PLANTED[case]
    assert old in TEMPLATE
    result = report(tmp_path, TEMPLATE.replace(old, new))
    assert found(result) == [expected], result.diagnostics
    assert word in result.diagnostics[0].message + (result.diagnostics[0].hint or "")
    assert result.diagnostics[0].line is not None


def test_an_unresolvable_intrinsic_is_a_warning_not_an_error(tmp_path):
    result = report(tmp_path, TEMPLATE.replace('!Sub "${Env}-thing"', "!GetAtt Other.Name"))
    assert found(result) == [("warning", "/Resources/Thing/Properties/Name")]


@pytest.mark.parametrize(
    "schema, pointer",
    [
        ({"type": "array"}, "/type"),
        ({"type": "object", "properties": {"A": {"type": "strin"}}}, "/properties/A/type"),
        ("{not json", ""),
    ],
)
def test_a_broken_properties_schema_is_an_error(tmp_path, schema, pointer):
    report(tmp_path, schema=schema)
    result = check_file(tmp_path / "properties-schema.json", strict=False)
    assert [(d.severity, d.pointer) for d in result.diagnostics] == [("error", pointer)]


def test_cli_validate_checks_the_template_and_the_schema(tmp_path, capsys):
    from cfngen._cli import main

    report(tmp_path, TEMPLATE.replace("Size: 3", "Size: 30"))
    assert main(["validate", str(tmp_path)]) == 1
    assert not (tmp_path / ".rpdk-config").exists()


def test_a_properties_schema_that_is_not_json_is_placed_by_line_and_column(tmp_path):
    report(tmp_path, schema='{\n  "type": "object",\n  "properties": {,}\n}\n')
    result = check_file(tmp_path / "properties-schema.json", strict=False)
    (problem,) = result.diagnostics
    assert (problem.severity, problem.line, problem.column) == ("error", 3, 18)
