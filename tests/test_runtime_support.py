"""The runtime support module (cfngen_runtime.py) as handlers meet it: models read and written
through it, and its Resource driven through cloudformation_cli_python_lib's real entrypoints."""

import importlib
import json
import logging
import sys

import pytest

from cfngen._models import render_models

SINK = {
    "typeName": "Test::Kitchen::Sink",
    "description": "every shape the runtime has to read and write",
    "definitions": {
        "Tag": {
            "type": "object",
            "properties": {"Key": {"type": "string"}, "Value": {"type": "string"}},
            "required": ["Key", "Value"],
            "additionalProperties": False,
        },
        "Node": {
            "type": "object",
            "properties": {
                "Name": {"type": "string"},
                "Children": {"type": "array", "items": {"$ref": "#/definitions/Node"}},
            },
            "additionalProperties": False,
        },
        "Cat": {
            "type": "object",
            "properties": {"Meow": {"type": "boolean"}},
            "additionalProperties": False,
        },
        "Dog": {
            "type": "object",
            "properties": {"Bark": {"type": "integer"}, "Name": {"type": "string"}},
            "additionalProperties": False,
        },
        "Cors": {
            "type": "object",
            "properties": {
                "AllowOrigin": {"type": "string"},
                "AllowCredentials": {"type": "boolean"},
            },
        },
        # a union told apart by a `Type` enum, as AWS::Serverless::Function's events are
        "SnsEvent": {
            "type": "object",
            "properties": {
                "Type": {"type": "string", "enum": ["SNS"]},
                "Properties": {
                    "type": "object",
                    "properties": {"Topic": {"type": "string"}, "Raw": {"type": "boolean"}},
                },
            },
        },
        "SqsEvent": {
            "type": "object",
            "properties": {
                "Type": {"type": "string", "enum": ["SQS"]},
                "Properties": {
                    "type": "object",
                    "properties": {"Queue": {"type": "string"}, "Batch": {"type": "integer"}},
                },
            },
        },
    },
    "properties": {
        "Id": {"type": "string"},
        "None": {"type": "string"},
        "from": {"type": "integer"},
        "Type": {"type": "string"},
        "my-prop": {"type": "boolean"},
        "Count": {"type": "integer", "default": 3},
        "Ratio": {"type": "number"},
        "Flag": {"type": "boolean"},
        "Level": {"type": "integer", "enum": [1, 2, 3]},
        "Mode": {"type": "string", "enum": ["ON", "OFF"]},
        "IntOrString": {"type": ["integer", "string"]},
        "ObjectOrString": {"type": ["object", "string"]},
        "Tags": {
            "type": "array",
            "insertionOrder": False,
            "uniqueItems": True,
            "items": {"$ref": "#/definitions/Tag"},
        },
        "Labels": {
            "type": "object",
            "patternProperties": {"^[a-z]+$": {"type": "integer"}},
            "additionalProperties": False,
        },
        "ListOfMaps": {
            "type": "array",
            "items": {"type": "object", "additionalProperties": {"type": "integer"}},
        },
        "MapOfLists": {
            "type": "object",
            "additionalProperties": {"type": "array", "items": {"$ref": "#/definitions/Tag"}},
        },
        "Matrix": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
        "Tree": {"$ref": "#/definitions/Node"},
        "Free": {"type": "object"},
        "Choice": {"oneOf": [{"$ref": "#/definitions/Cat"}, {"$ref": "#/definitions/Dog"}]},
        "Events": {
            "type": "object",
            "additionalProperties": {
                "oneOf": [{"$ref": "#/definitions/SnsEvent"}, {"$ref": "#/definitions/SqsEvent"}]
            },
        },
        "Cors": {"anyOf": [{"type": "object"}, {"type": "string"}, {"$ref": "#/definitions/Cors"}]},
        "Version": {
            "anyOf": [
                {"type": "object", "properties": {"V": {"type": "number"}}},
                {"type": "object", "properties": {"V": {"type": ["string", "number"]}}},
            ]
        },
        "Nested": {
            "type": "object",
            "properties": {
                "Inner": {"type": "object", "properties": {"Deep": {"type": "integer"}}}
            },
        },
    },
    "additionalProperties": False,
    "required": ["Type"],
    "primaryIdentifier": ["/properties/Id"],
    "readOnlyProperties": ["/properties/Id"],
    "handlers": {
        "create": {"permissions": []},
        "read": {"permissions": []},
        "update": {"permissions": []},
        "delete": {"permissions": []},
        "list": {"permissions": []},
    },
}

