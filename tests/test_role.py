"""resource-role.yaml: a pure function of (schema, type name), checked on parsed YAML."""

from __future__ import annotations

import pytest
import yaml

from cfngen._kinds._shared._role import render_role


def role(schema: dict, type_name: str = "Acme::Test::Widget") -> dict:
    return yaml.safe_load(render_role(schema, type_name))


def properties(schema: dict) -> dict:
    return role(schema)["Resources"]["ExecutionRole"]["Properties"]


def statement(schema: dict) -> dict:
    return properties(schema)["Policies"][0]["PolicyDocument"]["Statement"][0]


def handlers(*timeouts: int | None) -> dict:
    out = {}
    names = ("create", "update", "delete", "read", "list")[: len(timeouts)]
    for name, timeout in zip(names, timeouts, strict=True):
        handler: dict = {"permissions": ["s3:GetObject"]}
        if timeout is not None:
            handler["timeoutInMinutes"] = timeout
        out[name] = handler
    return {"handlers": out}


@pytest.mark.parametrize(
    ("timeouts", "seconds"),
    [
        ((), 8400),  # no handlers: the official default of 120 minutes, with headroom
        ((None,), 8400),  # a handler without timeoutInMinutes counts as 120 minutes
        ((2,), 3600),  # 140 s is below IAM's minimum of one hour
        ((51,), 3600),
        ((52,), 3640),
        ((60,), 4200),
        ((120,), 8400),
        ((617,), 43190),
        ((618,), 43200),  # 43260 s clamped to IAM's maximum of 12 hours
        ((2160,), 43200),
        ((30, 720, 60), 43200),
        ((30, 90, None), 8400),  # the longest handler wins, a missing timeout is 120
        ((30, 90, 45), 6300),
    ],
)
def test_max_session_duration(timeouts, seconds):
    assert properties(handlers(*timeouts))["MaxSessionDuration"] == seconds


@pytest.mark.parametrize(
    ("permissions", "effect", "actions"),
    [
        (
            {"create": ["s3:PutObject", "s3:GetObject"], "read": ["s3:GetObject"]},
            "Allow",
            ["s3:GetObject", "s3:PutObject"],
        ),
        ({"create": ["b:B", "a:A"], "delete": ["a:A", "c:C"]}, "Allow", ["a:A", "b:B", "c:C"]),
        ({"create": [], "read": []}, "Deny", ["*"]),
        ({"create": ["", ""]}, "Deny", ["*"]),
        ({"create": ["", "iam:PassRole"]}, "Allow", ["iam:PassRole"]),
        ({}, "Deny", ["*"]),
    ],
)
def test_actions_sorted_unique_or_deny_everything(permissions, effect, actions):
    schema = {"handlers": {name: {"permissions": p} for name, p in permissions.items()}}
    found = statement(schema)
    assert found["Effect"] == effect
    assert found["Action"] == actions
    assert found["Resource"] == "*"


def test_schema_without_handlers_denies_everything():
    found = statement({"properties": {}})
    assert (found["Effect"], found["Action"]) == ("Deny", ["*"])


@pytest.mark.parametrize("action", ['odd"quote', "colon: space", "# hash", "x\\y", "ünï"])
def test_awkward_action_strings_survive_yaml(action):
    assert statement({"handlers": {"create": {"permissions": [action]}}})["Action"] == [action]


def test_trust_policy_is_cloudformation_with_source_conditions():
    trust = properties(handlers(60))["AssumeRolePolicyDocument"]["Statement"][0]
    assert trust["Effect"] == "Allow"
    assert trust["Principal"] == {"Service": "resources.cloudformation.amazonaws.com"}
    assert trust["Action"] == "sts:AssumeRole"
    assert trust["Condition"]["StringEquals"] == {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}
    assert trust["Condition"]["StringLike"] == {
        "aws:SourceArn": {
            "Fn::Sub": "arn:${AWS::Partition}:cloudformation:${AWS::Region}:${AWS::AccountId}"
            ":type/resource/Acme-Test-Widget/*"
        }
    }


def test_long_form_intrinsics_and_output():
    doc = role(handlers(60))
    assert doc["AWSTemplateFormatVersion"] == "2010-09-09"
    assert doc["Resources"]["ExecutionRole"]["Type"] == "AWS::IAM::Role"
    assert doc["Outputs"]["ExecutionRoleArn"]["Value"] == {"Fn::GetAtt": "ExecutionRole.Arn"}
    assert "!" not in render_role(handlers(60), "Acme::Test::Widget")


def test_same_as_the_official_role_on_the_values_that_matter(tmp_path):
    """The official `cfn generate` role, rendered by its own template, parsed side by side."""
    from rpdk.core.project import Project

    schema = {
        "handlers": {
            "create": {
                "permissions": ["s3:PutObject", "", "s3:GetObject"],
                "timeoutInMinutes": 700,
            },
            "read": {"permissions": ["s3:GetObject"]},
        }
    }
    project = Project(root=tmp_path)
    project.type_name = "Acme::Test::Widget"
    project.artifact_type = "RESOURCE"
    project.schema = schema

    class NoPlugin:
        def generate(self, _project):
            pass

    project._plugin = NoPlugin()
    project.generate()
    official = yaml.safe_load((tmp_path / "resource-role.yaml").read_text())
    ours = role(schema)
    official_role = official["Resources"]["ExecutionRole"]["Properties"]
    our_role = ours["Resources"]["ExecutionRole"]["Properties"]
    for key in ("MaxSessionDuration", "AssumeRolePolicyDocument", "Policies"):
        assert our_role[key] == official_role[key], key
    assert ours["Outputs"] == official["Outputs"]
