"""`cfngen test` gives a custom resource the verdict CloudFormation would: a response it accepts
passes (with a warning when it breaks a documented rule that CloudFormation does not enforce),
through every report format. The judge here is the function AWS documents for its cfn-response
module (a fixed physical id, the same Data for every request type, answered with
`cfnresponse.send`), written for this test from that description; before, it failed 7 of the 8
tests that ran, on "no Data on Delete" and, once, on "Delete must echo the request's id"."""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

#: The documented behaviour: five times the Input property, under a fixed physical id, for every
#: request type alike (Delete included), through the cfnresponse module Lambda gives inline code.
DOCUMENTED = """\
import cfnresponse


def lambda_handler(event, context):
    product = int(event["ResourceProperties"]["Input"]) * 5
    answer = {"Product": product}
    cfnresponse.send(event, context, cfnresponse.SUCCESS, answer, "MultiplierResource")
"""

TEMPLATE = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Multiplier:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: python3.12
      Handler: index.lambda_handler
      Timeout: 3
      Role: arn:aws:iam::123456789012:role/multiplier
      Code:
        ZipFile: |
{code}
  Product:
    Type: Custom::Multiplier
    Properties:
      ServiceToken: !GetAtt Multiplier.Arn
      ServiceTimeout: 60
      Input: 7
"""


@pytest.fixture(scope="module")
def documented(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("documented")
    (root / "template.yaml").write_text(TEMPLATE.format(code=textwrap.indent(DOCUMENTED, " " * 10)))
    return root


def test_the_documented_cfnresponse_function_passes_every_test_that_runs(cli, documented):
    result = cli("test", documented)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "0 failed" in result.stdout
    assert "PASSED  cr_delete_unknown_id" in result.stdout
    # Each broken-but-accepted rule is said once, with the tests that saw it.
    assert result.stdout.count("WARNING Delete: data:") == 1, result.stdout
    assert result.stdout.count("WARNING Delete: physical-id:") == 1, result.stdout
    assert "(2 warnings)" in result.stdout


def _warnings_in(fmt: str, text: str) -> list[str]:
    """The warnings a report in `fmt` carries, as text."""
    if fmt == "json":
        return [w for test in json.loads(text)["tests"] for w in test["warnings"]]
    if fmt == "junit":
        root = ET.fromstring(text)
        assert root.get("failures") == "0"
        return [out.text or "" for out in root.iter("system-out")]
    if fmt == "sarif":
        results = json.loads(text)["runs"][0]["results"]
        assert {r["level"] for r in results} == {"warning"}
        return [r["message"]["text"] for r in results]
    assert fmt == "github"
    lines = text.splitlines()
    assert all(line.startswith("::warning ") for line in lines), text
    return lines


@pytest.mark.parametrize("fmt", ["json", "junit", "sarif", "github"])
def test_the_warnings_reach_every_report_format_and_fail_nothing(cli, documented, fmt):
    result = cli("test", documented, "--format", fmt, "-k", "cr_delete_unknown_id")
    assert result.exit_code == 0, result.stdout + result.stderr
    found = _warnings_in(fmt, result.stdout)
    assert any("data: the Delete response carries Data" in w for w in found), found
    assert any("physical-id: the Delete answered" in w for w in found), found


def test_invoke_shows_an_accepted_rule_as_a_warning_and_succeeds(cli, documented):
    result = cli(
        "invoke", "Delete", "--physical-id", "p-1", "--template", documented / "template.yaml"
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "protocol warning: data: the Delete response carries Data" in result.stdout
    assert "protocol: " not in result.stdout


@pytest.mark.oracle
def test_pytest_passes_the_items_and_shows_the_warnings(documented):
    import os
    import subprocess
    import sys

    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--cfngen", "-q"],
        cwd=documented,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_COLOR": "1", "PYTEST_ADDOPTS": ""},
        timeout=300,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "8 passed, 3 skipped" in ran.stdout
    assert "ContractWarning: Delete: data: the Delete response carries Data" in ran.stdout
