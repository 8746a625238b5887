"""`cfngen test` on any module without flags: a parameter with neither a value nor a default
gets a stand-in valid for its declaration, named in one warning; `--param`/`--params` win;
`cfngen module render` still refuses (exit 2: it makes a template someone may deploy).

The judge of each stand-in is cfn-lint's E2015 (a parameter's Default within its Type,
AllowedValues, AllowedPattern, lengths and bounds): the stand-in the warning names is put back as
the parameter's Default and linted. Python's `re.fullmatch` checks patterns as CloudFormation
does (the whole value), where cfn-lint only anchors the start.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import run_cli

TYPE_NAME = "Acme::Test::Thing::MODULE"


@pytest.fixture(autouse=True)
def _no_report_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CFNGEN_NO_CACHE", "1")


def module(root: Path, parameters: dict[str, Any], resources: dict[str, Any]) -> Path:
    (root / "fragments").mkdir(parents=True)
    config = {"artifact_type": "MODULE", "typeName": TYPE_NAME, "settings": {}}
    (root / ".rpdk-config").write_text(json.dumps(config, indent=4) + "\n")
    fragment = {"Parameters": parameters, "Resources": resources}
    (root / "fragments" / "module.yaml").write_text(yaml.safe_dump(fragment, sort_keys=False))
    return root


def using(name: str, listed: bool) -> dict[str, Any]:
    """A resource whose string property takes the parameter (joined, for a list type)."""
    value: Any = {"Fn::Join": [",", {"Ref": name}]} if listed else {"Ref": name}
    return {"Type": "AWS::SSM::Parameter", "Properties": {"Type": "String", "Value": value}}


#: Declarations of every parameter type, with the constraints CloudFormation checks.
DECLARATIONS: dict[str, dict[str, Any]] = {
    "string": {"Type": "String"},
    "string-pattern-lengths": {
        "Type": "String",
        "AllowedPattern": "[A-Z][a-z]{3,6}-\\d{2}",
        "MinLength": 8,
        "MaxLength": 9,
    },
    "string-pattern-anchored-start-only": {"Type": "String", "AllowedPattern": "^[a-z]{4}"},
    "string-allowed-values": {"Type": "String", "AllowedValues": ["small", "medium"]},
    "string-allowed-values-and-length": {
        "Type": "String",
        "AllowedValues": ["xs", "medium"],
        "MinLength": 3,
    },
    "number-bounds": {"Type": "Number", "MinValue": 1000, "MaxValue": 1005},
    "number-negative": {"Type": "Number", "MaxValue": -3},
    # Quoted, as CloudFormation compares a parameter's text (cfn-lint compares as written).
    "number-allowed-values": {"Type": "Number", "AllowedValues": ["1", "8", "64"], "MinValue": 5},
    "list-of-numbers": {"Type": "List<Number>"},
    "list-of-numbers-allowed-values": {"Type": "List<Number>", "AllowedValues": ["7", "9"]},
    "comma-delimited-list": {"Type": "CommaDelimitedList", "AllowedValues": ["a", "b"]},
    "comma-delimited-list-pattern": {"Type": "CommaDelimitedList", "AllowedPattern": "z+"},
    "ssm-value": {"Type": "AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>"},
    "ssm-name": {"Type": "AWS::SSM::Parameter::Name"},
    **{
        aws_type: {"Type": aws_type}
        for aws_type in (
            "AWS::EC2::AvailabilityZone::Name",
            "AWS::EC2::Image::Id",
            "AWS::EC2::Instance::Id",
            "AWS::EC2::KeyPair::KeyName",
            "AWS::EC2::SecurityGroup::GroupName",
            "AWS::EC2::SecurityGroup::Id",
            "AWS::EC2::Subnet::Id",
            "AWS::EC2::VPC::Id",
            "AWS::EC2::Volume::Id",
            "AWS::Route53::HostedZone::Id",
            "List<AWS::EC2::Subnet::Id>",
            "List<AWS::EC2::SecurityGroup::Id>",
            "List<AWS::EC2::AvailabilityZone::Name>",
        )
    },
    "key-pair-with-pattern": {"Type": "AWS::EC2::KeyPair::KeyName", "AllowedPattern": "k-[0-9]+"},
}


#: The inner loop's sample of DECLARATIONS (one of each shape); CI runs every one.
INNER = {
    "string",
    "string-pattern-lengths",
    "number-bounds",
    "list-of-numbers",
    "comma-delimited-list-pattern",
    "ssm-value",
    "AWS::EC2::Subnet::Id",
    "List<AWS::EC2::SecurityGroup::Id>",
    "key-pair-with-pattern",
}


def stand_in_of(warning: str, name: str) -> str:
    found = re.search(rf"\b{name}=(\S+?)[,)]", warning)
    assert found, warning
    return found.group(1)


def lint_errors(declaration: dict[str, Any], value: str) -> list[str]:
    from cfnlint.api import lint

    listed = declaration["Type"].startswith("List<") or declaration["Type"] == "CommaDelimitedList"
    template = {
        "Parameters": {"P": {**declaration, "Default": value}},
        "Resources": {"R": using("P", listed)},
    }
    return [f"{m.rule.id} {m.message}" for m in lint(json.dumps(template)) if m.rule.id[0] == "E"]


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=() if name in INNER else pytest.mark.exhaustive)
        for name in DECLARATIONS
    ],
)
def test_a_parameter_without_a_value_gets_a_stand_in_valid_for_its_declaration(
    tmp_path: Path, name: str
) -> None:
    declaration = DECLARATIONS[name]
    listed = declaration["Type"].startswith("List<") or declaration["Type"] == "CommaDelimitedList"
    root = module(tmp_path / "m", {"P": declaration}, {"R": using("P", listed)})
    ran = run_cli("test", root)
    assert ran.exit_code == 0, ran.stdout + ran.stderr
    assert "4 passed" in ran.stdout or "3 passed, 0 failed, 1 skipped" in ran.stdout, ran.stdout
    warnings = [line for line in ran.stderr.splitlines() if "stand-in" in line]
    assert len(warnings) == 1, ran.stderr
    assert "no value given for P:" in warnings[0]
    value = stand_in_of(warnings[0], "P")
    assert lint_errors(declaration, value) == []
    pattern = declaration.get("AllowedPattern")
    if pattern is not None:
        assert re.fullmatch(pattern, value), value
    # `module render` makes a template someone may deploy: no stand-ins there.
    rendered = run_cli("module", "render", root)
    assert rendered.exit_code == 2
    assert "--param P=VALUE" in rendered.stderr


def test_one_warning_names_every_stand_in_and_given_values_win(tmp_path: Path) -> None:
    parameters = {
        "Name": {"Type": "String", "MinLength": 12},
        "Size": {"Type": "Number", "MinValue": 3},
        "Mode": {"Type": "String", "Default": "fast"},
    }
    resources = {f"R{n}": using(n, False) for n in parameters}
    root = module(tmp_path / "m", parameters, resources)
    ran = run_cli("test", root)
    assert ran.exit_code == 0, ran.stdout + ran.stderr
    (warning,) = [line for line in ran.stderr.splitlines() if "stand-in" in line]
    assert "no value given for Name, Size:" in warning
    assert "Mode" not in warning
    # Given on the command line or in a file: no stand-in, no warning for it.
    params = tmp_path / "params.json"
    params.write_text(json.dumps([{"ParameterKey": "Size", "ParameterValue": "4"}]))
    ran = run_cli("test", root, "--param", "Name=a-long-enough-name", "--params", params)
    assert ran.exit_code == 0, ran.stdout + ran.stderr
    assert "stand-in" not in ran.stderr


def test_constraints_no_value_can_meet_fail_the_render_naming_the_parameter(
    tmp_path: Path,
) -> None:
    declaration = {"Type": "String", "AllowedValues": ["ab"], "MinLength": 3}
    root = module(tmp_path / "m", {"P": declaration}, {"R": using("P", False)})
    ran = run_cli("test", root)
    assert ran.exit_code == 1
    assert "FAILED module_renders" in ran.stdout
    assert "parameter P" in ran.stdout and "--param P=VALUE" in ran.stdout


def test_a_nested_module_the_outer_one_gives_no_value_fails_the_render(tmp_path: Path) -> None:
    """The outer fragment forgets a property the nested module needs: CloudFormation fails
    that template, so the test fails (exit 1); before, it was a usage error (exit 2)."""
    inner = tmp_path / "inner"
    (inner / "fragments").mkdir(parents=True)
    config = {"artifact_type": "MODULE", "typeName": "Acme::Test::Inner::MODULE", "settings": {}}
    (inner / ".rpdk-config").write_text(json.dumps(config))
    (inner / "fragments" / "module.yaml").write_text(
        yaml.safe_dump(
            {
                "Parameters": {"Prefix": {"Type": "String"}},
                "Resources": {"T": using("Prefix", False)},
            }
        )
    )
    root = module(
        tmp_path / "outer",
        {},
        {"Inner": {"Type": "Acme::Test::Inner::MODULE", "Properties": {}}},
    )
    ran = run_cli("test", root)
    assert ran.exit_code == 1, ran.stdout + ran.stderr
    assert "FAILED module_renders" in ran.stdout
    assert "Prefix in the Properties of the resource that uses" in ran.stdout


COMMUNITY = """\
AWSTemplateFormatVersion: "2010-09-09"
Description: A bastion host in a public subnet, in the style community modules are written.
Parameters:
  VpcId:
    Type: AWS::EC2::VPC::Id
    Description: The VPC
  PublicSubnetId:
    Type: AWS::EC2::Subnet::Id
  KeyName:
    Type: AWS::EC2::KeyPair::KeyName
  AllowedCidr:
    Type: String
    AllowedPattern: ^(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})/(\\d{1,2})$
    ConstraintDescription: must be a CIDR block
  InstanceType:
    Type: String
    AllowedValues: [t3.micro, t3.small]
  LatestAmi:
    Type: AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>
    Default: /aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64
  RootVolumeSize:
    Type: Number
    MinValue: 8
    MaxValue: 64
