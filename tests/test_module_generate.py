"""`cfngen generate` and `cfngen build` for modules, against the official tool as the oracle.

- The schema cfngen writes validates against the official modules meta-schema and says at
  least what the official one says (every parameter and resource it names, each resource's
  Type), plus each parameter's type, default, allowed values and the outputs.
- The official `cfn validate` rewrites schema.json in its own form: the next generate replaces
  it without calling it a hand edit; a real hand edit still stops generate.
- An invalid fragment writes nothing (exit 1); the package is the official dry-run's file set,
  with cfngen's schema even when the file on disk is the official one.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from cfngen._cfn_template import decode, plain
from cfngen._cli import main
from cfngen._kinds.module._derive import is_official_schema, module_schema

TYPE_NAME = "Acme::Storage::Bucket::MODULE"
RICH = """\
AWSTemplateFormatVersion: 2010-09-09
Description: Every kind of parameter.
Parameters:
  Name:
    {Type: String, Description: The name, MinLength: 3, MaxLength: 63, AllowedPattern: "[a-z0-9-]+"}
  Count: {Type: Number, Default: 2, MinValue: 1, MaxValue: 9}
  Mode: {Type: String, Default: fast, AllowedValues: [fast, safe]}
  Zones: {Type: CommaDelimitedList, Default: "a,b"}
  Secret: {Type: String, NoEcho: true}
  Vpc: {Type: "AWS::EC2::VPC::Id"}
Conditions:
  Safe: !Equals [!Ref Mode, safe]
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: !Ref Name
Outputs:
  QueueArn:
    Description: The queue
    Value: !GetAtt Queue.Arn
  QueueUrl:
    Value: !Ref Queue
"""


@pytest.fixture(autouse=True)
def _no_report_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Never read or write the user's ~/.cfngen report cache."""
    monkeypatch.setenv("CFNGEN_NO_CACHE", "1")


def official_validator() -> Any:
    from rpdk.core.data_loaders import make_validator, resource_json

    schema = resource_json(
        "rpdk.core.data_loaders", "data/schema/provider.definition.schema.modules.v1.json"
    )
    return make_validator(schema)


def official_schema(root: Path) -> dict[str, Any]:
    from rpdk.core.fragment.generator import TemplateFragment

    result: dict[str, Any] = TemplateFragment(TYPE_NAME, root).generate_schema()
    return result


def project(root: Path, fragment: str, name: str = "module.yaml") -> Path:
    (root / "fragments").mkdir(parents=True)
    config = {"artifact_type": "MODULE", "typeName": TYPE_NAME, "settings": {}}
    (root / ".rpdk-config").write_text(json.dumps(config, indent=4) + "\n")
    (root / "fragments" / name).write_text(fragment)
    return root


def test_the_schema_passes_the_official_meta_schema_and_keeps_everything(tmp_path: Path) -> None:
    schema = module_schema(TYPE_NAME, plain(decode(RICH).template))
    errors = [e.message for e in official_validator().iter_errors(schema)]
    assert errors == []
    params = schema["properties"]["Parameters"]["properties"]
    assert params["Count"]["properties"]["Type"] == {"type": "string", "const": "Number"}
    assert params["Count"]["properties"]["Default"] == {"type": "number", "default": 2}
    assert params["Mode"]["properties"]["AllowedValues"]["items"]["enum"] == ["fast", "safe"]
    assert params["Name"]["properties"]["AllowedPattern"]["const"] == "[a-z0-9-]+"
    assert params["Secret"]["properties"]["NoEcho"] == {"type": "boolean", "const": True}
    outputs = schema["properties"]["Outputs"]["properties"]
    assert outputs["QueueArn"]["description"] == "The queue"
    assert sorted(outputs) == ["QueueArn", "QueueUrl"]


def test_at_least_as_informative_as_the_official_schema(tmp_path: Path) -> None:
    root = project(tmp_path / "m", RICH)
    official = official_schema(root)
    ours = module_schema(TYPE_NAME, plain(decode(RICH).template))

    def paths(node: Any, prefix: str = "") -> set[str]:
        if not isinstance(node, dict):
            return {prefix}
        found = {prefix}
        for key, value in node.items():
            found |= paths(value, f"{prefix}/{key}")
        return found

    # Every key the official schema has, ours has too (its leaf values may be richer).
    ignored = {"/description"}
    assert {p for p in paths(official) if p not in ignored} - paths(ours) == set()
    for name, resource in official["properties"]["Resources"]["properties"].items():
        ours_type = ours["properties"]["Resources"]["properties"][name]["properties"]["Type"]
        assert ours_type["const"] == resource["properties"]["Type"]["const"]


def test_the_official_rewrite_is_not_a_hand_edit(tmp_path: Path) -> None:
    root = project(tmp_path / "m", RICH)
    assert main(["generate", str(root)]) == 0
    ours = (root / "schema.json").read_bytes()
    official_schema(root)  # what `cfn validate` and `cfn submit` do to the file
    assert is_official_schema((root / "schema.json").read_bytes())
    assert main(["generate", "--check", str(root)]) == 1
    assert main(["generate", str(root)]) == 0
    assert (root / "schema.json").read_bytes() == ours
    # A real edit is the user's: generate stops and names it.
    (root / "schema.json").write_text(ours.decode().replace("The queue", "My queue"))
    assert main(["generate", str(root)]) == 1


def test_an_invalid_fragment_writes_nothing(tmp_path: Path) -> None:
    root = project(tmp_path / "m", RICH.replace("Type: AWS::SQS::Queue", "Type: AWS::SQS::Queu"))
    assert main(["generate", str(root)]) == 1
    assert sorted(p.name for p in root.iterdir()) == [".rpdk-config", "fragments"]


def test_the_package_is_the_official_file_set_with_cfngens_schema(tmp_path: Path) -> None:
    root = project(tmp_path / "m", RICH)
    official_schema(root)  # schema.json on disk is the official, poorer one
    assert main(["build", str(root)]) == 0
    [package] = root.glob("*.zip")
    assert package.name == "acme-storage-bucket-module.zip"
    with zipfile.ZipFile(package) as archive:
        assert sorted(archive.namelist()) == [
            ".rpdk-config",
            "fragments/module.yaml",
            "schema.json",
        ]
        assert all(info.compress_type == zipfile.ZIP_STORED for info in archive.infolist())
        shipped = json.loads(archive.read("schema.json"))
    assert "Outputs" in shipped["properties"]


@pytest.mark.parametrize(("fragment", "words"), [("Resources: {}\n", "Resources is empty")])
def test_build_refuses_an_invalid_fragment(
    tmp_path: Path, fragment: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path / "m", fragment)
    assert main(["build", str(root)]) == 1
    assert words in capsys.readouterr().err
    assert not list(root.glob("*.zip"))
