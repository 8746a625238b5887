"""`cfngen validate` on a Lambda hook's template: the example is clean, and each mistake
planted in it is named by its own code (errors what CloudFormation refuses or what leaves
nothing to test; warnings what works but does not do what it says)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfngen._kinds.lambda_hook import EXAMPLE_TEMPLATE
from tests.conftest import run_cli

EXAMPLE = EXAMPLE_TEMPLATE.read_text()

#: (text in the example, its replacement, the code found, its severity).
PLANTED = {
    "alias-aws": ("Alias: Example::S3", "Alias: AWS::S3", "lambda-hook-property", "error"),
    "alias-parts": ("Alias: Example::S3::Versioning", "Alias: Ex", "lambda-hook-property", "error"),
    "no-failure-mode": ("      FailureMode: FAIL\n", "", "lambda-hook-property", "error"),
    "unknown-operation": (
        "        - STACK\n",
        "        - STACKS\n",
        "lambda-hook-property",
        "error",
    ),
    "both-filter-forms": (
        "        TargetNames:",
        "        Targets:\n          - TargetName: AWS::S3::Bucket\n            Action: CREATE\n"
        "            InvocationPoint: PRE_PROVISION\n        TargetNames:",
        "lambda-hook-property",
        "error",
    ),
    "function-elsewhere": (
        "      LambdaFunction:\n        Fn::GetAtt: HookFunction.Arn",
        "      LambdaFunction: arn:aws:lambda:us-east-1:123456789012:function:elsewhere",
        "lambda-hook-function-missing",
        "error",
    ),
    "function-timeout": ("Timeout: 30", "Timeout: 60", "lambda-hook-function-timeout", "warning"),
    "not-python": (
        "Runtime: python3.14",
        "Runtime: nodejs20.x",
        "lambda-hook-runtime-not-python",
        "warning",
    ),
    "names-without-resources": (
        "        - RESOURCE\n        - STACK\n        - CHANGE_SET\n        - CLOUD_CONTROL\n",
        "        - STACK\n",
        "lambda-hook-target-names-unused",
        "warning",
    ),
    "unknown-target": (
        "          - AWS::S3::Bucket",
        "          - AWS::S3::Buckets",
        "lambda-hook-target-name-unknown",
        "warning",
    ),
    "untrusting-role": (
        "Service: hooks.cloudformation.amazonaws.com",
        "Service: lambda.amazonaws.com",
        "lambda-hook-execution-role-trust",
        "warning",
    ),
}


def _diagnostics(path: Path) -> tuple[int, list[dict]]:
    result = run_cli("validate", "--format", "json", path)
    (report,) = json.loads(result.stdout)["files"]
    return result.exit_code, report["diagnostics"]


def test_the_example_is_clean(tmp_path: Path) -> None:
    path = tmp_path / "template.yaml"
    path.write_text(EXAMPLE)
    assert _diagnostics(path) == (0, [])


@pytest.mark.parametrize("planted", sorted(PLANTED))
def test_each_planted_mistake_is_named_by_its_code(tmp_path: Path, planted: str) -> None:
    old, new, code, severity = PLANTED[planted]
    assert old in EXAMPLE
    path = tmp_path / "template.yaml"
    path.write_text(EXAMPLE.replace(old, new, 1))
    exit_code, found = _diagnostics(path)
    assert {(d["code"], d["severity"]) for d in found} == {(f"cfngen/{code}", severity)}, found
    assert exit_code == (1 if severity == "error" else 0)
    assert all(d["line"] and d["pointer"].startswith("/Resources/Hook") for d in found)


def test_wildcard_target_names_match_known_types(tmp_path: Path) -> None:
    path = tmp_path / "template.yaml"
    path.write_text(EXAMPLE.replace("- AWS::S3::Bucket", "- AWS::S3::*"))
    assert _diagnostics(path) == (0, [])
    path.write_text(EXAMPLE.replace("- AWS::S3::Bucket", "- AWS::Nothing::*"))
    assert [d["code"] for d in _diagnostics(path)[1]] == ["cfngen/lambda-hook-target-name-unknown"]


def test_intrinsic_values_are_left_to_the_stack(tmp_path: Path) -> None:
    path = tmp_path / "template.yaml"
    path.write_text(EXAMPLE.replace("FailureMode: FAIL", "FailureMode: !Ref Mode"))
    assert _diagnostics(path) == (0, [])
