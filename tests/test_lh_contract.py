"""`cfngen test`, `invoke` and `validate` on Lambda hook projects made by `cfngen init
--artifact-type lambda-hook`: the starter and the example pass their own tests offline, and one
bug planted in the example's answers fails the test of the rule it breaks, and no other."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli

#: The bug, as lines appended to the example's src/app.py around its handler.
WRAP = """

_checked = handler


def handler(event, context):
    answer = _checked(event, context)
{body}
    return answer
"""
PLANTED = {
    "never-final": (
        "lh_final_by_third_invocation",
        "    answer = {'hookStatus': 'IN_PROGRESS', 'clientRequestToken':"
        " event['clientRequestToken'], 'callbackContext': {'seen': 1}, 'callbackDelaySeconds': 5}",
    ),
    "31-seconds": ("lh_answers_within_30_seconds", "    import time\n    time.sleep(31)"),
    "no-token": ("lh_client_request_token", "    answer.pop('clientRequestToken')"),
    "failed-no-code": (
        "lh_failed_has_error_code",
        "    if answer['hookStatus'] == 'FAILED':\n        answer.pop('errorCode')",
    ),
    "unknown-code": (
        "lh_error_code_known",
        "    if answer['hookStatus'] == 'FAILED':\n        answer['errorCode'] = 'NotCompliant'",
    ),
}
ALL_TESTS = {
    "lh_hook_status",
    "lh_client_request_token",
    "lh_failed_has_error_code",
    "lh_error_code_known",
    "lh_answers_within_30_seconds",
    "lh_final_by_third_invocation",
    "lh_callback",
    "lh_message_length",
    "lh_annotations",
    "lh_compliant_succeeds",
    "lh_noncompliant_fails",
}


@pytest.fixture(scope="module")
def example(made_project) -> Path:
    return made_project("lh-example", "--artifact-type", "lambda-hook", "--example")


def _copy(project: Path, tmp_path: Path) -> Path:
    target = tmp_path / project.name
    shutil.copytree(project, target)
    return target


def _plant(project: Path, body: str) -> None:
    app = project / "src" / "app.py"
    app.write_text(app.read_text() + WRAP.format(body=body))


def _results(project: Path, *options: str) -> tuple[int, dict[str, dict]]:
    result = run_cli("test", "--format", "json", *options, cwd=project)
    assert result.exit_code in (0, 1), result.stderr
    tests = {t["name"]: t for t in json.loads(result.stdout)["tests"]}
    return result.exit_code, tests


@pytest.mark.parametrize("starting", ["starter", "example"])
def test_the_starter_and_the_example_validate_and_pass_their_tests(
    made_project, starting: str
) -> None:
    flags = ("--example",) if starting == "example" else ()
    project = made_project(f"lh-{starting}", "--artifact-type", "lambda-hook", *flags)
    validated = run_cli("validate", cwd=project)
    assert validated.exit_code == 0, validated.stdout + validated.stderr
    assert "0 errors, 0 warnings" in validated.stderr
    code, tests = _results(project)
    assert set(tests) == ALL_TESTS
    assert code == 0 and {t["outcome"] for t in tests.values()} == {"passed"}, tests


@pytest.mark.parametrize("planted", sorted(PLANTED))
def test_a_planted_bug_fails_its_named_test_alone(example: Path, tmp_path: Path, planted: str):
    name, body = PLANTED[planted]
    project = _copy(example, tmp_path)
    _plant(project, body)
    started = time.monotonic()
    code, tests = _results(project)
    # 31 s of sleep are measured on the simulated clock, not waited for.
    assert time.monotonic() - started < 25
    failed = {n for n, t in tests.items() if t["outcome"] == "failed"}
    assert code == 1
    assert failed == {name}, {n: tests[n]["message"] for n in failed}
    assert tests[name]["code"].startswith("cfngen/lambda-hook-")


def test_a_function_that_really_runs_past_its_limit_fails_the_same_test(
    example: Path, tmp_path: Path
) -> None:
    """Computing (not sleeping) is stopped at the call's real limit, here cut to 1 s."""
    project = _copy(example, tmp_path)
    _plant(project, "    while True:\n        answer['spin'] = 1")
    code, tests = _results(project, "--enforce-timeout", "1")
    failed = {n for n, t in tests.items() if t["outcome"] == "failed"}
    assert code == 1 and failed == {"lh_answers_within_30_seconds"}
    message = tests["lh_answers_within_30_seconds"]["message"]
    assert "still running at its 1 s limit" in message
    assert "was not made: it outlived its 1 s limit in an earlier call" in message