CALLBACK = {
    "type": "object",
    "properties": {
        "Attempts": {"type": "integer"},
        "Stage": {"type": "string", "enum": ["CREATING", "STABILISING"]},
        "PendingIds": {"type": "array", "items": {"type": "string"}},
    },
}

HANDLERS = """
from cloudformation_cli_python_lib import (
    Action, HandlerErrorCode, OperationStatus, ProgressEvent, exceptions,
)
from cloudformation_cli_python_lib import Resource as LibResource

from .cfngen_runtime import Resource
from .models import CallbackContext, ResourceHandlerRequest, ResourceModel, TypeConfigurationModel

PAGES = {None: (["a", "b"], "page-2"), "page-2": (["c"], None)}
SEEN = []


def register(resource):
    @resource.handler(Action.CREATE)
    def create(session, request: ResourceHandlerRequest, callback_context):
        context = CallbackContext._deserialize(callback_context)
        SEEN.append((context.Attempts, context.Stage))
        model = request.desiredResourceState
        if model.Mode == "FAIL":
            return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel={1, 2})
        if (context.Attempts or 0) < 2:
            context.Attempts = (context.Attempts or 0) + 1
            context.Stage = "STABILISING"
            return ProgressEvent(
                status=OperationStatus.IN_PROGRESS,
                resourceModel=model,
                callbackContext=context._serialize(),
            )
        model.Id = "id-1"
        return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)

    @resource.handler(Action.READ)
    def read(session, request, callback_context):
        model = request.desiredResourceState
        if model.Id == "missing":
            raise exceptions.NotFound("Test::Kitchen::Sink", model.Id)
        if model.Id == "slow":
            return ProgressEvent(status=OperationStatus.IN_PROGRESS)
        SEEN.append(model)
        return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)

    @resource.handler(Action.UPDATE)
    def update(session, request, callback_context):
        return {"not": "a progress event"}[request.desiredResourceState.Mode]

    @resource.handler(Action.DELETE)
    def delete(session, request, callback_context):
        raise ValueError("the widget exploded")

    @resource.handler(Action.LIST)
    def list_(session, request, callback_context):
        SEEN.append(request.nextToken)
        ids, token = PAGES[request.nextToken]
        return ProgressEvent(
            status=OperationStatus.SUCCESS,
            resourceModels=[ResourceModel(Id=i) for i in ids],
            nextToken=token,
        )


resource = Resource("Test::Kitchen::Sink", ResourceModel, TypeConfigurationModel)
register(resource)
test_entrypoint = resource.test_entrypoint
lib_resource = LibResource("Test::Kitchen::Sink", ResourceModel, TypeConfigurationModel)
register(lib_resource)
"""


@pytest.fixture(scope="module")
def sink(tmp_path_factory):
    """The kitchen-sink project's package, imported for real from files."""
    root = tmp_path_factory.mktemp("sink")
    package = root / "kitchen_sink"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in render_models(SINK, CALLBACK).items():
        (package / name).parent.mkdir(exist_ok=True)
        (package / name).write_text(text)
    (package / "handlers.py").write_text(HANDLERS)
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("kitchen_sink.handlers")
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n.startswith("kitchen_sink")]:
            del sys.modules[name]


@pytest.fixture
def models(sink):
    return sys.modules["kitchen_sink.models"]


