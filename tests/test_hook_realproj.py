"""A real guard hook written for the official tool (tests/fixtures/hooks/projects/
ec2-securitygrouprestrictedssh: cfn-guard-rs-hook rules, two targets, python3.8): validate
agrees with the official loader, generate works offline, `cfngen test` passes with the hook's
own inputs, and the same hook with a broken rule is caught by the test named for it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cfngen._generate import generate_project
from cfngen._kinds.hook._run import run_hook_tests
from cfngen._validate import validate_paths

PROJECT = (
    Path(__file__).parent / "fixtures" / "hooks" / "projects" / "ec2-securitygrouprestrictedssh"
)
RULES = "src/awscommunity_ec2_securitygrouprestrictedssh/rules"


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    """No credentials at all: generate and test must not need them."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "cfngen-home"))


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("real") / "sg"
    shutil.copytree(PROJECT, root)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CFNGEN_HOME", str(root.parent / "home"))
        patch.setenv("AWS_EC2_METADATA_DISABLED", "true")
        for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE"):
            patch.delenv(name, raising=False)
        generate_project(root)
    return root


def test_validate_warns_only_about_the_empty_target_list(generated):
    (report,) = validate_paths([generated])
    assert report.valid
    assert [d.pointer for d in report.diagnostics] == ["/handlers/preDelete/targetNames"]


def test_generate_writes_a_model_per_target_offline(generated):
    models = generated / "src/awscommunity_ec2_securitygrouprestrictedssh/target_models"
    assert {p.name for p in models.glob("aws_*.py")} == {
        "aws_ec2_securitygroup.py",
        "aws_ec2_securitygroupingress.py",
    }
    assert "class AwsEc2Securitygroup(" in (models / "aws_ec2_securitygroup.py").read_text()


def test_the_hook_passes_with_its_own_inputs(generated, tmp_path):
    root = tmp_path / "sg"
    shutil.copytree(generated, root)
    result = run_hook_tests(root)
    outcomes = {t.name: t.outcome for t in result.tests}
    failed = [t for t in result.tests if t.outcome == "failed"]
    assert not failed, failed[0].message
    for name in (
        "contract_pre_create_success",
        "contract_pre_create_failed",
        "contract_pre_create_failed_has_message",
        "contract_pre_update_failed",
    ):
        assert outcomes[name] == "passed", name
    # Its inputs hold no compliant preUpdate target, and preDelete names no target: skipped.
    assert outcomes["contract_pre_update_success"] == "skipped"
    assert outcomes["contract_pre_delete_success"] == "skipped"


def test_a_broken_rule_is_caught_by_the_failed_test(generated, tmp_path):
    """The security group rule made to look for another CIDR: SSH open to the world passes."""
    root = tmp_path / "sg"
    shutil.copytree(generated, root)
    rule = root / RULES / "security_group.guard"
    rule.write_text(rule.read_text().replace('CidrIp:"0.0.0.0/0"', 'CidrIp:"10.0.0.0/8"'))
    # Only the security group is non-compliant now: the ingress rule still refuses its target.
    for name in ("inputs_1_invalid_pre_create.json", "inputs_1_invalid_pre_update.json"):
        path = root / "inputs" / name
        path.write_text(
            json.dumps(
                {"AWS::EC2::SecurityGroup": json.loads(path.read_text())["AWS::EC2::SecurityGroup"]}
            )
        )
    result = run_hook_tests(root)
    outcomes = {t.name: t for t in result.tests}
    assert outcomes["contract_pre_create_failed"].outcome == "failed"
    assert "AWS::EC2::SecurityGroup" in (outcomes["contract_pre_create_failed"].message or "")
    assert outcomes["contract_pre_create_success"].outcome == "passed"