Resources:
  Group:
    Type: AWS::EC2::SecurityGroup
    Properties:
      GroupDescription: !Sub "SSH to the bastion of ${VpcId}"
      VpcId: !Ref VpcId
      SecurityGroupIngress:
        - IpProtocol: tcp
          FromPort: 22
          ToPort: 22
          CidrIp: !Ref AllowedCidr
  Host:
    Type: AWS::EC2::Instance
    Properties:
      ImageId: !Ref LatestAmi
      InstanceType: !Ref InstanceType
      KeyName: !Ref KeyName
      SubnetId: !Ref PublicSubnetId
      SecurityGroupIds: [!Ref Group]
      BlockDeviceMappings:
        - DeviceName: /dev/xvda
          Ebs:
            VolumeSize: !Ref RootVolumeSize
Outputs:
  HostId:
    Value: !Ref Host
"""


def test_a_module_written_as_community_modules_are_tests_without_flags(tmp_path: Path) -> None:
    root = tmp_path / "bastion"
    (root / "fragments").mkdir(parents=True)
    config = {"artifact_type": "MODULE", "typeName": "Acme::Net::Bastion::MODULE", "settings": {}}
    (root / ".rpdk-config").write_text(json.dumps(config, indent=4) + "\n")
    (root / "fragments" / "bastion.yaml").write_text(COMMUNITY)
    assert run_cli("generate", root).exit_code == 0
    ran = run_cli("test", root)
    assert ran.exit_code == 0, ran.stdout + ran.stderr
    assert "4 passed" in ran.stdout
    (warning,) = [line for line in ran.stderr.splitlines() if "stand-in" in line]
    for name in ("VpcId", "PublicSubnetId", "KeyName", "AllowedCidr", "InstanceType"):
        assert f"{name}=" in warning
    assert "LatestAmi" not in warning and "RootVolumeSize=" in warning


def test_the_starter_module_passes_the_test_its_next_steps_suggest(
    made_project: Any, tmp_path: Path
) -> None:
    import shutil

    for fmt in ("yaml", "json"):
        made = made_project(f"module-{fmt}", "--artifact-type", "module", "-t", TYPE_NAME,
                            "--fragment-format", fmt)  # fmt: skip
        root = tmp_path / fmt
        shutil.copytree(made, root)
        ran = run_cli("test", root)
        assert ran.exit_code == 0, ran.stdout + ran.stderr
        assert "4 passed" in ran.stdout
        assert "no value given for BucketName" in ran.stderr
