"""Rendering a module as CloudFormation expands it (`cfngen module render`, `cfngen test`).

One fragment uses every construct that names something the module declares; the table says
what each becomes in the template that uses the module as `Store`. Nested local modules are
expanded (with their outputs read through `!GetAtt`), a parameter with no value is exit 2, and
cfn-lint judges the rendered template.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cfngen._cfn_template import decode, plain
from cfngen._cli import main
from cfngen._errors import CfngenError
from cfngen._kinds.module._render import parse_params, render

FRAGMENT = """\
Parameters:
  Name:
    Type: String
  Env:
    Type: String
    Default: dev
  Subnets:
    Type: CommaDelimitedList
    Default: a,b
Conditions:
  IsProd: !Equals [!Ref Env, prod]
Mappings:
  Sizes:
    dev: {Size: small}
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Condition: IsProd
    Properties:
      QueueName: !Sub "${Name}-${Env}-q"
  Topic:
    Type: AWS::SNS::Topic
    DependsOn: [Queue]
    Properties:
      TopicName: !Ref Name
      DisplayName: !FindInMap [Sizes, !Ref Env, Size]
      Tags:
        - Key: queue
          Value: !GetAtt Queue.Arn
        - Key: literal
          Value: !Sub "${!Literal}-${AWS::Region}-${Queue.QueueName}"
        - Key: local
          Value: !Sub ["${X}", {X: !Ref Queue}]
        - Key: choice
          Value: !If [IsProd, !GetAtt [Queue, QueueName], !Ref AWS::NoValue]
        - Key: subnets
          Value: !Join [",", !Ref Subnets]
Outputs:
  TopicArn:
    Value: !Ref Topic
"""


@pytest.fixture(autouse=True)
def _no_report_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Never read or write the user's ~/.cfngen report cache."""
    monkeypatch.setenv("CFNGEN_NO_CACHE", "1")


