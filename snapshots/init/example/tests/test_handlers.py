"""Unit tests for the handlers, called through the same entry point as `cfn invoke`.

Every AWS call goes to moto's in-memory SSM: nothing leaves the machine. Run them with
`python -m pytest`; `cfngen test` checks the whole handler contract.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from example_ssm_parameter import handlers

TYPE_NAME = "Example::SSM::Parameter"
PARAMETER = {"Name": "/unit-test/greeting", "Value": "hello", "Tags": {"team": "a"}}


@pytest.fixture(autouse=True)
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        yield


def invoke(action: str, context: Any = None, **request: Any) -> dict[str, Any]:
    """Call a handler the way CloudFormation's test entry point does; return its event."""
    event = {
        "credentials": {
            "accessKeyId": "test",
            "secretAccessKey": "test",
            "sessionToken": "test",
        },
        "action": action,
        "request": {
            "clientRequestToken": "4b90a7e4-b790-456b-a937-0cfdfa211dfe",
            "logicalResourceIdentifier": "MyParameter",
            "stackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/s/0",
            "awsAccountId": "123456789012",
            "region": "us-east-1",
            **request,
        },
        "callbackContext": context,
        "region": "us-east-1",
    }
    result: dict[str, Any] = handlers.test_entrypoint(event, None)
    return result


def create(model: dict[str, Any]) -> dict[str, Any]:
    """Create to the end: call again with the callbackContext while IN_PROGRESS."""
    event = invoke("CREATE", desiredResourceState=model)
    while event["status"] == "IN_PROGRESS":
        event = invoke(
            "CREATE",
            event["callbackContext"],
            desiredResourceState=event["resourceModel"],
        )
    return event


def test_the_handlers_module_registers_the_type():
    assert handlers.resource.type_name == TYPE_NAME


def test_create_writes_waits_until_the_parameter_reads_back_then_tags_it():
    event = invoke("CREATE", desiredResourceState=PARAMETER)
    # moto's SSM is consistent at once: one call is enough
    assert event["status"] == "SUCCESS", event
    model = event["resourceModel"]
    assert {key: model[key] for key in PARAMETER} == PARAMETER
    assert model["Version"] == 1
    assert model["Arn"].endswith(":parameter/unit-test/greeting")


def test_create_carries_on_from_its_callback_context():
    first = invoke("CREATE", desiredResourceState=PARAMETER)
    ssm = boto3.client("ssm", region_name="us-east-1")
    ssm.remove_tags_from_resource(
        ResourceType="Parameter", ResourceId=PARAMETER["Name"], TagKeys=["team"]
    )
    # A context saved while create waited for the parameter: the next call goes on
    # from that step (and does not create the parameter again).
    waiting = {"cfngen": {"step": "readable", "progress": {"missing": 1}}}
    event = invoke("CREATE", waiting, desiredResourceState=PARAMETER)
    assert event["status"] == "SUCCESS", event
    assert event["resourceModel"] == first["resourceModel"]


def test_create_of_an_existing_parameter_is_already_exists():
    create(PARAMETER)
    event = invoke("CREATE", desiredResourceState=PARAMETER)
    assert (event["status"], event["errorCode"]) == ("FAILED", "AlreadyExists"), event


def test_a_value_ssm_refuses_is_an_invalid_request():
    event = invoke("CREATE", desiredResourceState={**PARAMETER, "Value": ""})
    assert (event["status"], event["errorCode"]) == ("FAILED", "InvalidRequest"), event


def test_read_returns_the_parameter():
    create(PARAMETER)
    event = invoke("READ", desiredResourceState={"Name": PARAMETER["Name"]})
    assert event["status"] == "SUCCESS", event
    assert event["resourceModel"]["Value"] == "hello"
    assert event["resourceModel"]["Tags"] == {"team": "a"}


def test_read_of_a_missing_parameter_is_not_found():
    event = invoke("READ", desiredResourceState={"Name": "/unit-test/missing"})
    assert (event["status"], event["errorCode"]) == ("FAILED", "NotFound"), event


def test_update_changes_the_value_and_the_tags():
    created = create(PARAMETER)["resourceModel"]
    wanted = {**PARAMETER, "Value": "bye", "Tags": {"stage": "test"}}
    event = invoke("UPDATE", desiredResourceState=wanted, previousResourceState=created)
    assert event["status"] == "SUCCESS", event
    assert event["resourceModel"]["Value"] == "bye"
    assert event["resourceModel"]["Tags"] == {"stage": "test"}
    assert event["resourceModel"]["Version"] == 2


def test_update_of_the_name_is_not_updatable():
    created = create(PARAMETER)["resourceModel"]
    renamed = {**PARAMETER, "Name": "/unit-test/renamed"}
    event = invoke(
        "UPDATE", desiredResourceState=renamed, previousResourceState=created
    )
    assert (event["status"], event["errorCode"]) == ("FAILED", "NotUpdatable"), event


def test_update_of_a_missing_parameter_is_not_found_and_creates_nothing():
    event = invoke("UPDATE", desiredResourceState=PARAMETER)
    assert (event["status"], event["errorCode"]) == ("FAILED", "NotFound"), event
    event = invoke("READ", desiredResourceState={"Name": PARAMETER["Name"]})
    assert event["errorCode"] == "NotFound", event


def test_delete_returns_no_model_and_the_parameter_is_gone():
    create(PARAMETER)
    event = invoke("DELETE", desiredResourceState={"Name": PARAMETER["Name"]})
    assert event["status"] == "SUCCESS", event
    assert event.get("resourceModel") is None
    event = invoke("DELETE", desiredResourceState={"Name": PARAMETER["Name"]})
    assert (event["status"], event["errorCode"]) == ("FAILED", "NotFound"), event


def test_list_pages_through_every_parameter():
    names = {f"/unit-test/p{i:02d}" for i in range(handlers.PAGE_SIZE + 2)}
    ssm = boto3.client("ssm", region_name="us-east-1")
    for name in names:
        ssm.put_parameter(Name=name, Value="v", Type="String")
    listed: list[str] = []
    token = None
    for _page in range(5):
        event = invoke("LIST", desiredResourceState={}, nextToken=token)
        assert event["status"] == "SUCCESS", event
        listed.extend(model["Name"] for model in event["resourceModels"])
        token = event.get("nextToken")
        if token is None:
            break
    assert sorted(listed) == sorted(names)
