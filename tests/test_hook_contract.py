"""`cfngen test` and `cfngen invoke` for hooks.

The protocol is tested with plain functions standing in for hooks; the runner with real hook
projects: a correct one, the same one with one planted contract violation at a time (each must
be caught by the test named for it, quickly), cfngen's own starter and example, and the real
hooks in tests/fixtures/hooks/projects.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cfngen._cli import main
from cfngen._contract._call import Invocation, without_credentials
from cfngen._contract._loop import Policy
from cfngen._generate import generate_project
from cfngen._kinds.hook import _hook_protocol as _protocol
from cfngen._kinds.hook._inputs import render_exports
from cfngen._kinds.hook._run import no_test_ran, run_hook_tests

FIXTURES = Path(__file__).parent / "fixtures" / "hooks" / "projects"


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "cfngen-home"))


# --------------------------------------------------------------------------- the protocol


def test_a_resource_request_carries_the_properties_and_json_credentials():
    context = _protocol.Context("Acme::Guard::Hook", credentials={"accessKeyId": "a"})
    target = _protocol.Target("AWS::S3::Bucket", {"resourceProperties": {"BucketName": "b"}})
    event = _protocol.request("CREATE_PRE_PROVISION", target, context, token="t")
    data = event["requestData"]
    assert json.loads(data["callerCredentials"]) == {"accessKeyId": "a"}
    assert data["targetModel"] == {"resourceProperties": {"BucketName": "b"}}
    assert data["targetType"] == "RESOURCE" and "payload" not in data
    assert event["actionInvocationPoint"] == "CREATE_PRE_PROVISION"
    assert without_credentials(event)["requestData"]["callerCredentials"] == "<redacted>"


def test_a_stack_request_sends_a_payload_url_with_the_template_as_text():
    published: list[dict[str, Any]] = []

    def publish(document):
        published.append(dict(document))
        return "http://127.0.0.1:1/doc"

    context = _protocol.Context("Acme::Guard::Hook", payload_url=publish)
    target = _protocol.Target("STACK", {"template": {"Resources": {}}})
    event = _protocol.request("UPDATE_PRE_PROVISION", target, context, token="t")
    assert event["requestData"]["payload"] == "http://127.0.0.1:1/doc"
    assert event["requestData"]["targetModel"] == {}
    assert event["requestData"]["targetType"] == "STACK"
    assert published == [{"template": '{"Resources": {}}'}]


def test_a_change_set_serves_resource_contexts_as_text():
    document = {
        "template": {},
        "changedResources": [{"action": "CREATE", "afterContext": {"Properties": {"A": 1}}}],
    }
    served = _protocol.payload_document(_protocol.Target("CHANGE_SET", document))
    assert served["changedResources"][0]["afterContext"] == '{"Properties": {"A": 1}}'


def answer(event: dict[str, Any], response: dict[str, Any], number: int = 1) -> Invocation:
    return Invocation("hook", number, event, dict(response), 0.0, 60.0, status_key="hookStatus")


def answering(*responses: dict[str, Any]):
    """A stand-in hook answering the given responses in turn (the last one forever)."""
    seen: list[dict[str, Any]] = []

    def call(event, number, context):
        seen.append(event)
        response = responses[min(len(seen), len(responses)) - 1]
        return answer(event, response, number), None

    return call, seen


def test_carry_reinvokes_with_the_callback_context_until_a_final_status():
    call, seen = answering(
        {"hookStatus": "IN_PROGRESS", "callbackContext": {"step": 1}, "callbackDelaySeconds": 30},
        {"hookStatus": "SUCCESS"},
    )
    context = _protocol.Context("Acme::Guard::Hook")
    target = _protocol.Target("AWS::S3::Bucket", {"resourceProperties": {}})
    run = _protocol.carry(
        call, "CREATE_PRE_PROVISION", target, context, policy=Policy(max_reinvoke=5, max_delay=0)
    )
    assert run.status == "SUCCESS"
    assert [e["requestContext"] for e in seen] == [
        {"invocation": 1, "callbackContext": None},
        {"invocation": 2, "callbackContext": {"step": 1}},
    ]
    assert len({e["clientRequestToken"] for e in seen}) == 1


def test_carry_stops_an_endless_in_progress():
    call, seen = answering({"hookStatus": "IN_PROGRESS"})
    target = _protocol.Target("AWS::S3::Bucket", {})
    run = _protocol.carry(
        call,
        "CREATE_PRE_PROVISION",
        target,
        _protocol.Context("A::B::C"),
        policy=Policy(max_reinvoke=3, max_delay=0),
    )
    assert run.endless and run.status is None and len(seen) == 4


@pytest.mark.parametrize(
    ("response", "problem"),
    [
        ({"hookStatus": "FAILED"}, "no errorCode"),
        ({"hookStatus": "FAILED", "errorCode": "Exploded"}, "no error code CloudFormation"),
        ({"hookStatus": "FAILED", "errorCode": "AlreadyExists"}, "a resource handler's"),
        ({"hookStatus": "FAILED", "errorCode": "Unknown"}, "names no cause"),
        ({"hookStatus": "FAILED", "errorCode": "NonCompliant"}, None),
        ({"hookStatus": "FAILED", "errorCode": "UnsupportedTarget"}, None),
    ],
)
def test_error_codes_a_hook_may_return(response, problem):
    run = _protocol.Run("CREATE_PRE_PROVISION", [answer({}, response)])
    found = _protocol.error_code_problem(run)
    assert (found is None) if problem is None else (problem in (found or ""))


@pytest.mark.parametrize(
    ("message", "problem"),
    [(None, "no message"), ("", "empty"), ("  ", "blank"), (["a"], "not a string"), ("why", None)],
)
def test_messages_a_failed_answer_needs(message, problem):
    response = {"hookStatus": "FAILED", "errorCode": "NonCompliant"}
    if message is not None:
        response["message"] = message
    run = _protocol.Run("CREATE_PRE_PROVISION", [answer({}, response)])
    found = _protocol.message_problem(run)
    assert (found is None) if problem is None else (problem in (found or ""))


@pytest.mark.parametrize(
    ("text", "point"),
    [
        ("CREATE_PRE_PROVISION", "CREATE_PRE_PROVISION"),
        ("preUpdate", "UPDATE_PRE_PROVISION"),
        ("pre_delete", "DELETE_PRE_PROVISION"),
        ("CREATE", None),
    ],
)
def test_invocation_point_names(text, point):
    assert _protocol.point_name(text) == point


def test_each_kind_declares_the_error_codes_of_the_runtime_library_it_may_return():
    from cloudformation_cli_python_lib.interface import HandlerErrorCode

    from cfngen._kind import named

    every = {code.value for code in HandlerErrorCode}
    resource, hook = named("resource").contract, named("hook").contract
    assert resource is not None and hook is not None
    assert resource.error_codes <= every and hook.error_codes <= every
    assert "NonCompliant" not in resource.error_codes and "NonCompliant" in hook.error_codes
    assert "NotUpdatable" in resource.error_codes and "NotUpdatable" not in hook.error_codes
    assert every - resource.error_codes == {"NonCompliant", "UnsupportedTarget", "Unknown"}
    assert every - hook.error_codes == {"NotUpdatable", "AlreadyExists", "NotStabilized", "Unknown"}


def test_export_placeholders_get_the_given_value_or_a_stand_in():
    used: dict[str, str] = {}
    text = render_exports('{"A": "{{KeyArn}}", "B": "{{ Bucket }}"}', {"KeyArn": "arn:k"}, used)
    assert json.loads(text) == {"A": "arn:k", "B": "cfngen-export-Bucket"}
    assert used == {"KeyArn": "arn:k", "Bucket": "cfngen-export-Bucket"}


def test_the_type_configuration_file_takes_the_envelope_or_the_properties(tmp_path):
    envelope = tmp_path / "envelope.json"
    envelope.write_text(
        json.dumps({"CloudFormationConfiguration": {"HookConfiguration": {"Properties": {"A": 1}}}})
    )
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps({"A": 1}))
    from cfngen._contract._type_configuration import type_configuration
    from cfngen._kinds.hook._run import CONTRACT

    def given(path):
        return type_configuration(
            tmp_path, {}, {}, path, envelope=CONTRACT.typeconfig_envelope
        ).given

    assert given(envelope) == given(bare) == {"A": 1}
    assert given(None) is None


# --------------------------------------------------------------------------- planted violations

CORRECT = """
import time

