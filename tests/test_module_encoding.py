"""A fragment that is not UTF-8: one message, at the byte, from every command that reads it, and
nothing written. `cfngen validate` reports it as a finding (exit 1, as for any file it checks);
every other command stops with exit 2 before it writes anything. Before, `module render` and
`test` crashed (exit 70), `generate` wrote schema.json and docs with U+FFFD in place of the byte
(exit 0, after which `generate --check` said up to date), and validate and build called the YAML
fragment "invalid JSON".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

TYPE_NAME = "Acme::Enc::Thing::MODULE"
YAML_FRAGMENT = """\
Parameters:
  Name:
    Type: String
    Default: shelf
    Description: CAFE
Resources:
  Topic:
    Type: AWS::SNS::Topic
    Properties:
      TopicName: !Ref Name
"""
JSON_FRAGMENT = json.dumps(
    {
        "Parameters": {"Name": {"Type": "String", "Default": "shelf", "Description": "CAFE"}},
        "Resources": {
            "Topic": {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": {"Ref": "Name"}}}
        },
    },
    indent=2,
)
#: Latin-1's é where UTF-8 needs two bytes.
BAD = b"CAF\xe9"


@pytest.fixture(autouse=True)
def _no_report_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CFNGEN_NO_CACHE", "1")


def module(root: Path, type_name: str, text: str, name: str) -> Path:
    (root / "fragments").mkdir(parents=True)
    config = {"artifact_type": "MODULE", "typeName": type_name, "settings": {}}
    (root / ".rpdk-config").write_text(json.dumps(config, indent=4) + "\n")
    (root / "fragments" / name).write_text(text)
    return root


def spoil(path: Path) -> tuple[int, int]:
    """Put a byte that is not UTF-8 where CAFE is; its (line, column)."""
    raw = path.read_bytes()
    at = raw.index(b"CAFE") + len(b"CAF")
    path.write_bytes(raw.replace(b"CAFE", BAD))
    return raw.count(b"\n", 0, at) + 1, at - raw.rfind(b"\n", 0, at)


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


COMMANDS = {
    "validate": (["validate"], 1),
    "generate": (["generate"], 2),
    "generate --check": (["generate", "--check"], 2),
    "generate --force": (["generate", "--force"], 2),
    "module render": (["module", "render"], 2),
    "test": (["test"], 2),
    "build": (["build"], 2),
}
FORMATS = {"yaml": ("module.yaml", YAML_FRAGMENT), "json": ("module.json", JSON_FRAGMENT)}


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_fragment_that_is_not_utf8_is_one_message_and_nothing_is_written(
    tmp_path: Path, command: str, fmt: str
) -> None:
    name, text = FORMATS[fmt]
    root = module(tmp_path / "m", TYPE_NAME, text, name)
    assert run_cli("generate", root).exit_code == 0
    line, column = spoil(root / "fragments" / name)
    before = files(root)
    args, exit_code = COMMANDS[command]
    ran = run_cli(*args, cwd=root)
    output = ran.stdout + ran.stderr
    assert ran.exit_code == exit_code, output
    assert output.count("the fragment is not UTF-8 (byte 0xe9)") == 1, output
    assert f"{name}:{line}:{column}:" in output, output
    for wrong in ("invalid JSON", "internal error", "Traceback", "schema is invalid"):
        assert wrong not in output, output
    assert files(root) == before


@pytest.mark.parametrize("command", ["module render", "test"])
def test_a_nested_modules_fragment_that_is_not_utf8_is_named(tmp_path: Path, command: str) -> None:
    inner = module(tmp_path / "inner", "Acme::Enc::Inner::MODULE", YAML_FRAGMENT, "inner.yaml")
    line, column = spoil(inner / "fragments" / "inner.yaml")
    outer = module(
        tmp_path / "outer",
        TYPE_NAME,
        "Resources:\n  Shelf:\n    Type: Acme::Enc::Inner::MODULE\n",
        "module.yaml",
    )
    before = files(tmp_path)
    args, exit_code = COMMANDS[command]
    ran = run_cli(*args, outer)
    output = ran.stdout + ran.stderr
    assert ran.exit_code == exit_code, output
    assert f"inner.yaml:{line}:{column}: the fragment is not UTF-8 (byte 0xe9)" in output, output
    assert files(tmp_path) == before
