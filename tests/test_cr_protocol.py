"""`cfngen test` for custom resources, judged on handlers with one planted protocol violation
each: the right lifecycle test must fail, with a message naming the broken rule. Correct
handlers of every style (raw urllib, crhelper over HTTPS, AWS's cfnresponse in inline code)
must pass."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cfngen._kinds.custom_resource._run import run_tests
from cfngen._project import load_project

TEMPLATE = """\
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: src/
      Handler: app.handler
      Runtime: python3.12
      Timeout: {timeout}
  Thing:
    Type: Custom::Thing
    Properties:
      ServiceToken: !GetAtt Fn.Arn
      Name: world
"""

SCHEMA = {"type": "object", "properties": {"Name": {"type": "string"}}, "required": ["Name"]}

#: A correct handler speaking the protocol by hand (what people write after reading the docs).
RAW = """\
import hashlib, json, urllib.request


def send(event, status, physical_id, reason=None, data=None):
    body = {
        "Status": status,
        "PhysicalResourceId": physical_id,
        "StackId": event["StackId"],
        "RequestId": event["RequestId"],
        "LogicalResourceId": event["LogicalResourceId"],
    }
    if reason:
        body["Reason"] = reason
    if data:
        body["Data"] = data
    raw = json.dumps(body).encode()
    request = urllib.request.Request(event["ResponseURL"], data=raw, method="PUT")
    request.add_header("Content-Type", "")
    try:
        urllib.request.urlopen(request, timeout=5).read()
    except Exception as exc:
        print("not delivered:", exc)


def handler(event, context):
    kind = event["RequestType"]
    properties = event["ResourceProperties"]
    if kind == "Create":
        seed = event["StackId"] + event["LogicalResourceId"] + event["RequestId"]
        physical_id = "thing-" + hashlib.sha256(seed.encode()).hexdigest()[:12]
    else:
        physical_id = event["PhysicalResourceId"]
    try:
        if kind == "Delete":
            data = {}
        else:
            if not properties.get("Name"):
                raise ValueError("Name is required")
            data = {"Greeting": "Hello, " + properties["Name"]}
        send(event, "SUCCESS", physical_id, data=data)
    except Exception as exc:
        failed_id = "never-made-" + physical_id if kind == "Create" else physical_id
        send(event, "FAILED", failed_id, reason=str(exc))
"""

#: The same resource on crhelper (which PUTs over HTTPS only).
CRHELPER = """\
from crhelper import CfnResource

helper = CfnResource(json_logging=False, log_level="ERROR", sleep_on_delete=0)


@helper.create
def create(event, context):
    if not event["ResourceProperties"].get("Name"):
        raise ValueError("Name is required")
    helper.Data["Greeting"] = "Hello, " + event["ResourceProperties"]["Name"]
    return "thing-" + event["LogicalResourceId"]


@helper.update
def update(event, context):
    if not event["ResourceProperties"].get("Name"):
        raise ValueError("Name is required")
    helper.Data["Greeting"] = "Hello, " + event["ResourceProperties"]["Name"]


@helper.delete
def delete(event, context):
    pass


def handler(event, context):
    helper(event, context)
"""

#: AWS's cfnresponse, inline in the template (ZipFile), with the id passed explicitly.
INLINE = """\
import cfnresponse


def handler(event, context):
    kind = event["RequestType"]
    physical_id = event.get("PhysicalResourceId") or "thing-" + event["LogicalResourceId"]
    if kind != "Delete" and not event["ResourceProperties"].get("Name"):
        reason = "Name is required"
        cfnresponse.send(event, context, cfnresponse.FAILED, {}, physical_id, reason=reason)
        return
    data = {} if kind == "Delete" else {"Greeting": "hello"}
    cfnresponse.send(event, context, cfnresponse.SUCCESS, data, physical_id)
"""

INLINE_TEMPLATE = """\
Resources:
  Fn:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: python3.12
      Handler: index.handler
      Timeout: 3
      Role: arn:aws:iam::123456789012:role/x
      Code:
        ZipFile: |
{code}
  Thing:
    Type: AWS::CloudFormation::CustomResource
    Properties:
      ServiceToken: !GetAtt Fn.Arn
      Name: world