# ---------------------------------------------------------------------- (de)serialisation


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        # JSON names that are not Python names travel as aliases
        ({"None": "x", "from": 5, "my-prop": True, "Type": "t"}, None),
        # CloudFormation's strings become what the schema says...
        (
            {"from": "5", "Count": "-12", "Ratio": "1.5", "Flag": "false"},
            {"from": 5, "Count": -12, "Ratio": 1.5, "Flag": False},
        ),
        (
            {"Ratio": "2", "my-prop": "true", "Flag": "True"},
            {"Ratio": 2, "my-prop": True, "Flag": True},
        ),
        ({"Ratio": "1e3"}, {"Ratio": 1000.0}),
        ({"Level": "2", "Mode": "ON"}, {"Level": 2, "Mode": "ON"}),
        ({"Matrix": [["1", "2.5"], []]}, {"Matrix": [[1, 2.5], []]}),
        # ...but a string stays a string where the schema allows one
        ({"IntOrString": "5"}, None),
        ({"IntOrString": 5}, None),
        ({"ObjectOrString": "x"}, None),
        ({"ObjectOrString": {"a": "1"}}, None),
        ({"Id": "5", "Type": "true"}, None),
        # values that fit nothing are left as they came (CloudFormation validated them)
        ({"Count": "many", "Level": "9", "Flag": "yes"}, None),
        # empty collections are kept
        ({"Tags": [], "Labels": {}, "Free": {}, "ListOfMaps": [], "Tree": {}}, None),
        # arrays are lists, even with insertionOrder false: duplicates and order kept
        (
            {
                "Tags": [
                    {"Key": "b", "Value": "2"},
                    {"Key": "a", "Value": "1"},
                    {"Key": "a", "Value": "1"},
                ]
            },
            None,
        ),
        # maps from patternProperties/additionalProperties, also inside lists and holding lists
        ({"Labels": {"a": "1", "b": 2}}, {"Labels": {"a": 1, "b": 2}}),
        ({"ListOfMaps": [{"a": "1"}, {}]}, {"ListOfMaps": [{"a": 1}, {}]}),
        ({"MapOfLists": {"k": [{"Key": "x"}], "e": []}}, None),
        # recursion
        ({"Tree": {"Name": "r", "Children": [{"Name": "c", "Children": [{"Name": "g"}]}]}}, None),
        # unions of models: the one that declares the keys
        ({"Choice": {"Bark": "3", "Name": "rex"}}, {"Choice": {"Bark": 3, "Name": "rex"}}),
        ({"Choice": {"Meow": "true"}}, {"Choice": {"Meow": True}}),
        # ...or whose `Type` enum takes the value
        (
            {"Events": {"a": {"Type": "SQS", "Properties": {"Queue": "q", "Batch": "5"}}}},
            {"Events": {"a": {"Type": "SQS", "Properties": {"Queue": "q", "Batch": 5}}}},
        ),
        (
            {"Events": {"b": {"Type": "SNS", "Properties": {"Raw": "true"}}}},
            {"Events": {"b": {"Type": "SNS", "Properties": {"Raw": True}}}},
        ),
        # ...a model before a free-form object when it declares the keys
        (
            {"Cors": {"AllowOrigin": "*", "AllowCredentials": "true"}},
            {"Cors": {"AllowOrigin": "*", "AllowCredentials": True}},
        ),
        ({"Cors": {"x": "true"}}, None),
        ({"Cors": "*"}, None),
        # ...or that converts fewest strings
        ({"Version": {"V": "2.0"}}, None),
        ({"Version": {"V": 2.5}}, None),
        # nested objects
        ({"Nested": {"Inner": {"Deep": "7"}}}, {"Nested": {"Inner": {"Deep": 7}}}),
        # keys beyond the declared properties are kept, as they came
        ({"Unknown": {"x": "1"}, "Tree": {"Extra": [1]}}, None),
        # free-form objects keep everything, nulls included; a null property is dropped
        ({"Free": {"a": None, "b": ["1", {"c": True}]}}, None),
        ({"Count": None, "Tags": None, "Id": "i"}, {"Id": "i"}),
    ],
)
def test_round_trip(models, given, expected):
    assert models.ResourceModel._deserialize(given)._serialize() == (
        given if expected is None else expected
    )


def test_round_trip_keeps_json_types_exactly(models):
    out = models.ResourceModel._deserialize({"Count": "1", "Ratio": "1", "Flag": "1"})._serialize()
    assert json.dumps(out) == '{"Count": 1, "Ratio": 1, "Flag": "1"}'


def test_fields_use_python_names_and_default_to_none(models):
    model = models.ResourceModel()
    assert model._serialize() == {}
    assert models.ResourceModel._deserialize({"from": "5", "None": "n"}).from_ == 5
    made = models.ResourceModel(from_=1, None_="n", my_prop=False, Tags=[models.Tag(Key="k")])
    assert made._serialize() == {"from": 1, "None": "n", "my-prop": False, "Tags": [{"Key": "k"}]}