@pytest.mark.parametrize(("size", "cut"), [(4096, False), (4097, True)])
def test_a_message_over_the_limit_is_a_warning_that_it_will_be_cut(
    example: Path, tmp_path: Path, size: int, cut: bool
) -> None:
    project = _copy(example, tmp_path)
    _plant(project, f"    answer['message'] = 'm' * {size}")
    code, tests = _results(project)
    assert code == 0
    warnings = tests["lh_message_length"]["warnings"]
    stack = [w for w in warnings if w.startswith("STACK")]
    assert bool(stack) is cut
    assert any("cuts it at 1,024" in w for w in warnings if w.startswith("CLOUD_CONTROL"))
    assert tests["lh_message_length"]["warning_codes"] == {
        w: "cfngen/lambda-hook-message-cut" for w in warnings
    }


def test_a_project_named_from_its_parent_folder(example: Path, tmp_path: Path) -> None:
    """`cfngen test NAME` from the folder above: the template the project was found by is
    relative to the working folder (it was looked for again under the project: "no such
    template")."""
    project = _copy(example, tmp_path)
    result = run_cli("test", "-k", "status", project.name, cwd=project.parent)
    assert result.exit_code == 0, result.stdout + result.stderr


def test_invoke_sends_one_request_and_says_how_it_ended(example: Path, tmp_path: Path) -> None:
    project = _copy(example, tmp_path)
    ok = run_cli("invoke", "preCreate", cwd=project)
    assert ok.exit_code == 0, ok.stdout + ok.stderr
    assert '"hookStatus": "SUCCESS"' in ok.stdout
    (project / "bucket.json").write_text('{"VersioningConfiguration": {"Status": "Suspended"}}')
    refused = run_cli("invoke", "UPDATE_PRE_PROVISION", "bucket.json", cwd=project)
    assert refused.exit_code == 1
    assert "FAILED NonCompliant" in refused.stderr
    unknown = run_cli("invoke", "PRE_SOMETHING", cwd=project)
    assert unknown.exit_code == 2 and "no invocation point" in unknown.stderr


#: A hook written the way AWS's guide writes its Python examples: `requests` downloads the stack
#: and change set payloads, the verdict is built in a dict. Written for this test.
GUIDE_STYLE = """
import json

import requests


def lambda_handler(event, context):
    request_data = event.get("requestData", {})
    response = {
        "hookStatus": "SUCCESS",
        "message": "no public bucket",
        "clientRequestToken": event.get("clientRequestToken"),
    }
    try:
        fetched = requests.get(request_data["payload"], timeout=5)
        fetched.raise_for_status()
        payload = fetched.json()
    except Exception as error:
        response.update(hookStatus="FAILED", errorCode="InternalFailure", message=str(error))
        return response
    if request_data.get("targetType") == "STACK":
        bodies = json.loads(payload["template"] or "{}").get("Resources", {}).values()
        found = [b.get("Properties", {}) for b in bodies]
    else:
        found = [
            json.loads(c["afterContext"])["Properties"]
            for c in payload["changedResources"]
            if c["afterContext"]
        ]
    if any(p.get("AccessControl") == "PublicRead" for p in found):
        response.update(hookStatus="FAILED", errorCode="NonCompliant", message="public bucket")
    return response
"""
GUIDE_TEMPLATE = """\
Resources:
  Checker:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: functions/
      Handler: checker.lambda_handler
      Runtime: python3.12
      Timeout: 20
  PublicBuckets:
    Type: AWS::CloudFormation::LambdaHook
    Properties:
      Alias: Acme::Guide::Style
      LambdaFunction: !GetAtt Checker.Arn
      ExecutionRole: arn:aws:iam::123456789012:role/hooks
      FailureMode: FAIL
      HookStatus: ENABLED
      TargetOperations: [STACK, CHANGE_SET]
Transform: AWS::Serverless-2016-10-31
"""


