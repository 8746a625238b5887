"""Whole-process `cfngen validate` on a module project against the official `cfn validate`.

    python tests/bench/bench_module.py [--runs N] [--keep DIR]

Two projects made by the official `cfn init -a MODULE`: its own sample (`fragments/sample.json`,
an S3 bucket) and the same project with a larger fragment (conditions, an IAM role with a
policy, a function, a queue, a log group), which makes cfn-lint use the parts cfngen loads only
when a template needs them (sympy's condition logic, AWS's IAM actions). Alternating in every
round, each a fresh process:

- `cfn validate` (in its own copy: it rewrites schema.json);
- `cfngen validate` with CFNGEN_NO_CACHE=1: the fragment checked and linted from scratch, as
  after every edit;
- `cfngen validate` with the report of the unchanged fragment in cfngen's cache.

Each command is printed so that it can be rerun with hyperfine, e.g. from DIR/sample-official:

    hyperfine -N --warmup 2 'cfn validate' 'env CFNGEN_NO_CACHE=1 cfngen validate ../sample'
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.bench._timing import Command, alternate, bench_env, load_note  # noqa: E402

BIN = Path(sys.executable).parent
OFFLINE = {
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}
SERVICE = """\
AWSTemplateFormatVersion: "2010-09-09"
Description: A bucket, a queue and a function that reads one and feeds the other.
Parameters:
  Env:
    Type: String
    AllowedValues: [prod, dev]
    Default: dev
  RetentionDays:
    Type: Number
    Default: 14
Conditions:
  IsProd: !Equals [!Ref Env, prod]
Resources:
  Bucket:
    Type: AWS::S3::Bucket
    DeletionPolicy: Retain
    UpdateReplacePolicy: Retain
    Properties:
      VersioningConfiguration:
        Status: !If [IsProd, Enabled, Suspended]
      BucketEncryption:
        ServerSideEncryptionConfiguration:
          - ServerSideEncryptionByDefault:
              SSEAlgorithm: AES256
  Queue:
    Type: AWS::SQS::Queue
    Properties:
      MessageRetentionPeriod: 345600
  Role:
    Type: AWS::IAM::Role
    Properties:
      AssumeRolePolicyDocument:
        Version: "2012-10-17"
        Statement:
          - Effect: Allow
            Principal: {Service: lambda.amazonaws.com}
            Action: sts:AssumeRole
      Policies:
        - PolicyName: access
          PolicyDocument:
            Version: "2012-10-17"
            Statement:
              - Effect: Allow
                Action: [s3:GetObject, s3:ListBucket]
                Resource: [!GetAtt Bucket.Arn, !Sub "${Bucket.Arn}/*"]
              - Effect: Allow
                Action: [sqs:SendMessage]
                Resource: !GetAtt Queue.Arn
  Function:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: python3.12
      Handler: index.handler
      Role: !GetAtt Role.Arn
      Code:
        ZipFile: |
          def handler(event, context):
              return event
      Environment:
        Variables:
          QUEUE_URL: !Ref Queue
  Logs:
    Type: AWS::Logs::LogGroup
    Properties:
      LogGroupName: !Sub "/aws/lambda/${Function}"
      RetentionInDays: !Ref RetentionDays
Outputs:
  BucketName:
    Value: !Ref Bucket
  QueueUrl:
    Value: !Ref Queue
"""


def make_projects(parent: Path) -> dict[str, Path]:
    env = bench_env(**OFFLINE)
    sample = parent / "sample"
    sample.mkdir()
    subprocess.run(
        [str(BIN / "cfn"), "init", "-a", "MODULE", "-t", "Bench::Sample::Bucket::MODULE"],
        cwd=sample,
        env=env,
        check=True,
        capture_output=True,
    )
    service = parent / "service"
    shutil.copytree(sample, service)
    (service / "fragments" / "sample.json").unlink()
    (service / "fragments" / "service.yaml").write_text(SERVICE, encoding="utf-8")
    projects = {"sample": sample, "service": service}
    for root in list(projects.values()):
        shutil.copytree(root, root.with_name(root.name + "-official"))
    return projects


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--keep", type=Path, help="make the projects here and keep them")
    args = parser.parse_args()
    parent = args.keep or Path(tempfile.mkdtemp(prefix="bench-module-"))
    parent.mkdir(parents=True, exist_ok=True)
    projects = make_projects(parent)
    env = bench_env(**OFFLINE)
    cold = bench_env(**OFFLINE, CFNGEN_NO_CACHE="1")
    print(load_note())
    for name, root in projects.items():
        official = root.with_name(root.name + "-official")
        commands = {
            "cfn validate": Command([str(BIN / "cfn"), "validate"], official, env),
            "cfngen validate, fragment changed": Command(
                [str(BIN / "cfngen"), "validate", str(root)], root, cold
            ),
            "cfngen validate, fragment unchanged": Command(
                [str(BIN / "cfngen"), "validate", str(root)], root, env
            ),
        }
        for label, command in commands.items():
            print(f"  {label}: {command.shell()}")
        samples = alternate(commands, args.runs)
        base = samples["cfn validate"].median
        print(f"{name}: {args.runs} rounds; {load_note()}")
        for label, found in samples.items():
            print(f"  {label:38} {found.describe()}  x{found.median / base:.2f}")
    if args.keep is None:
        shutil.rmtree(parent, ignore_errors=True)


if __name__ == "__main__":
    main()