"""


def project(root: Path, code: str, *, timeout: int = 3, schema: bool = True) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(code)
    (root / "template.yaml").write_text(TEMPLATE.format(timeout=timeout))
    if schema:
        (root / "properties-schema.json").write_text(json.dumps(SCHEMA))
    return root


def outcomes(root: Path, keyword: str | None = None) -> dict[str, tuple[str, str]]:
    result = run_tests(load_project(root), keyword=keyword)
    return {t.name: (t.outcome, t.message or "") for t in result.tests}


def test_a_correct_raw_handler_passes_every_test(tmp_path):
    got = outcomes(project(tmp_path, RAW))
    assert {name: outcome for name, (outcome, _) in got.items()} == {
        name: "skipped" if name == "cr_update_replacement_deletes_old" else "passed" for name in got
    }, got


def test_a_correct_crhelper_handler_passes_over_https(tmp_path):
    got = outcomes(project(tmp_path, CRHELPER))
    failed = {name: message for name, (outcome, message) in got.items() if outcome == "failed"}
    assert not failed, failed
    assert got["cr_create"][0] == "passed"


def test_inline_code_gets_aws_cfnresponse(tmp_path):
    code = textwrap.indent(INLINE, " " * 10)
    (tmp_path / "template.yaml").write_text(INLINE_TEMPLATE.format(code=code))
    got = outcomes(tmp_path)
    failed = {name: message for name, (outcome, message) in got.items() if outcome == "failed"}
    assert not failed, failed


def test_a_run_leaves_no_temporary_folder_behind(tmp_path):
    """The receiver's certificate and the inline code written out as a module live in
    temporary folders that go when the command ends."""
    code = textwrap.indent(INLINE, " " * 10)
    root = tmp_path / "project"
    root.mkdir()
    (root / "template.yaml").write_text(INLINE_TEMPLATE.format(code=code))
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "cfngen", "test", "-k", "cr_create", str(root)],
        env={**os.environ, "TMPDIR": str(temporary)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "passed" in done.stdout + done.stderr
    assert list(temporary.iterdir()) == []


def test_cfnresponse_default_id_is_caught(tmp_path):
    """AWS's cfnresponse defaults the id to the log stream: every update replaces."""
    code = INLINE.replace(
        "cfnresponse.send(event, context, cfnresponse.SUCCESS, data, physical_id)",
        "cfnresponse.send(event, context, cfnresponse.SUCCESS, data)",
    )
    (tmp_path / "template.yaml").write_text(
        INLINE_TEMPLATE.format(code=textwrap.indent(code, " " * 10))
    )
    outcome, message = outcomes(tmp_path, "cr_update_unchanged_keeps_id")[
        "cr_update_unchanged_keeps_id"
    ]
    assert outcome == "failed"
    assert "physical-id" in message


# One violation at a time: (replace this, with that) in RAW -> the test that must fail, and
# words its message must hold (the rule's name first). Each is a response CloudFormation fails
# the stack for, or one that loses a resource (docs/custom-resources.md has the reasons).
PLANTED = {
    "no response": (
        ('send(event, "SUCCESS", physical_id, data=data)', "pass"),
        "cr_create",
        ["one-response", "no response before the deadline", "returned without answering"],
    ),
    "oversize response": (
        ('data = {"Greeting": "Hello, " + properties["Name"]}', 'data = {"Big": "x" * 5000}'),
        "cr_create",
        ["size", "4096"],
    ),
    "empty physical id": (
        ('physical_id = "thing-" + hashlib', 'physical_id = "" and hashlib'),
        "cr_create",
        ["physical-id", "non-empty"],
    ),
    "a new id on every update": (
        (
            'physical_id = event["PhysicalResourceId"]',
            'physical_id = "thing-" + event["RequestId"]',
        ),
        "cr_update_unchanged_keeps_id",
        ["physical-id", "changes nothing", "deletes"],
    ),
    "delete fails for an unknown id": (
        (
            "            data = {}\n",
            '            assert physical_id.startswith("thing-"), "unknown id"\n'
            "            data = {}\n",
        ),
        "cr_delete_unknown_id",
        ["answered FAILED", "never made"],
    ),
    "FAILED without Reason": (
        ("reason=str(exc))", "reason=None)"),
        "cr_create_failed_rollback_delete",
        ["reason", "FAILED response must say why"],
    ),
    "two different responses": (
        (
            'send(event, "SUCCESS", physical_id, data=data)',
            'send(event, "SUCCESS", physical_id, data=data); '
            'send(event, "FAILED", physical_id, reason="second thoughts")',
        ),
        "cr_create",
        ["one-response", "2 different responses", "race"],
    ),
    "wrong RequestId": (
        ('"RequestId": event["RequestId"],', '"RequestId": "not-" + event["RequestId"],'),
        "cr_create",
        ["echo", "RequestId"],
    ),
    "Data that is not an object": (
        (
            'data = {"Greeting": "Hello, " + properties["Name"]}',
            'data = ["Hello, " + properties["Name"]]',
        ),
        "cr_create",
        ["data", "Data is a list", "JSON object"],
    ),
    "NoEcho that is not a boolean": (
        ('    if reason:\n        body["Reason"] = reason\n', '    body["NoEcho"] = "yes"\n'),
        "cr_create",
        ["no-echo", "'yes'"],
    ),
    "a Content-Type the presigned URL was not signed with": (
        (
            'request.add_header("Content-Type", "")',
            'request.add_header("Content-Type", "application/json")',
        ),
        "cr_create",
        ["put-headers", "application/json"],
    ),
    "a FAILED update with another id": (
        (
            'failed_id = "never-made-" + physical_id if kind == "Create" else physical_id',
            'failed_id = "never-made-" + physical_id',
        ),
        "cr_update_failed_rollback_update",
        ["physical-id", "must echo the request's"],
    ),
    "the same Create delivered twice fails the second time": (
        (
            '            if not properties.get("Name"):\n',
            "            import os, tempfile\n"
            '            made = os.path.join(tempfile.gettempdir(), "made-" + event["RequestId"])\n'
            '            if kind == "Create":\n'
            '                open(made, "x").close()  # FileExistsError the second time\n'
            '            if not properties.get("Name"):\n',
        ),
        "cr_create_duplicate_delivery",
        ["delivered twice", "SUCCESS", "then FAILED", "same answer"],
    ),
    "accepts properties the schema rejects": (
        ('raise ValueError("Name is required")', 'properties["Name"] = ""'),
        "cr_create_failed_rollback_delete",
        ["properties the schema rejects must fail"],
    ),
}

