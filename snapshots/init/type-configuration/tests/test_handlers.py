"""Unit tests for the handlers, called through the same entry point as `cfn invoke`.

Run them with `python -m pytest`. `cfngen test` checks the whole handler contract.
"""

from __future__ import annotations

from typing import Any

from acme_svc_widget import handlers

TYPE_NAME = "Acme::Svc::Widget"
WIDGET = {
    "Name": "unit-test",
    "Description": "for the unit tests",
}


def invoke(action: str, **request: Any) -> dict[str, Any]:
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
            "logicalResourceIdentifier": "MyResource",
            "stackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/s/0",
            "awsAccountId": "123456789012",
            "region": "us-east-1",
            **request,
        },
        "region": "us-east-1",
    }
    result: dict[str, Any] = handlers.test_entrypoint(event, None)
    return result


def created() -> dict[str, Any]:
    return {**WIDGET, "Id": "unit-test-1"}


def test_the_handlers_module_registers_the_type():
    assert handlers.resource.type_name == TYPE_NAME


def test_create_returns_the_model_with_its_identifier():
    event = invoke("CREATE", desiredResourceState=WIDGET)
    assert event["status"] == "SUCCESS", event
    model = event["resourceModel"]
    assert model["Id"]
    assert model["Arn"].endswith(model["Id"])
    assert {key: model[key] for key in WIDGET} == WIDGET


def test_read_returns_the_model():
    event = invoke("READ", desiredResourceState=created())
    assert event["status"] == "SUCCESS", event
    assert event["resourceModel"]["Id"] == created()["Id"]


def test_read_without_an_identifier_is_not_found():
    event = invoke("READ", desiredResourceState={"Name": "missing"})
    assert (event["status"], event["errorCode"]) == ("FAILED", "NotFound"), event


def test_update_returns_the_model():
    changed = {**created(), "Description": "changed"}
    event = invoke(
        "UPDATE", desiredResourceState=changed, previousResourceState=created()
    )
    assert event["status"] == "SUCCESS", event
    assert event["resourceModel"]["Description"] == "changed"


def test_update_of_a_create_only_property_is_not_updatable():
    renamed = {**created(), "Name": "renamed"}
    event = invoke(
        "UPDATE", desiredResourceState=renamed, previousResourceState=created()
    )
    assert (event["status"], event["errorCode"]) == ("FAILED", "NotUpdatable"), event


def test_update_without_an_identifier_is_not_found():
    event = invoke("UPDATE", desiredResourceState=WIDGET, previousResourceState=WIDGET)
    assert (event["status"], event["errorCode"]) == ("FAILED", "NotFound"), event


def test_delete_returns_no_model():
    event = invoke("DELETE", desiredResourceState=created())
    assert event["status"] == "SUCCESS", event
    assert event.get("resourceModel") is None


def test_delete_without_an_identifier_is_not_found():
    event = invoke("DELETE", desiredResourceState={"Name": "missing"})
    assert (event["status"], event["errorCode"]) == ("FAILED", "NotFound"), event


def test_list_returns_a_page_of_models():
    event = invoke("LIST", desiredResourceState={})
    assert event["status"] == "SUCCESS", event
    assert event.get("resourceModels", []) == []
    assert event.get("nextToken") is None
