"""`cfngen drift explain`: each alternative of a property's transform on the template's model
and on the property's parent, IN_SYNC or MODIFIED with its result; exit 0, 1 or 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._corpus import corpus_dir

FIXTURE = Path(__file__).parent / "fixtures" / "contract" / "drift"


def _bundled(type_name: str) -> Path:
    """A schema file of the cfn-lint bundle, as AWS ships it."""
    for path in sorted(corpus_dir().glob("*.json")):
        if f'"typeName": "{type_name}"' in path.read_text(encoding="utf-8"):
            return path
    raise AssertionError(type_name)


#: (schema, (pointer, template value, read value), exit code, what the output says).
CASES = [
    # The five habits the contract tests plant, in the fixture's schema.
    (FIXTURE, ("/properties/Domain", "example.com", "example.com."), 0, '"example.com."  IN_SYNC'),
    (FIXTURE, ("/properties/Engine", "MySQL", "mysql"), 0, "IN_SYNC by alternative 1"),
    (FIXTURE, ("/properties/FunctionName", "a:function:W", "W"), 0, "by alternative 2 on the root"),
    (FIXTURE, ("/properties/Rules/*/Key", "alpha", "ALPHA"), 0, "by alternative 1 on the parent"),
    (FIXTURE, ("/properties/Rules/3/Key", "alpha", "ALPHA"), 0, 'parent: "ALPHA"  IN_SYNC'),
    (FIXTURE, ("/properties/EngineVersion", "5.7", "5.7.44"), 0, 'matches "5.7.44" as a pattern'),
    (FIXTURE, ("/properties/EngineVersion", "5.7", "8.0.1"), 1, '"5.7.*"  MODIFIED'),
    (FIXTURE, ("/properties/Engine", "MySQL", "postgres"), 1, "\nMODIFIED\n"),
    (FIXTURE, ("/properties/Name", "rec-1", "rec-1"), 0, "no propertyTransform"),
    (FIXTURE, ("/properties/Name", "rec-1", "rec-2"), 1, "compared as they are"),
    # AWS's own transforms.
    ("AWS::RDS::DBInstance", ("/properties/EngineVersion", "5.7", "5.7.44"), 0, "IN_SYNC"),
    ("AWS::RDS::DBInstance", ("/properties/DBName", "MyDb", "MYDB"), 0, "by alternative 2"),
    ("AWS::Route53::HostedZone", ("/properties/Name", "A.com", "a.com."), 0, "by alternative 4"),
    (
        "AWS::Cassandra::Table",
        ("/properties/RegularColumns/*/ColumnType", "TEXT", "text"),
        0,
        "on the parent",
    ),
]


@pytest.mark.parametrize(("schema", "argv", "code", "says"), CASES)
def test_explain(cli, schema, argv, code, says):
    path = _bundled(schema) if isinstance(schema, str) else schema
    result = cli("drift", "explain", *argv, "--schema", path)
    assert result.exit_code == code, result.stdout + result.stderr
    assert says in result.stdout


def test_json_names_every_evaluation(cli):
    result = cli(
        "drift",
        "explain",
        "/properties/Rules/*/Key",
        "alpha",
        "ALPHA",
        "--schema",
        FIXTURE,
        "--format",
        "json",
    )
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert document["verdict"] == "IN_SYNC"
    assert [(e["scope"], e["result"], e["in_sync"]) for e in document["evaluations"]] == [
        ("root", None, False),
        ("parent", "ALPHA", True),
    ]


def test_the_rest_of_the_model_comes_from_a_file(cli, tmp_path):
    schema = json.loads((FIXTURE / "acme-drift-record.json").read_text())
    schema["propertyTransform"]["/properties/Domain"] = "$join([Domain, '.', $lowercase(Engine)])"
    (tmp_path / "s.json").write_text(json.dumps(schema))
    (tmp_path / "model.json").write_text('{"Engine": "MySQL"}')
    args = [
        "drift",
        "explain",
        "/properties/Domain",
        "a",
        "a.mysql",
        "--schema",
        tmp_path / "s.json",
    ]
    assert cli(*args).exit_code == 1
    assert cli(*args, "--model", tmp_path / "model.json").exit_code == 0


def test_the_project_here_is_the_default(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(FIXTURE)
    assert cli("drift", "explain", "/properties/Engine", "MySQL", "mysql").exit_code == 0


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["/properties/Nope", "a", "b"], "declares no property 'Nope'"),
        (["Engine", "a", "b"], "is not a property pointer"),
        (["/properties/Engine", "a"], "required"),
        (["/properties/Engine", "a", "b", "--schema", "/nonexistent/s.json"], "no such file"),
        (["/properties/Engine", "a", "b", "--model", "/nonexistent/m.json"], "m.json"),
    ],
)
def test_usage_errors_exit_2(cli, args, says, monkeypatch):
    monkeypatch.chdir(FIXTURE)
    result = cli("drift", "explain", *args)
    assert result.exit_code == 2
    assert says in result.stderr
    assert "Traceback" not in result.stderr


def test_a_value_that_must_be_json_and_is_not_is_a_usage_error(cli, tmp_path):
    schema = json.loads((FIXTURE / "acme-drift-record.json").read_text())
    schema["properties"]["Size"] = {"type": "integer"}
    schema["propertyTransform"]["/properties/Size"] = "Size * 1000"
    (tmp_path / "s.json").write_text(json.dumps(schema))
    base = ["drift", "explain", "/properties/Size", "--schema", tmp_path / "s.json"]
    assert cli(*base[:3], "5", "5000", *base[3:]).exit_code == 0
    result = cli(*base[:3], "five", "5000", *base[3:])
    assert result.exit_code == 2
    assert "is not JSON, and the property is integer" in result.stderr


def test_a_hook_project_is_refused(cli, tmp_path):
    (tmp_path / ".rpdk-config").write_text(
        json.dumps({"artifact_type": "HOOK", "typeName": "Acme::Check::Hook"})
    )
    result = cli("drift", "explain", "/properties/A", "a", "b", "--schema", tmp_path)
    assert result.exit_code == 2
    assert "a hook project; drift detection is for resource types" in result.stderr


def test_a_model_of_another_shape_is_a_usage_error(cli, tmp_path):
    schema = json.loads((FIXTURE / "acme-drift-record.json").read_text())
    schema["properties"]["Settings"] = {"type": "object"}  # free-form: any pointer below
    (tmp_path / "s.json").write_text(json.dumps(schema))
    (tmp_path / "model.json").write_text('{"Settings": [1, 2]}')
    result = cli(
        "drift",
        "explain",
        "/properties/Settings/Mode",
        "a",
        "a",
        "--schema",
        tmp_path / "s.json",
        "--model",
        tmp_path / "model.json",
    )
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "--model holds a list where the pointer names 'Mode'" in result.stderr
