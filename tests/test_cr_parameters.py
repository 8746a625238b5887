"""Parameter values for a custom resource's template (`--param NAME=VALUE`, `--params FILE`), as
for a module's: the properties CloudFormation would send are resolved from them. A `--params`
YAML file is read as templates are, so short-form intrinsics (`!Sub`, `!Ref`) are values too,
for both kinds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfngen._kinds.module import EXAMPLE_FRAGMENT
from tests._cr_projects import repository

#: name -> (the files to write beside the template, the arguments, the greeting answered)
GIVEN = {
    "--param": ({}, ("--param", "Env=prod"), "prod-world"),
    "--params YAML with !Sub": (
        {"params.yaml": 'Env: !Sub "${AWS::Region}-prod"\n'},
        ("--params", "params.yaml", "--region", "eu-west-1"),
        "eu-west-1-prod-world",
    ),
    "--params YAML with !Ref": (
        {"params.yaml": "Env: !Ref AWS::AccountId\n"},
        ("--params", "params.yaml"),
        "123456789012-world",
    ),
    "--params as CloudFormation's list": (
        {"params.json": json.dumps([{"ParameterKey": "Env", "ParameterValue": "staging"}])},
        ("--params", "params.json"),
        "staging-world",
    ),
    "--param over --params": (
        {"params.yaml": "Env: from-file\n"},
        ("--params", "params.yaml", "--param", "Env=from-flag"),
        "from-flag-world",
    ),
}


@pytest.mark.parametrize("case", sorted(GIVEN))
@pytest.mark.parametrize("command", ["invoke", "test"])
def test_parameter_values_resolve_the_properties(tmp_path, cli, case, command):
    template = repository(tmp_path / "repo")
    files, args, greeting = GIVEN[case]
    for name, text in files.items():
        (template.parent / name).write_text(text)
    if command == "invoke":
        result = cli("invoke", "Create", *args, cwd=template.parent)
        assert result.exit_code == 0, result.stdout + result.stderr
        assert f'"Greeting": "Hello, {greeting}"' in result.stdout
    else:
        result = cli("test", "-k", "cr_create and not failed", *args, cwd=template.parent)
        assert result.exit_code == 0, result.stdout + result.stderr
        assert "2 passed, 0 failed" in result.stdout


#: name -> (a params file, the arguments, words of the message)
REFUSED = {
    "an undeclared parameter": (None, ("--param", "Nope=x"), "declares no parameter Nope"),
    "a params file that is not YAML": ("Env: [unclosed\n", ("--params", "p.yaml"), "p.yaml:"),
    "a params file that is no mapping": ("- just\n- a list\n", ("--params", "p.yaml"), "NAME"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_bad_parameter_values_are_a_usage_error(tmp_path, cli, case):
    template = repository(tmp_path / "repo")
    text, args, words = REFUSED[case]
    if text is not None:
        (template.parent / "p.yaml").write_text(text)
    result = cli("invoke", "Create", *args, cwd=template.parent)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert words in result.stderr
    assert result.stdout == ""


def test_a_module_reads_the_same_params_file(tmp_path: Path, cli) -> None:
    """One reader for `--params` files: a module's render takes short forms too."""
    root = tmp_path / "m"
    (root / "fragments").mkdir(parents=True)
    (root / ".rpdk-config").write_text(
        json.dumps({"artifact_type": "MODULE", "typeName": "Acme::Aa::Bb::MODULE"})
    )
    (root / "fragments" / "module.yaml").write_text(EXAMPLE_FRAGMENT.read_text())
    (tmp_path / "params.yaml").write_text('BucketName: !Sub "${AWS::StackName}-logs"\n')
    result = cli("module", "render", root, "--params", tmp_path / "params.yaml", "--format", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    bucket = json.loads(result.stdout)["Resources"]["ModuleBucket"]["Properties"]
    assert bucket["BucketName"] == {"Fn::Sub": "${AWS::StackName}-logs"}
