"""`cfngen init --artifact-type module`: what it refuses, and that the official toolchain
(`cfn validate`, `cfn submit --dry-run`) accepts the project it makes."""

from __future__ import annotations

import os
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from cfngen._cli import main


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CFNGEN_HOME", raising=False)
    return home


def init(*args: str) -> int:
    return main(["init", "--no-input", "--no-git", "--artifact-type", "module", *args])


@pytest.mark.parametrize(
    "case",
    [
        ("module", "Acme::Storage::Bucket", 2, "ends in ::MODULE"),
        ("MODULE", "AWS::Storage::Bucket::MODULE", 2, "reserved"),
        ("Module", "Acme::S::Bucket::MODULE", 2, "2-64 letters or digits"),
        ("MODULE", "Acme::Storage::Bucket::MODULE", 0, "Created Acme::Storage::Bucket::MODULE"),
    ],
)
def test_type_names_and_spellings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: tuple[str, str, int, str]
) -> None:
    spelling, type_name, code, words = case
    args = ["--no-input", "--no-git", "--artifact-type", spelling, "-t", type_name]
    assert main(["init", *args, str(tmp_path / "p")]) == code
    captured = capsys.readouterr()
    assert words in captured.out + captured.err


def test_from_template_lists_what_a_module_cannot_contain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = tmp_path / "stack.yaml"
    stack.write_text(
        "Resources:\n"
        "  Nested:\n    Type: AWS::CloudFormation::Stack\n"
        "    Properties: {TemplateURL: https://example.com/t.yaml}\n"
        "  Topic:\n    Type: AWS::SNS::Topic\n"
        "    Properties: {TopicName: !ImportValue shared-name}\n"
    )
    dest = tmp_path / "p"
    assert init("-t", "Acme::Svc::Topic::MODULE", "--from-template", str(stack), str(dest)) == 1
    err = capsys.readouterr().err
    assert f"{stack}:3:11: resource Nested: a module cannot contain a nested stack" in err
    assert f"{stack}:7:29: Fn::ImportValue" in err
    assert "--drop-forbidden" in err
    assert not dest.exists()


def test_from_something_that_is_no_template_is_a_usage_error(tmp_path: Path) -> None:
    listed = tmp_path / "list.yaml"
    listed.write_text("- a\n")
    args = ["-t", "Acme::Svc::Topic::MODULE", "--from-template", str(listed), "--drop-forbidden"]
    assert init(*args, str(tmp_path / "p")) == 2


def test_drop_forbidden_needs_a_template(tmp_path: Path) -> None:
    assert init("-t", "Acme::Svc::Topic::MODULE", "--drop-forbidden", str(tmp_path / "p")) == 2


@pytest.mark.oracle  # the official CLI (cloudformation-cli's `cfn submit`) is the judge
@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_the_official_tool_accepts_the_project(
    tmp_path: Path, fmt: str, oracle_tool: Callable[[str], str]
) -> None:
    cfn = oracle_tool("cfn")
    dest = tmp_path / "p"
    assert init("-t", "Acme::Storage::Bucket::MODULE", "--fragment-format", fmt, str(dest)) == 0
    env = {**os.environ, "AWS_DEFAULT_REGION": "us-east-1"}
    # `cfn submit --dry-run` runs everything `cfn validate` does (it loads and checks the
    # fragment, writing schema.json), then packages.
    result = subprocess.run(
        [cfn, "submit", "--dry-run"], cwd=dest, env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Module fragment is valid" in result.stdout + result.stderr
    package = dest / "acme-storage-bucket-module.zip"
    with zipfile.ZipFile(package) as archive:
        official = sorted(archive.namelist())
    assert official == [".rpdk-config", f"fragments/module.{fmt}", "schema.json"]
    # `cfngen build` makes the same file set, under the same name.
    package.unlink()
    assert main(["build", str(dest)]) == 0
    with zipfile.ZipFile(package) as archive:
        assert sorted(archive.namelist()) == official
        assert archive.read(".rpdk-config") == (dest / ".rpdk-config").read_bytes()