# Responses CloudFormation accepts, each breaking one rule whose breach is a warning: the test
# passes and a warning names the rule. (replace, with) in RAW -> the test, words of the warning.
ACCEPTED = {
    "Data on Delete": (
        ("            data = {}\n", '            data = {"Gone": "yes"}\n'),
        "cr_delete",
        ["Delete: data", "Delete response carries Data"],
    ),
    "a Delete answering a fixed id": (
        ("            data = {}\n", '            data = {}\n            physical_id = "fixed"\n'),
        "cr_delete_unknown_id",
        ["Delete: physical-id", "'fixed'", "accepts it"],
    ),
    "a list in Data": (
        (
            'data = {"Greeting": "Hello, " + properties["Name"]}',
            'data = {"Greetings": ["Hello", properties["Name"]]}',
        ),
        "cr_create",
        ["Create: data", "Greetings", "object or a list"],
    ),
    "the same response twice": (
        (
            'send(event, "SUCCESS", physical_id, data=data)',
            'send(event, "SUCCESS", physical_id, data=data); '
            'send(event, "SUCCESS", physical_id, data=data)',
        ),
        "cr_create",
        ["one-response", "2 responses", "each SUCCESS"],
    ),
    "the same Create delivered twice gets another id": (
        (
            'seed = event["StackId"] + event["LogicalResourceId"] + event["RequestId"]',
            "import uuid; seed = str(uuid.uuid4())",
        ),
        "cr_create_duplicate_delivery",
        ["delivered twice", "left behind"],
    ),
    "retries an expired URL forever": (
        (
            '        print("not delivered:", exc)',
            "        send(event, status, physical_id, reason, data)",
        ),
        "cr_expired_url",
        ["one-response", "expired ResponseURL", "403"],
    ),
    "a replacing update keeps its id": (
        ("", ""),
        "cr_update_replacement_deletes_old",
        ["kept PhysicalResourceId", "update in place"],
    ),
}

#: Planted handlers that only stop at their function's Timeout: given 1 s, not the 3 s of the rest.
UNTIL_THE_DEADLINE = {"retries an expired URL forever"}


@pytest.mark.parametrize("case", PLANTED)
def test_each_planted_violation_is_caught_by_its_test(tmp_path, case):
    (old, new), test, words = PLANTED[case]
    assert old in RAW, "the planted change no longer applies: fix the table"
    timeout = 1 if case in UNTIL_THE_DEADLINE else 3
    got = outcomes(project(tmp_path, RAW.replace(old, new, 1), timeout=timeout), test)
    outcome, message = got[test]
    assert outcome == "failed", f"{case}: {test} {outcome}"
    for word in words:
        assert word in message, f"{case}: {word!r} not in:\n{message}"