def test_a_hook_in_the_guides_style_reads_its_payloads_offline(tmp_path: Path) -> None:
    """The stack and change set documents come from a local URL that `requests` reaches while
    moto and the network guard are in place; the verdicts show the function read them."""
    root = tmp_path / "guide-style"
    (root / "functions").mkdir(parents=True)
    (root / "functions" / "checker.py").write_text(GUIDE_STYLE)
    (root / "template.yaml").write_text(GUIDE_TEMPLATE)
    (root / "lambda-hook-inputs.json").write_text(
        json.dumps(
            {
                "AWS::S3::Bucket": {
                    "compliant": {"AccessControl": "Private"},
                    "noncompliant": {"AccessControl": "PublicRead"},
                }
            }
        )
    )
    validated = run_cli("validate", cwd=root)
    assert validated.exit_code == 0, validated.stdout + validated.stderr
    code, tests = _results(root)
    assert code == 0, {n: t["message"] for n, t in tests.items() if t["outcome"] != "passed"}
    assert {t["outcome"] for t in tests.values()} == {"passed"}


def test_the_function_runs_offline_by_its_connection_trace(example: Path, tmp_path: Path):
    """Its AWS call goes to moto and its other connection is refused by name: under strace,
    no address but loopback (the payload server) is ever connected to."""
    from tests.test_network import cfngen, traced

    project = _copy(example, tmp_path)
    _plant(
        project,
        "    import boto3\n    boto3.client('s3').list_buckets()\n    try:\n"
        "        urllib.request.urlopen('http://203.0.113.7/', timeout=2)\n"
        "    except OSError as refused:\n        assert 'allow-network' in str(refused)",
    )
    run = traced(cfngen("test"), cwd=project)
    assert run.returncode == 0, run.output
    assert run.destinations and run.outside == []


def test_each_hook_of_a_template_gets_its_own_tests(example: Path, tmp_path: Path) -> None:
    """Two LambdaHooks: each test once per hook, `lh_hook_status[Hook]`; a hook whose function
    is not in the template is skipped, saying why, and the other is tested."""
    project = _copy(example, tmp_path)
    template = project / "template.yaml"
    second = (
        "\n  Elsewhere:\n    Type: AWS::CloudFormation::LambdaHook\n    Properties:\n"
        "      Alias: Example::S3::Elsewhere\n"
        "      LambdaFunction: arn:aws:lambda:us-east-1:123456789012:function:other\n"
        "      ExecutionRole: arn:aws:iam::123456789012:role/hooks\n"
        "      FailureMode: WARN\n      HookStatus: ENABLED\n      TargetOperations: [STACK]\n"
    )
    template.write_text(template.read_text() + second)
    code, tests = _results(project)
    assert set(tests) == {f"{n}[{lid}]" for n in ALL_TESTS for lid in ("Hook", "Elsewhere")}
    assert {t["outcome"] for n, t in tests.items() if n.endswith("[Hook]")} == {"passed"}
    skipped = {t["outcome"] for n, t in tests.items() if n.endswith("[Elsewhere]")}
    assert skipped == {"skipped"} and code == 0
    assert "names no Lambda function" in tests["lh_hook_status[Elsewhere]"]["message"]
    alone = run_cli("test", "--resource", "Hook", "-k", "status", cwd=project)
    assert alone.exit_code == 0 and "lh_hook_status " in alone.stderr + alone.stdout