def test_typed_values_after_reading(models):
    model = models.ResourceModel._deserialize(
        {"Tags": [{"Key": "k", "Value": "v"}], "Tree": {"Children": [{"Name": "c"}]}}
    )
    assert model.Tags == [models.Tag(Key="k", Value="v")]
    assert model.Tree.Children[0].Name == "c"


def test_deserialize_none_and_empty(models):
    assert models.ResourceModel._deserialize(None) is None
    assert models.ResourceModel._deserialize({}) == models.ResourceModel()


def test_deserialize_rejects_what_is_not_an_object(models):
    with pytest.raises(TypeError, match="ResourceModel needs a JSON object, not list"):
        models.ResourceModel._deserialize([])


def test_values_a_handler_sets_are_written_as_json(models):
    model = models.ResourceModel(Tags=(models.Tag(Key="a"),), Labels={"a": 1}, Matrix=[{1.5}])
    assert model._serialize() == {"Tags": [{"Key": "a"}], "Labels": {"a": 1}, "Matrix": [[1.5]]}


def test_models_subclass_the_library_model(models):
    from cloudformation_cli_python_lib.interface import BaseModel, BaseResourceHandlerRequest

    assert issubclass(models.ResourceModel, BaseModel)
    assert issubclass(models.CallbackContext, BaseModel)
    assert issubclass(models.ResourceHandlerRequest, BaseResourceHandlerRequest)


def test_callback_context_is_typed_and_keeps_unknown_state(models):
    context = models.CallbackContext._deserialize({"Attempts": "2", "Legacy": {"x": 1}})
    assert context.Attempts == 2
    context.Stage = "CREATING"
    assert context._serialize() == {"Attempts": 2, "Stage": "CREATING", "Legacy": {"x": 1}}
    assert models.CallbackContext._deserialize({}) == models.CallbackContext()


def test_progress_event_serialises_models(models):
    from cloudformation_cli_python_lib import OperationStatus, ProgressEvent

    event = ProgressEvent(
        status=OperationStatus.SUCCESS,
        resourceModel=models.ResourceModel(None_="x", Tags=[]),
        callbackContext=models.CallbackContext(Attempts=1)._serialize(),
    )
    assert event._serialize() == {
        "status": "SUCCESS",
        "message": "",
        "callbackContext": {"Attempts": 1},
        "callbackDelaySeconds": 0,
        "resourceModel": {"None": "x", "Tags": []},
    }


# ---------------------------------------------------------------------- Resource, end to end

CREDENTIALS = {
    "accessKeyId": "AKIAIOSFODNN7EXAMPLE",
    "secretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "sessionToken": "FwoGZXIvYXdzEXAMPLETOKEN",
}


def lambda_event(action, properties=None, *, next_token=None, callback_context=None):
    """A request as CloudFormation sends it to the Lambda function (no providerLogGroupName:
    with it the library ships logs to CloudWatch)."""
    event = {
        "awsAccountId": "123456789012",
        "bearerToken": "b0e7a7c1-7c5e-4c2d-9a6e-5d8f0a1b2c3d",
        "region": "us-east-1",
        "action": action,
        "responseEndpoint": "https://cloudformation.us-east-1.amazonaws.com",
        "resourceType": "Test::Kitchen::Sink",
        "resourceTypeVersion": "00000001",
        "stackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/s/0a1b2c3d",
        "requestData": {
            "callerCredentials": CREDENTIALS,
            "providerCredentials": CREDENTIALS,
            "logicalResourceId": "Sink",
            "resourceProperties": properties or {},
            "previousResourceProperties": None,
            "stackTags": {"team": "a"},
            "systemTags": {"aws:cloudformation:stack-name": "s"},
            "typeConfiguration": None,
        },
        "callbackContext": callback_context,
    }
    if next_token is not None:
        event["nextToken"] = next_token
    return event


def test_event(action, properties=None, *, next_token=None):
    """A request as `cfn test`/SAM send it to test_entrypoint."""
    request = {
        "clientRequestToken": "token",
        "desiredResourceState": properties or {},
        "logicalResourceIdentifier": "Sink",
    }
    if next_token is not None:
        request["nextToken"] = next_token
    return {"credentials": CREDENTIALS, "action": action, "request": request, "region": "us-east-1"}