from cloudformation_cli_python_lib import (
    HandlerErrorCode, Hook, HookInvocationPoint, OperationStatus, ProgressEvent,
)

from .models import TypeConfigurationModel

hook = Hook("Acme::Guard::Hook", TypeConfigurationModel)
test_entrypoint = hook.test_entrypoint


def check(request):
    properties = request.hookContext.targetModel.get("resourceProperties") or {}
    if properties.get("VersioningConfiguration", {}).get("Status") == "Enabled":
        return ProgressEvent(status=OperationStatus.SUCCESS)
    return ProgressEvent(
        status=OperationStatus.FAILED,
        errorCode=HandlerErrorCode.NonCompliant,
        message="versioning is not enabled",
    )


@hook.handler(HookInvocationPoint.CREATE_PRE_PROVISION)
@hook.handler(HookInvocationPoint.UPDATE_PRE_PROVISION)
def pre_handler(session, request, callback_context, type_configuration):
    return check(request)
"""

#: violation -> (how the check is changed, the test that must fail)
VIOLATIONS = {
    "success on a non-compliant target": (
        "    return ProgressEvent(status=OperationStatus.SUCCESS)\n",
        "contract_pre_create_failed",
    ),
    "FAILED without an error code": (
        '    return ProgressEvent(status=OperationStatus.FAILED, message="no") '
        'if properties.get("VersioningConfiguration") is None else '
        "ProgressEvent(status=OperationStatus.SUCCESS)\n",
        "contract_pre_create_failed_has_error_code",
    ),
    "an empty message": (
        "    return ProgressEvent.failed(HandlerErrorCode.NonCompliant, '') "
        'if properties.get("VersioningConfiguration") is None else '
        "ProgressEvent(status=OperationStatus.SUCCESS)\n",
        "contract_pre_create_failed_has_message",
    ),
    "an error code that is no hook's": (
        "    return ProgressEvent.failed(HandlerErrorCode.AlreadyExists, 'no') "
        'if properties.get("VersioningConfiguration") is None else '
        "ProgressEvent(status=OperationStatus.SUCCESS)\n",
        "contract_pre_create_failed_has_error_code",
    ),
    "an exception": (
        "    raise KeyError('VersioningConfiguration')\n",
        "contract_pre_create_no_exception",
    ),
    "endless IN_PROGRESS": (
        "    return ProgressEvent(status=OperationStatus.IN_PROGRESS, callbackDelaySeconds=5)\n",
        "contract_pre_create_in_progress_ends",
    ),
    "a slow handler": (
        "    time.sleep(30)\n",
        "contract_pre_create_within_time_limit",
    ),
    "a delay on a final event": (
        "    return ProgressEvent(status=OperationStatus.SUCCESS, callbackDelaySeconds=10) "
        'if properties.get("VersioningConfiguration") else '
        "ProgressEvent.failed(HandlerErrorCode.NonCompliant, 'no')\n",
        "contract_pre_create_final_event_has_no_callback_delay",
    ),
}

SCHEMA = {
    "typeName": "Acme::Guard::Hook",
    "description": "buckets must be versioned",
    "typeConfiguration": {"properties": {}, "additionalProperties": False},
    "handlers": {
        "preCreate": {"targetNames": ["AWS::S3::Bucket"], "permissions": []},
        "preUpdate": {"targetNames": ["AWS::S3::Bucket"], "permissions": []},
    },
    "additionalProperties": False,
}
VERSIONED = {"resourceProperties": {"VersioningConfiguration": {"Status": "Enabled"}}}
PLAIN = {"resourceProperties": {"BucketName": "b"}}


@pytest.fixture(scope="module")
def base_project(tmp_path_factory) -> Path:
    import os

    root = tmp_path_factory.mktemp("guard") / "hook"
    package = root / "src" / "acme_guard_hook"
    package.mkdir(parents=True)
    config = {
        "artifact_type": "HOOK",
        "typeName": "Acme::Guard::Hook",
        "language": "python312",
        "runtime": "python3.12",
        "entrypoint": "acme_guard_hook.handlers.hook",
        "testEntrypoint": "acme_guard_hook.handlers.test_entrypoint",
    }
    (root / ".rpdk-config").write_text(json.dumps(config))
    (root / "acme-guard-hook.json").write_text(json.dumps(SCHEMA, indent=4))
    (package / "__init__.py").write_text("")
    (package / "handlers.py").write_text(CORRECT)
    inputs = root / "inputs"
    inputs.mkdir()
    for point in ("pre_create", "pre_update"):
        (inputs / f"inputs_1_{point}.json").write_text(json.dumps({"AWS::S3::Bucket": VERSIONED}))
    (inputs / "inputs_1_invalid.json").write_text(json.dumps({"AWS::S3::Bucket": PLAIN}))
    saved = os.environ.get("CFNGEN_HOME")
    os.environ["CFNGEN_HOME"] = str(root.parent / "home")
    try:
        generate_project(root)
    finally:
        if saved is None:
            os.environ.pop("CFNGEN_HOME", None)
        else:
            os.environ["CFNGEN_HOME"] = saved
    return root


def planted(base: Path, tmp_path: Path, body: str | None) -> Path:
    root = tmp_path / "hook"
    shutil.copytree(base, root)
    if body is not None:
        handlers = root / "src" / "acme_guard_hook" / "handlers.py"
        text = handlers.read_text()
        start = text.index("    properties = ")
        end = text.index("\n\n\n@hook.handler")
        handlers.write_text(
            text[:start]
            + '    properties = request.hookContext.targetModel.get("resourceProperties") or {}\n'
            + body
            + text[end:]
        )
    return root


def test_the_correct_hook_passes(base_project, tmp_path):
    result = run_hook_tests(planted(base_project, tmp_path, None))
    failed = [t for t in result.tests if t.outcome == "failed"]
    assert not failed, failed[0].message
    assert result.count("passed") >= 14


@pytest.mark.parametrize("violation", VIOLATIONS)
def test_a_planted_violation_is_caught_by_the_right_test(base_project, tmp_path, violation):
    """(How quickly: docs/benchmarks.md, `tests/bench/bench_hook.py --violations`.)"""
    body, name = VIOLATIONS[violation]
    root = planted(base_project, tmp_path, body)
    # The slow handler sleeps until its time limit: a shorter one for it alone.
    limit = 0.5 if violation == "a slow handler" else 1.0
    result = run_hook_tests(root, enforce_timeout=limit, max_reinvoke=20)
    outcomes = {t.name: t for t in result.tests}
    assert outcomes[name].outcome == "failed", {n: t.outcome for n, t in outcomes.items()}
    if violation == "an exception":
        assert "KeyError" in outcomes[name].message
        assert "handlers.py" in outcomes[name].message  # the handler's own frame


def test_a_hook_that_ends_its_process_fails_its_tests_and_the_run_goes_on(base_project, tmp_path):
    root = planted(base_project, tmp_path, "    __import__('os')._exit(3)\n")
    result = run_hook_tests(root, keyword="pre_create and (success or failed)")
    outcomes = {t.name: t for t in result.tests}
    assert set(outcomes) == {
        "contract_pre_create_success",
        "contract_pre_create_failed",
        "contract_pre_create_failed_unsupported_target",
        "contract_pre_create_failed_has_error_code",
        "contract_pre_create_failed_has_message",
    }
    success = outcomes["contract_pre_create_success"]
    assert success.outcome == "failed"
    assert (
        "the handler process exited with status 3 during CREATE_PRE_PROVISION AWS::S3::Bucket #1"
        in success.message
    )
    assert "rule: a handler must return a progress event" in success.message


def test_an_unsupported_target_must_be_refused_when_the_targets_are_wildcards(
    base_project, tmp_path
):
    root = planted(base_project, tmp_path, None)
    schema = json.loads((root / "acme-guard-hook.json").read_text())
    schema["handlers"]["preCreate"]["targetNames"] = ["AWS::S3::*"]
    (root / "acme-guard-hook.json").write_text(json.dumps(schema))
    result = run_hook_tests(root, keyword="unsupported_target")
    outcomes = {t.name: t.outcome for t in result.tests}
    # The correct hook answers NonCompliant to anything unversioned, not UnsupportedTarget.
    assert outcomes == {
        "contract_pre_create_failed_unsupported_target": "failed",
        "contract_pre_update_failed_unsupported_target": "skipped",
    }


def test_a_run_in_which_no_test_ran_exits_1(base_project, tmp_path, capsys):
    root = planted(base_project, tmp_path, None)
    schema = json.loads((root / "acme-guard-hook.json").read_text())
    for handler in schema["handlers"].values():
        handler["targetNames"] = []
    (root / "acme-guard-hook.json").write_text(json.dumps(schema))
    result = run_hook_tests(root)
    assert no_test_ran(result)
    assert {t.message for t in result.tests if "success" in t.name} == {
        "the preCreate handler names no target",
        "the preUpdate handler names no target",
    }
    assert main(["test", str(root)]) == 1
    assert "no test ran" in capsys.readouterr().err


def test_keyword_selection_and_json(base_project, tmp_path, capsys):
    root = planted(base_project, tmp_path, None)
    assert main(["test", str(root), "-k", "pre_update and success", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [t["name"] for t in doc["tests"]] == ["contract_pre_update_success"]


def test_invoke_runs_one_point_and_says_the_verdict(base_project, tmp_path, capsys):
    root = planted(base_project, tmp_path, None)
    target = tmp_path / "bucket.json"
    target.write_text(json.dumps({"AWS::S3::Bucket": PLAIN}))
    argv = ["invoke", "preCreate", str(target), "--project", str(root)]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert "CREATE_PRE_PROVISION AWS::S3::Bucket #1 -> FAILED" in captured.out
    assert "FAILED NonCompliant: versioning is not enabled" in captured.err
    target.write_text(json.dumps({"AWS::S3::Bucket": VERSIONED}))
    assert main(argv) == 0


def test_invoke_refuses_an_unknown_point(base_project, tmp_path, capsys):
    root = planted(base_project, tmp_path, None)
    target = tmp_path / "bucket.json"
    target.write_text(json.dumps({"AWS::S3::Bucket": PLAIN}))
    assert main(["invoke", "postCreate", str(target), "--project", str(root)]) == 2
    assert "unknown invocation point" in capsys.readouterr().err


# --------------------------------------------------------------------------- real hooks


def fixture(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root)
    generate_project(root)
    return root


def test_the_real_guard_hook_passes_with_its_own_inputs(tmp_path):
    result = run_hook_tests(fixture(tmp_path, "s3-bucketversioningenabled"))
    outcomes = {t.name: t.outcome for t in result.tests}
    assert outcomes["contract_pre_update_success"] == "passed"
    assert outcomes["contract_pre_update_failed"] == "passed"
    assert outcomes["contract_pre_update_failed_has_message"] == "passed"
    assert "failed" not in outcomes.values()
    # Its inputs hold preUpdate only: preCreate is skipped, not passed with nothing to test.
    assert outcomes["contract_pre_create_success"] == "skipped"


def test_the_real_plain_hook_passes_and_undeclared_inputs_are_noted(tmp_path):
    result = run_hook_tests(fixture(tmp_path, "cloudfront-loggingenabled"))
    assert result.ok and not no_test_ran(result)
    assert result.count("passed") == 18  # the permission tests of its two handlers


def test_the_real_wildcard_hook_names_the_inputs_it_cannot_send(tmp_path):
    result = run_hook_tests(fixture(tmp_path, "lambda-invoker"), keyword="pre_create")
    assert any("AWS::EC2::VPC" in note and "not sent" in note for note in result.notes)
    # Without its DynamoDB table (a --typeconfig and a table) the hook cannot pass: it says so.
    success = next(t for t in result.tests if t.name == "contract_pre_create_success")
    assert success.outcome == "failed" and "RegistrationTableArn" in success.message


def test_export_placeholders_in_inputs_are_filled(base_project, tmp_path):
    root = planted(base_project, tmp_path, None)
    document = {"resourceProperties": {"VersioningConfiguration": {"Status": "{{Status}}"}}}
    (root / "inputs" / "inputs_1_pre_create.json").write_text(
        json.dumps({"AWS::S3::Bucket": document})
    )
    loose = run_hook_tests(root, keyword="pre_create and success")
    assert loose.tests[0].outcome == "failed"
    assert any("{{Status}} = cfngen-export-Status" in note for note in loose.notes)
    given = run_hook_tests(root, keyword="pre_create and success", exports={"Status": "Enabled"})
    assert given.tests[0].outcome == "passed"


def test_the_readme_names_every_hook_test():
    from cfngen._kinds.hook._hook_tests import TESTS

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    missing = [s for s, _ in TESTS if f"contract_pre_create_{s}" not in readme]
    assert not missing