def rendered(params: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
    template = plain(decode(FRAGMENT).template)
    given = {"Name": "n"} if params is None else params
    return render(template, logical_id="Store", params=given, **kwargs).template


def at(document: Any, pointer: str) -> Any:
    for part in pointer.strip("/").split("/"):
        document = document[int(part)] if isinstance(document, list) else document[part]
    return document


TABLE = [
    ("/Resources/StoreQueue/Condition", "StoreIsProd"),
    ("/Resources/StoreQueue/Properties/QueueName", "n-dev-q"),
    ("/Resources/StoreTopic/DependsOn", ["StoreQueue"]),
    ("/Resources/StoreTopic/Properties/TopicName", "n"),
    (
        "/Resources/StoreTopic/Properties/DisplayName",
        {"Fn::FindInMap": ["StoreSizes", "dev", "Size"]},
    ),
    ("/Resources/StoreTopic/Properties/Tags/0/Value", {"Fn::GetAtt": ["StoreQueue", "Arn"]}),
    (
        "/Resources/StoreTopic/Properties/Tags/1/Value",
        {"Fn::Sub": "${!Literal}-${AWS::Region}-${StoreQueue.QueueName}"},
    ),
    (
        "/Resources/StoreTopic/Properties/Tags/2/Value",
        {"Fn::Sub": ["${X}", {"X": {"Ref": "StoreQueue"}}]},
    ),
    (
        "/Resources/StoreTopic/Properties/Tags/3/Value",
        {
            "Fn::If": [
                "StoreIsProd",
                {"Fn::GetAtt": ["StoreQueue", "QueueName"]},
                {"Ref": "AWS::NoValue"},
            ]
        },
    ),
    ("/Resources/StoreTopic/Properties/Tags/4/Value", {"Fn::Join": [",", ["a", "b"]]}),
    ("/Conditions/StoreIsProd", {"Fn::Equals": ["dev", "prod"]}),
    ("/Mappings/StoreSizes", {"dev": {"Size": "small"}}),
    ("/Outputs/StoreTopicArn/Value", {"Ref": "StoreTopic"}),
]


@pytest.mark.parametrize(("pointer", "expected"), TABLE, ids=[row[0] for row in TABLE])
def test_each_reference_follows_the_prefix(pointer: str, expected: Any) -> None:
    assert at(rendered(), pointer) == expected


def test_only_prefixed_ids_are_left() -> None:
    template = rendered()
    assert sorted(template["Resources"]) == ["StoreQueue", "StoreTopic"]
    assert "Parameters" not in template  # every value is known


def test_given_values_win_over_defaults() -> None:
    template = rendered({"Name": "n", "Env": "prod", "Subnets": "x, y"})
    assert at(template, "/Conditions/StoreIsProd") == {"Fn::Equals": ["prod", "prod"]}
    assert at(template, "/Resources/StoreTopic/Properties/Tags/4/Value") == {
        "Fn::Join": [",", ["x", "y"]]
    }


def test_a_parameter_without_value_or_default_is_a_usage_error() -> None:
    with pytest.raises(CfngenError) as caught:
        rendered({})
    assert caught.value.exit_code == 2
    assert "--param Name=VALUE" in str(caught.value)


def test_an_unknown_parameter_is_refused() -> None:
    with pytest.raises(CfngenError, match="no parameter named Nope"):
        rendered({"Name": "n", "Nope": "x"})


def test_params_file_in_both_shapes(tmp_path: Path) -> None:
    mapping = tmp_path / "p.yaml"
    mapping.write_text("Name: a\nEnv: prod\n")
    listed = tmp_path / "p.json"
    listed.write_text(json.dumps([{"ParameterKey": "Name", "ParameterValue": "b"}]))
    assert parse_params(["Env=x"], mapping) == {"Name": "a", "Env": "x"}
    assert parse_params([], listed) == {"Name": "b"}


def project(root: Path, type_name: str, fragment: str) -> Path:
    (root / "fragments").mkdir(parents=True)
    config = {"artifact_type": "MODULE", "typeName": type_name, "settings": {}}
    (root / ".rpdk-config").write_text(json.dumps(config))
    (root / "fragments" / "module.yaml").write_text(fragment)
    return root


INNER = """\
Parameters:
  Prefix: {Type: String}
Resources:
  Bucket:
    Type: AWS::S3::Bucket
    Properties:
      BucketName: !Sub "${Prefix}-bucket"
Outputs:
  Arn:
    Value: !GetAtt Bucket.Arn
"""
OUTER = """\
Parameters:
  Name: {Type: String}
Resources:
  Inner:
    Type: Acme::Store::Inner::MODULE
    Properties:
      Prefix: !Ref Name
  Topic:
    Type: AWS::SNS::Topic
    DependsOn: Inner
    Properties:
      TopicName: !GetAtt Inner.Arn
"""


def test_nested_local_modules_are_expanded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project(tmp_path / "inner", "Acme::Store::Inner::MODULE", INNER)
    outer = project(tmp_path / "outer", "Acme::Store::Outer::MODULE", OUTER)
    code = main(["module", "render", str(outer), "--format", "json", "--param", "Name=acme"])
    assert code == 0
    template = json.loads(capsys.readouterr().out)
    assert sorted(template["Resources"]) == ["ModuleInnerBucket", "ModuleTopic"]
    assert at(template, "/Resources/ModuleInnerBucket/Properties/BucketName") == "acme-bucket"
    assert at(template, "/Resources/ModuleTopic/Properties/TopicName") == {
        "Fn::GetAtt": ["ModuleInnerBucket", "Arn"]
    }
    # DependsOn the nested module: on what it expanded into.
    assert at(template, "/Resources/ModuleTopic/DependsOn") == "ModuleInnerBucket"


def test_module_test_lints_the_rendered_template(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path / "m", "Acme::Store::Bucket::MODULE", INNER)
    assert main(["generate", str(root)]) == 0
    assert main(["test", str(root), "--param", "Prefix=acme"]) == 0
    assert "4 passed" in capsys.readouterr().out
    # A bucket name that the rendered template gives S3 is wrong: cfn-lint says so.
    assert main(["test", str(root), "--param", "Prefix=UPPER_case"]) == 1
    out = capsys.readouterr().out
    assert "FAILED module_rendered_template_lints_clean" in out
    assert "ModuleBucket/Properties/BucketName" in out
    # The official tool's schema.json (after `cfn validate`) is not a failure: build derives it.
    from rpdk.core.fragment.generator import TemplateFragment

    TemplateFragment("Acme::Store::Bucket::MODULE", root).generate_schema()
    assert main(["test", str(root), "--param", "Prefix=acme"]) == 0
    assert "SKIPPED module_schema_up_to_date" in capsys.readouterr().out
    # No value for Prefix: the test takes a stand-in and says so; render refuses (exit 2).
    assert main(["test", str(root)]) == 0
    assert "no value given for Prefix" in capsys.readouterr().err
    assert main(["module", "render", str(root)]) == 2
    assert "--param Prefix=VALUE" in capsys.readouterr().err


def test_ssm_parameters_stay_parameters_of_the_consumer() -> None:
    """CloudFormation resolves a Systems Manager path at deploy time: it is not the value."""
    fragment = (
        "Parameters:\n  Ami:\n    Type: AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>\n"
        "    Default: /aws/service/ami\nResources:\n  Host:\n    Type: AWS::EC2::Instance\n"
        "    Properties:\n      ImageId: !Ref Ami\n"
    )
    template = render(plain(decode(fragment).template), logical_id="Box").template
    assert template["Parameters"] == {
        "BoxAmi": {
            "Type": "AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>",
            "Default": "/aws/service/ami",
        }
    }
    assert at(template, "/Resources/BoxHost/Properties/ImageId") == {"Ref": "BoxAmi"}


MALFORMED = {
    "a-list": "- a\n- b\n",
    "empty": "",
    "resource-a-string": "Resources:\n  A: hello\n",
    "parameters-a-list": "Parameters: [1]\nResources:\n  A: {Type: AWS::SNS::Topic}\n",
    "type-a-list": "Resources:\n  A: {Type: [x]}\n",
    "sections-of-the-wrong-kind": "Mappings: 5\nConditions: []\nResources:\n"
    "  A: {Type: AWS::SNS::Topic, Condition: Nope}\n",
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_fragment_fails_and_never_crashes(tmp_path: Path, name: str) -> None:
    root = project(tmp_path / "m", "Acme::Bad::Shape::MODULE", MALFORMED[name])
    assert main(["validate", str(root)]) == 1
    assert main(["module", "render", str(root)]) in (0, 1)  # never 70, a crash
    assert main(["test", str(root)]) == 1


OUTPUTS = """\
Parameters:
  Env: {Type: String, Default: dev}
Conditions:
  IsProd: !Equals [!Ref Env, prod]
Resources:
  Topic:
    Type: AWS::SNS::Topic
Outputs:
  Plain:
    Value: !Ref Topic
  Described:
    Description: The topic's ARN
    Value: !Ref Topic
  Conditional:
    Condition: IsProd
    Value: !GetAtt Topic.TopicName
  Both:
    Description: !Sub "the topic of ${Env}"
    Condition: IsProd
    Value: !Ref Topic
"""
#: Each output of the consumer template, as CloudFormation expands the module as `Store`.
OUTPUT_TABLE = {
    "Plain": {"Value": {"Ref": "StoreTopic"}},
    "Described": {"Description": "The topic's ARN", "Value": {"Ref": "StoreTopic"}},
    "Conditional": {
        "Value": {"Fn::GetAtt": ["StoreTopic", "TopicName"]},
        "Condition": "StoreIsProd",
    },
    "Both": {
        "Description": "the topic of dev",
        "Value": {"Ref": "StoreTopic"},
        "Condition": "StoreIsProd",
    },
}


@pytest.mark.parametrize("name", list(OUTPUT_TABLE))
def test_outputs_keep_their_description_and_condition(name: str) -> None:
    template = render(plain(decode(OUTPUTS).template), logical_id="Store").template
    assert template["Outputs"][f"Store{name}"] == OUTPUT_TABLE[name]


CYCLES = {
    "two": (
        "A: !And [!Condition B, !Equals [a, a]]\n  B: !Or [!Condition A, !Equals [b, b]]\n",
        "A -> B -> A",
    ),
    "self": ("A: !Not [!Condition A]\n", "A -> A"),
    "three-behind-a-clean-one": (
        "Clean: !Equals [x, x]\n  A: !Not [!Condition B]\n  B: !Not [!Condition C]\n"
        "  C: !And [!Condition Clean, !Condition A]\n",
        "A -> B -> C -> A",
    ),
    "a-string-equal-to-a-name": (
        "A: !Equals [B, x]\n  B: !Not [!Condition A]\n",
        None,  # the text "B" names no condition: not a circle
    ),
}


def cycle_fragment(conditions: str) -> str:
    return (
        f"Conditions:\n  {conditions}Resources:\n  Topic:\n    Type: AWS::SNS::Topic\n"
        "    Condition: A\n"
    )


@pytest.mark.parametrize("name", list(CYCLES))
def test_circular_conditions_are_an_error_naming_the_circle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    conditions, circle = CYCLES[name]
    root = project(tmp_path / "m", "Acme::Store::Cycle::MODULE", cycle_fragment(conditions))
    code = main(["module", "render", str(root)])
    captured = capsys.readouterr()
    if circle is None:
        assert code == 0, captured.err
        return
    assert code == 1, captured.out + captured.err
    assert f"conditions {circle} refer to each other in a circle" in captured.err
    assert main(["validate", str(root)]) == 1
    assert f"conditions {circle}" in capsys.readouterr().out


def test_a_nested_modules_circular_conditions_stop_the_render(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inner = cycle_fragment(CYCLES["two"][0])
    project(tmp_path / "inner", "Acme::Store::Inner::MODULE", inner)
    outer = project(
        tmp_path / "outer",
        "Acme::Store::Outer::MODULE",
        "Resources:\n  Inner:\n    Type: Acme::Store::Inner::MODULE\n",
    )
    assert main(["module", "render", str(outer)]) == 1
    err = capsys.readouterr().err
    assert "Acme::Store::Inner::MODULE: conditions A -> B -> A" in err