@pytest.mark.parametrize("case", ACCEPTED)
def test_each_response_cloudformation_accepts_passes_with_a_warning_naming_its_rule(tmp_path, case):
    (old, new), test, words = ACCEPTED[case]
    assert old in RAW, "the change no longer applies: fix the table"
    timeout = 1 if case in UNTIL_THE_DEADLINE else 3
    root = project(tmp_path, RAW.replace(old, new, 1), timeout=timeout)
    # The RAW handler keeps its id on every update: "replace" properties it updates in place.
    (root / "custom-resource-inputs.json").write_text(json.dumps({"replace": {"Name": "new"}}))
    result = run_tests(load_project(root), keyword=test)
    (found,) = [t for t in result.tests if t.name == test]
    assert found.outcome == "passed", f"{case}: {found.message}"
    # Every warning is this rule's (a planted line may run for two request types).
    assert found.warnings and all(words[0] in w for w in found.warnings), found.warnings
    assert any(all(word in w for word in words) for w in found.warnings), (case, found.warnings)


def test_without_a_schema_the_failure_tests_say_why_they_skip(tmp_path):
    got = outcomes(project(tmp_path, RAW, schema=False), "failed_rollback")
    assert {o for o, _ in got.values()} == {"skipped"}
    assert all("properties-schema.json" in m for _, m in got.values())


@pytest.mark.parametrize("inputs", [None, {}, {"update": {"Name": "again"}}])
@pytest.mark.parametrize(
    ("test", "key"),
    [
        ("cr_update_replacement_deletes_old", "replace"),
        ("cr_create_failed_rollback_delete", "invalid"),
    ],
)
def test_a_skip_reason_names_the_inputs_file_as_it_is(tmp_path, inputs, test, key):
    """It named custom-resource-inputs.json as a file that gives no such properties when there
    was no such file."""
    root = project(tmp_path, RAW, schema=False)
    if inputs is not None:
        (root / "custom-resource-inputs.json").write_text(json.dumps(inputs))
    outcome, reason = outcomes(root, test)[test]
    assert outcome == "skipped"
    if inputs is None:
        assert f'no "{key}" properties (custom-resource-inputs.json does not exist)' in reason
    else:
        assert f'no "{key}" properties in custom-resource-inputs.json' in reason
        assert "does not exist" not in reason.split("custom-resource-inputs.json")[1]


def test_a_handler_past_its_deadline_is_abandoned_and_cannot_write_into_the_report(
    tmp_path, capsys
):
    code = (
        "import time\n\ndef handler(event, context):\n"
        '    print("started")\n    time.sleep(1.2)\n    print("LATE OUTPUT")\n'
    )
    root = project(tmp_path, code, timeout=1)
    got = outcomes(root, "cr_create or expired")
    outcome, message = got["cr_create"]
    assert outcome == "failed"
    assert "still running at its deadline" in message and "started" in message
    # Sent once: the other tests do not wait for the deadline again.
    for name in ("cr_create_duplicate_delivery", "cr_expired_url"):
        assert got[name][0] == "failed" and "not sent again" in got[name][1], got[name]
    import time

    # The run returned past the 1 s deadline; the abandoned handler prints 0.2 s after it.
    time.sleep(0.4)
    assert "LATE OUTPUT" not in capsys.readouterr().out


def test_a_layer_of_the_project_is_importable_and_a_missing_module_says_what_to_do(tmp_path):
    root = project(tmp_path, "from shared_answer import handler\n")
    (root / "layer" / "python").mkdir(parents=True)
    (root / "layer" / "python" / "shared_answer.py").write_text(RAW)
    template = (root / "template.yaml").read_text()
    template = template.replace(
        "      Timeout: 3\n", "      Timeout: 3\n      Layers:\n        - !Ref Shared\n"
    ) + (
        "  Shared:\n    Type: AWS::Serverless::LayerVersion\n"
        "    Properties:\n      ContentUri: layer/\n"
    )
    (root / "template.yaml").write_text(template)
    assert outcomes(root, "cr_create")["cr_create"][0] == "passed"
    (root / "layer" / "python" / "shared_answer.py").unlink()
    outcome, message = outcomes(root, "cr_create")["cr_create"]
    assert outcome == "failed"
    assert "No module named 'shared_answer'" in message and "requirements" in message


