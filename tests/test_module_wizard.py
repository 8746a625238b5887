"""The real wizard's "module" choice, typed into through a pseudo-terminal."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cfngen._errors import ExitCode
from tests.test_wizard_pty import finish, spawn

pexpect = pytest.importorskip("pexpect")
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

DOWN = "\x1b[B"
CTRL_U = "\x15"


def test_the_wizard_makes_a_module(tmp_path: Path) -> None:
    child = spawn(tmp_path, "bucket")
    child.expect("What do you want to build")
    child.send(DOWN * 2 + "\r")  # resource type, hook, module
    child.expect("Type name")
    child.send("Acme::Storage::Bucket")  # refused as typed: no ::MODULE
    child.expect("ends in ::MODULE")
    child.send(CTRL_U + "Acme::Storage::Bucket::MODULE\r")
    child.expect("Fragment format")
    child.send(DOWN + "\r")  # json
    child.expect("Start from an existing template")
    child.send("\r")  # no: the starter fragment
    child.expect("Create this project")
    child.send("y")
    child.expect("Created Acme::Storage::Bucket::MODULE in bucket")
    assert finish(child) == ExitCode.OK
    root = tmp_path / "bucket"
    config = json.loads((root / ".rpdk-config").read_text())
    assert config == {
        "artifact_type": "MODULE",
        "typeName": "Acme::Storage::Bucket::MODULE",
        "settings": {},
    }
    assert json.loads((root / "fragments" / "module.json").read_text())["Resources"]
    assert (root / "schema.json").is_file()