test_event.__test__ = False  # a helper, not a test


@pytest.fixture(autouse=True)
def region(monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")


def test_list_pagination_reaches_the_handler(sink):
    sink.SEEN.clear()
    first = sink.resource(lambda_event("LIST"), None)
    assert first["status"] == "SUCCESS"
    assert [m["Id"] for m in first["resourceModels"]] == ["a", "b"]
    second = sink.resource(lambda_event("LIST", next_token=first["nextToken"]), None)
    assert [m["Id"] for m in second["resourceModels"]] == ["c"]
    assert "nextToken" not in second
    assert sink.SEEN == [None, "page-2"]


def test_the_library_alone_loses_the_next_token(sink):
    # The bug our Resource fixes, seen through the same handlers registered on the lib's own.
    sink.SEEN.clear()
    sink.lib_resource(lambda_event("LIST", next_token="page-2"), None)
    assert sink.SEEN == [None]


def test_a_handler_exception_is_reported_with_type_and_message(sink, capsys):
    response = sink.resource(lambda_event("DELETE"), None)
    assert response["status"] == "FAILED"
    assert response["errorCode"] == "InternalFailure"
    assert response["message"] == "ValueError: the widget exploded"
    logged = capsys.readouterr()
    assert "Traceback" in logged.err
    assert "ValueError: the widget exploded" in logged.err


def test_the_library_alone_hides_the_exception(sink, capsys):
    response = sink.lib_resource(lambda_event("DELETE"), None)
    assert (response["errorCode"], response["message"]) == ("InternalFailure", "")
    assert sink.lib_resource.test_entrypoint(test_event("DELETE"), None)["message"] == (
        "Uninitialized"
    )


def test_test_entrypoint_reports_the_exception_too(sink, caplog):
    with caplog.at_level(logging.ERROR):
        response = sink.test_entrypoint(test_event("DELETE"), None)
    assert (response["errorCode"], response["message"]) == (
        "InternalFailure",
        "ValueError: the widget exploded",
    )
    assert "the widget exploded" in caplog.text


def test_test_entrypoint_paginates(sink):
    sink.SEEN.clear()
    response = sink.test_entrypoint(test_event("LIST", next_token="page-2"), None)
    assert [m["Id"] for m in response["resourceModels"]] == ["c"]


def test_a_key_error_names_the_key(sink):
    response = sink.resource(lambda_event("UPDATE", {"Mode": "OFF"}), None)
    assert response["message"] == "KeyError: 'OFF'"


def test_handler_errors_keep_their_code_and_message(sink):
    response = sink.resource(lambda_event("READ", {"Id": "missing"}), None)
    assert response["errorCode"] == "NotFound"
    assert response["message"] == (
        "Resource of type 'Test::Kitchen::Sink' with identifier 'missing' was not found."
    )
    response = sink.resource(lambda_event("READ", {"Id": "slow"}), None)
    assert response["message"] == "READ and LIST handlers must return synchronously."


def test_a_model_that_cannot_be_written_is_reported(sink):
    response = sink.resource(lambda_event("CREATE", {"Mode": "FAIL"}), None)
    assert response["errorCode"] == "InternalFailure"
    assert response["message"].startswith("AttributeError: ")


def test_typed_request_from_cloudformation_strings(sink):
    sink.SEEN.clear()
    properties = {"Id": "i", "Count": "3", "Flag": "true", "Tags": [{"Key": "k", "Value": "v"}]}
    response = sink.resource(lambda_event("READ", properties), None)
    assert response["resourceModel"] == {**properties, "Count": 3, "Flag": True}
    (model,) = sink.SEEN
    assert (model.Count, model.Flag, model.Tags[0].Key) == (3, True, "k")


def test_callback_context_across_invocations(sink):
    sink.SEEN.clear()
    context = None
    for _ in range(5):
        response = sink.resource(
            lambda_event("CREATE", {"Type": "t"}, callback_context=context), None
        )
        if response["status"] != "IN_PROGRESS":
            break
        context = json.loads(json.dumps(response["callbackContext"]))
    assert response["status"] == "SUCCESS"
    assert response["resourceModel"] == {"Type": "t", "Id": "id-1"}
    assert sink.SEEN == [
        (None, None),
        (1, "STABILISING"),
        (2, "STABILISING"),
    ]
