"""cfn-lint loaded for less (cfngen/_cfnlint_imports.py, _lint.py): the same findings.

sympy's `__init__` runs only when a template's conditions need it, and cfn-lint's large data
files are read when a rule first uses them; each test compares the findings with cfn-lint loaded
the usual way (a plain `import sympy`, every data file read when the rules are made).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest

TEMPLATES = {
    "plain": """\
Resources:
  Bucket:
    Type: AWS::S3::Bucket
    Properties:
      BucketName: !Sub "${AWS::StackName}-data"
""",
    "conditions": """\
Parameters:
  Env:
    Type: String
    AllowedValues: [prod, dev]
Conditions:
  IsProd: !Equals [!Ref Env, prod]
  IsDev: !Equals [!Ref Env, dev]
  Unused: !Not [!Condition IsProd]
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Condition: IsProd
    Properties:
      DelaySeconds: !If [IsDev, 5, 4000]
  Topic:
    Type: AWS::SNS::Topic
    Condition: IsDev
    Properties:
      DisplayName: !GetAtt Queue.QueueName
""",
    "iam-rds-ec2": """\
Resources:
  Policy:
    Type: AWS::IAM::Policy
    Properties:
      PolicyName: p
      Roles: [r]
      PolicyDocument:
        Version: "2012-10-17"
        Statement:
          - Effect: Allow
            Action: [s3:GetObjectt, nosuchservice:Get]
            Resource: arn:aws:s3:::bucket
  Database:
    Type: AWS::RDS::DBInstance
    Properties:
      DBInstanceClass: db.m1.hugee
      Engine: mysql
      AllocatedStorage: "5"
  Instance:
    Type: AWS::EC2::Instance
    Properties:
      InstanceType: t2.gigantic
      ImageId: ami-12345678
""",
}

SCRIPT = """
import json, sys
if sys.argv[1] == "usual":
    import sympy  # sympy's __init__ first, as any other program would

from cfngen._kinds.module import _lint
from cfngen._cfn_template import decode

if sys.argv[1] == "usual":  # and cfn-lint's rules made the usual way, every file read
    from cfnlint.config import ConfigMixIn
    from cfnlint.runner import Runner

    rules = Runner(ConfigMixIn(regions=["us-east-1"])).rules
    _lint._rules = lambda: rules

templates = json.loads(sys.stdin.read())
result = {}
for name, text in templates.items():
    result[name] = [d.as_json() for d in _lint.lint(decode(text).template)]
    result[name + ":sympy-partial"] = "__getattr__" in vars(sys.modules["sympy"])
    result[name + ":unread"] = sorted(
        type(rule).__name__ + "." + attribute
        for rule in _lint._rules().data.values()
        for attribute, value in vars(rule).items()
        if isinstance(value, _lint._Unread)
    )
print(json.dumps(result))
"""


def _run(mode: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SCRIPT), mode],
        input=json.dumps(TEMPLATES),
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.oracle  # cfn-lint loaded the usual way is the judge
def test_loading_less_finds_the_same() -> None:
    lazy, usual = _run("lazy"), _run("usual")
    for name in TEMPLATES:
        assert lazy[name] == usual[name], name
    # Each template has findings, so the comparison compares something.
    assert all(lazy[name] for name in ("conditions", "iam-rds-ec2"))
    rules = {f["message"].rsplit("cfn-lint ", 1)[1].rstrip(")") for f in lazy["iam-rds-ec2"]}
    assert {"W3037", "E3025"} <= rules, rules  # IAM actions and RDS classes were read and used
    # What was saved: no conditions, sympy's __init__ not run; no IAM or RDS, nothing read.
    assert lazy["plain:sympy-partial"] is True
    assert lazy["conditions:sympy-partial"] is False
    assert usual["plain:sympy-partial"] is False
    assert "Permissions._service_map" in lazy["plain:unread"]
    assert "Permissions._service_map" not in lazy["iam-rds-ec2:unread"]
    assert usual["plain:unread"] == []