def _wheel(folder: Path, name: str, source: str) -> Path:
    """A minimal pure-Python wheel holding the module `name`."""
    import zipfile

    path = folder / f"{name}-1.0-py3-none-any.whl"
    info = f"{name}-1.0.dist-info"
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr(f"{name}.py", source)
        wheel.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        wheel.writestr(
            f"{info}/WHEEL",
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        wheel.writestr(f"{info}/RECORD", "")
    return path


def test_missing_requirements_are_installed_for_the_run(tmp_path, monkeypatch):
    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "home"))
    wheel = _wheel(tmp_path, "cfngen_test_cr_dependency", RAW)
    root = project(tmp_path / "p", "from cfngen_test_cr_dependency import handler\n")
    (root / "src" / "requirements.txt").write_text(f"{wheel}\n")
    result = run_tests(load_project(root), keyword="cr_create and not failed")
    assert [t.outcome for t in result.tests] == ["passed", "passed"], result.tests
    assert any("installed" in note for note in result.notes)


SNS_TEMPLATE = """\
Transform: AWS::Serverless-2016-10-31
Resources:
  Topic:
    Type: AWS::SNS::Topic
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: src/
      Handler: app.handler
      Runtime: python3.12
      Events:
        Requests:
          Type: SNS
          Properties:
            Topic: !Ref Topic
  Thing:
    Type: Custom::Thing
    Properties:
      ServiceToken: !Ref Topic
      Name: world
"""


def test_a_service_token_naming_an_sns_topic_reaches_its_subscriber_wrapped(tmp_path):
    root = project(tmp_path, "from unwrapping import handler\n")
    (root / "template.yaml").write_text(SNS_TEMPLATE)
    (root / "src" / "unwrapping.py").write_text(
        "import json\nimport raw\n\n\ndef handler(event, context):\n"
        '    raw.handler(json.loads(event["Records"][0]["Sns"]["Message"]), context)\n'
    )
    (root / "src" / "raw.py").write_text(RAW)
    assert outcomes(root, "cr_create")["cr_create"][0] == "passed"
    # A handler that does not unwrap never answers.
    (root / "src" / "app.py").write_text("from raw import handler\n")
    outcome, message = outcomes(root, "cr_create")["cr_create"]
    assert outcome == "failed" and "KeyError" in message


def test_a_handler_that_ends_its_process_fails_its_one_test_naming_the_call(tmp_path):
    """os._exit in the function ends the runner's worker process, not cfngen: the test that
    sent the request fails, naming it, and the next test runs in a new worker."""
    code = RAW.replace(
        '    kind = event["RequestType"]\n',
        '    kind = event["RequestType"]\n'
        '    if kind == "Update":\n'
        "        import os\n"
        "        os._exit(3)\n",
        1,
    )
    got = outcomes(project(tmp_path, code), "cr_update_unchanged_keeps_id or cr_delete_twice")
    outcome, message = got["cr_update_unchanged_keeps_id"]
    assert outcome == "failed"
    assert "exited with status 3 during Update #1" in message, message
    assert got["cr_delete_twice"] == ("passed", "")


def test_a_handler_spinning_past_its_timeout_is_stopped_and_fails_its_test(tmp_path):
    code = RAW.replace(
        '    kind = event["RequestType"]\n',
        '    kind = event["RequestType"]\n    while kind == "Create":\n        pass\n',
        1,
    )
    got = outcomes(project(tmp_path, code, timeout=1), "cr_create or cr_delete_unknown_id")
    outcome, message = got["cr_create"]
    assert outcome == "failed" and "still running at its deadline" in message, message
    assert got["cr_delete_unknown_id"] == ("passed", "")


@pytest.mark.parametrize(
    "signal_name", ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGABRT", "SIGKILL"]
)
def test_a_handler_that_signals_its_own_process_fails_its_test_and_the_run_reports(
    tmp_path, signal_name
):
    """The worker does not inherit cfngen's own handling of Ctrl-C, SIGTERM and SIGHUP (an
    interrupt of cfngen): a handler that sends one to its process ends that process, and the
    test that was running fails naming the signal; the rest run and the report is written."""
    code = RAW.replace(
        '    kind = event["RequestType"]\n',
        '    kind = event["RequestType"]\n'
        '    if kind == "Create":\n'
        "        import os, signal\n"
        f"        os.kill(os.getpid(), signal.{signal_name})\n",
        1,
    )
    root = project(tmp_path, code)
    done = subprocess.run(
        [sys.executable, "-m", "cfngen", "test", "-k", "cr_create or unknown_id", str(root)],
        env={**os.environ, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "interrupted" not in done.stderr
    assert f"killed by {signal_name} during Create #1" in done.stdout, done.stdout
    assert "PASSED  cr_delete_unknown_id" in done.stdout
    assert "1 passed, 3 failed" in done.stdout
