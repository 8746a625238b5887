"""A Lambda hook's requests per target operation and the rules its answers keep (AWS's guide,
"Create Lambda functions to evaluate resources for Lambda Hooks"), as pure functions: one
planted breach per rule, named by that rule alone."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cfngen._kinds.lambda_hook._declared import function_named, lambda_hooks
from cfngen._kinds.lambda_hook._requests import (
    Hook,
    Target,
    again,
    invocation_point,
    payload,
    request,
)
from cfngen._kinds.lambda_hook._rules import RULE_NAMES, RULES, Answered, Attempt

HOOK = Hook("Acme::Storage::Versioned", "arn:aws:lambda:us-east-1:123456789012:function:f")
TEMPLATE = '{"Resources": {"B": {"Type": "AWS::S3::Bucket"}}}'


def _published(store: list[Any]) -> Any:
    def publish(document: Any) -> str:
        store.append(document)
        return f"http://127.0.0.1:1/{len(store)}"

    return publish


def test_resource_request_has_the_guides_shape() -> None:
    target = Target(
        "RESOURCE", "UPDATE_PRE_PROVISION", "AWS::S3::Bucket", "Bucket", {"A": 2}, {"A": 1}
    )
    event = request(HOOK, target, region="eu-west-1", token="t-1")
    assert event["clientRequestToken"] == "t-1"
    assert event["stackId"].startswith("arn:aws:cloudformation:eu-west-1:")
    assert event["changeSetId"] is None
    assert event["hookModel"] == {"LambdaFunction": HOOK.function_arn}
    assert event["requestContext"] == {"invocation": 1, "callbackContext": None}
    data = event["requestData"]
    assert (data["targetName"], data["targetType"], data["targetLogicalId"]) == (
        "AWS::S3::Bucket",
        "AWS::S3::Bucket",
        "Bucket",
    )
    assert data["targetModel"] == {
        "resourceProperties": {"A": 2},
        "previousResourceProperties": {"A": 1},
    }


@pytest.mark.parametrize(
    ("point", "current", "previous"),
    [("CREATE_PRE_PROVISION", {"A": 1}, {}), ("DELETE_PRE_PROVISION", {}, {"A": 1})],
)
def test_create_has_no_previous_and_delete_no_current(
    point: str, current: dict[str, Any], previous: dict[str, Any]
) -> None:
    target = Target("RESOURCE", point, "AWS::S3::Bucket", "B", {"A": 1})
    model = request(HOOK, target, region="us-east-1")["requestData"]["targetModel"]
    assert model == {"resourceProperties": current, "previousResourceProperties": previous}


def test_cloud_control_request_has_no_stack_and_targets_resource() -> None:
    target = Target("CLOUD_CONTROL", "CREATE_PRE_PROVISION", "AWS::S3::Bucket", "B", {"A": 1})
    event = request(HOOK, target, region="us-east-1")
    assert event["stackId"] == "" and event["changeSetId"] is None
    assert event["requestData"]["targetType"] == "RESOURCE"
    assert event["requestData"]["targetName"] == "AWS::S3::Bucket"
    assert event["requestData"]["targetLogicalId"] != "B"
    assert target.message_limit == 1024


def test_stack_request_serves_templates_through_its_payload_url() -> None:
    store: list[Any] = []
    target = Target("STACK", "UPDATE_PRE_PROVISION", template=TEMPLATE, previous_template="{}")
    event = request(HOOK, target, region="us-east-1", publish=_published(store))
    assert event["requestData"]["targetName"] == event["requestData"]["targetType"] == "STACK"
    assert event["requestData"]["payload"] == "http://127.0.0.1:1/1"
    assert store == [{"template": TEMPLATE, "previousTemplate": "{}"}]
    deleted = payload(Target("STACK", "DELETE_PRE_PROVISION", template=TEMPLATE))
    assert deleted == {"template": "", "previousTemplate": ""}
    assert target.message_limit == 4096


def test_change_set_payload_lists_changes_with_strings_for_scalars() -> None:
    store: list[Any] = []
    target = Target(
        "CHANGE_SET",
        "CREATE_PRE_PROVISION",
        template=TEMPLATE,
        resources={"B": ("AWS::S3::Bucket", {"ObjectLockEnabled": True, "N": [3]})},
    )
    event = request(HOOK, target, region="us-east-1", publish=_published(store))
    assert event["changeSetId"] == event["requestData"]["targetLogicalId"]
    (change,) = store[0]["changedResources"]
    assert change["action"] == "CREATE" and change["beforeContext"] is None
    assert json.loads(change["afterContext"]) == {
        "Properties": {"ObjectLockEnabled": "true", "N": ["3"]}
    }


def test_reinvocation_carries_the_attempt_and_callback_context() -> None:
    event = request(HOOK, Target("RESOURCE", "CREATE_PRE_PROVISION", "T", "L"), region="r")
    second = again(event, 2, {"step": 1})
    assert second["requestContext"] == {"invocation": 2, "callbackContext": {"step": 1}}
    assert second["clientRequestToken"] == event["clientRequestToken"]
    assert event["requestContext"]["invocation"] == 1


@pytest.mark.parametrize(
    ("text", "point"),
    [
        ("preCreate", "CREATE_PRE_PROVISION"),
        ("update", "UPDATE_PRE_PROVISION"),
        ("DELETE_PRE_PROVISION", "DELETE_PRE_PROVISION"),
    ],
)
def test_invocation_points_as_users_type_them(text: str, point: str) -> None:
    assert invocation_point(text) == point


# --------------------------------------------------------------------------- rules


def _answered(*responses: Any, seconds: float = 0.1, operation: str = "RESOURCE") -> Answered:
    target = Target(operation, "CREATE_PRE_PROVISION", "AWS::S3::Bucket", "B")
    event = request(HOOK, target, region="us-east-1", token="tok")
    answered = Answered(target)
    for number, response in enumerate(responses, start=1):
        answered.attempts.append(Attempt(again(event, number, None), response, seconds))
    return answered


def _ok(**extra: Any) -> dict[str, Any]:
    return {"hookStatus": "SUCCESS", "clientRequestToken": "tok", **extra}


WAITING = {"hookStatus": "IN_PROGRESS", "clientRequestToken": "tok", "callbackContext": {}}

#: One breach per rule: (the rule it breaks, the answers, seconds each took).
PLANTED: dict[str, tuple[str, tuple[Any, ...], float]] = {
    "not-a-status": ("lh_hook_status", ({"hookStatus": "DONE", "clientRequestToken": "tok"},), 1),
    "no-token": ("lh_client_request_token", ({"hookStatus": "SUCCESS"},), 1),
    "other-token": ("lh_client_request_token", (_ok(clientRequestToken="x"),), 1),
    "failed-no-code": (
        "lh_failed_has_error_code",
        ({"hookStatus": "FAILED", "clientRequestToken": "tok"},),
        1,
    ),
    "unknown-code": (
        "lh_error_code_known",
        ({"hookStatus": "FAILED", "clientRequestToken": "tok", "errorCode": "NotCompliant"},),
        1,
    ),
    "31-seconds": ("lh_answers_within_30_seconds", (_ok(),), 31),
    "never-final": ("lh_final_by_third_invocation", (WAITING, WAITING, WAITING), 1),
    "bad-delay": ("lh_callback", (_ok(callbackDelaySeconds="5"),), 1),
}


@pytest.mark.parametrize("planted", sorted(PLANTED))
def test_each_planted_breach_fails_its_rule_alone(planted: str) -> None:
    rule_name, responses, seconds = PLANTED[planted]
    answered = _answered(*responses, seconds=seconds)
    failing = {rule.name for rule in RULES if rule.check(answered)[0]}
    assert failing == {rule_name}
    assert rule_name in RULE_NAMES


def test_a_correct_answer_breaks_no_rule() -> None:
    answered = _answered(WAITING, WAITING, _ok(message="fine"))
    assert all(rule.check(answered) == ([], []) for rule in RULES)


@pytest.mark.parametrize(("operation", "limit"), [("RESOURCE", 4096), ("CLOUD_CONTROL", 1024)])
def test_a_message_over_the_limit_is_a_warning_that_it_is_cut(operation: str, limit: int) -> None:
    (rule,) = [r for r in RULES if r.name == "lh_message_length"]
    fits = rule.check(_answered(_ok(message="m" * limit), operation=operation))
    over = rule.check(_answered(_ok(message="m" * (limit + 1)), operation=operation))
    assert fits == ([], [])
    assert over[0] == [] and f"cuts it at {limit:,}" in over[1][0]


def test_a_crash_or_a_timeout_is_not_a_hook_status() -> None:
    (status,) = [r for r in RULES if r.name == "lh_hook_status"]
    (timing,) = [r for r in RULES if r.name == "lh_answers_within_30_seconds"]
    crashed = _answered(None)
    crashed.attempts[0].error = "ValueError: boom"
    assert "raised ValueError" in status.check(crashed)[0][0]
    hung = _answered(None)
    hung.attempts[0].timed_out = True
    assert status.check(hung) == ([], [])
    assert "still running" in timing.check(hung)[0][0]


def test_annotations_of_another_shape_are_warnings() -> None:
    (rule,) = [r for r in RULES if r.name == "lh_annotations"]
    good = {"annotationName": "a", "status": "PASSED", "severityLevel": "LOW"}
    bad = {"status": "OK", "severityLevel": "SEVERE", "remediationLink": "docs"}
    assert rule.check(_answered(_ok(annotations=[good]))) == ([], [])
    problems, warnings = rule.check(_answered(_ok(annotations=[bad])))
    assert problems == [] and len(warnings) == 4


# --------------------------------------------------------------------------- the template


def test_lambda_function_is_found_however_it_is_named() -> None:
    resources: dict[str, Any] = {
        "Fn": {"Type": "AWS::Serverless::Function", "Properties": {"FunctionName": "chk"}},
        "Version": {"Type": "AWS::Lambda::Version", "Properties": {"FunctionName": {"Ref": "Fn"}}},
        "Topic": {"Type": "AWS::SNS::Topic"},
    }
    named = [
        {"Fn::GetAtt": ["Fn", "Arn"]},
        {"Fn::GetAtt": "Fn.Arn"},
        {"Ref": "Fn"},
        {"Fn::Sub": "${Fn.Arn}"},
        {"Ref": "Version"},
        "arn:aws:lambda:us-east-1:123456789012:function:chk",
        "chk:live",
    ]
    assert [function_named(v, resources) for v in named] == ["Fn"] * len(named)
    assert function_named({"Ref": "Topic"}, resources) is None
    assert function_named("arn:aws:lambda:us-east-1:123456789012:function:other", resources) is None


def test_target_filters_short_and_long_forms() -> None:
    hooks = lambda_hooks(
        {
            "Resources": {
                "Short": {
                    "Type": "AWS::CloudFormation::LambdaHook",
                    "Properties": {
                        "TargetOperations": ["RESOURCE", "STACK"],
                        "TargetFilters": {"Actions": ["UPDATE", "CREATE"], "TargetNames": ["X"]},
                    },
                },
                "Long": {
                    "Type": "AWS::CloudFormation::LambdaHook",
                    "Properties": {
                        "TargetFilters": {
                            "Targets": [
                                {"TargetName": "Y", "Action": "DELETE", "InvocationPoint": "P"}
                            ]
                        }
                    },
                },
            }
        }
    )
    assert (hooks["Short"].actions, hooks["Short"].target_names) == (["CREATE", "UPDATE"], ["X"])
    assert hooks["Short"].target_operations == ["RESOURCE", "STACK"]
    assert (hooks["Long"].actions, hooks["Long"].target_names) == (["DELETE"], ["Y"])
