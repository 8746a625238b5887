"""`cfngen generate` inside projects made by the official `cfn init`, which must keep working
with the official toolchain (`cfn validate`, `cfn submit --dry-run`) afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cfngen._generate import generate_project
from cfngen._generate._ownership import MARKER
from tests._generate_helpers import snapshot_tree

BIN = Path(sys.executable).parent
TYPE_NAME = "Acme::Test::Widget"
PACKAGE = "acme_test_widget"

pytestmark = pytest.mark.oracle


def cfn(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "cfn"), *args], cwd=cwd, capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def cfn_init_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cfn-init")
    result = cfn("init", "-t", TYPE_NAME, "-a", "RESOURCE", "python312", "--no-docker", cwd=root)
    assert result.returncode == 0, result.stderr
    (root / "rpdk.log").unlink(missing_ok=True)
    return root


@pytest.fixture
def official(cfn_init_template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(cfn_init_template, root)
    return root


def test_takes_over_what_the_official_tool_generated(official):
    """cfn init already ran cfn generate: its models, role, docs and placeholder inputs are
    derived files the official tool itself overwrites, so cfngen replaces them."""
    handlers = official / "src" / PACKAGE / "handlers.py"
    before = handlers.read_bytes()
    result = generate_project(official)
    written = {p.as_posix() for p in result.written}
    assert {
        f"src/{PACKAGE}/models.py",
        "resource-role.yaml",
        "docs/README.md",
        "example_inputs/inputs_1_create.json",
    } <= written
    assert handlers.read_bytes() == before
    assert MARKER in (official / f"src/{PACKAGE}/models.py").read_text().splitlines()[0]


def test_the_official_sam_template_keeps_codeuri_build_and_says_why(official, capsys):
    """The official build flow packages build/; cfngen does not silently point it elsewhere."""
    from cfngen._cli import main

    template = official / "template.yml"
    before = template.read_bytes()
    assert b"CodeUri: build/" in before
    assert main(["generate", str(official)]) == 0
    assert template.read_bytes() == before
    err = capsys.readouterr().err
    [line] = [line for line in err.splitlines() if "template.yml" in line]
    assert "left template.yml alone" in line and "CodeUri: build/" in line and "cfn init" in line


def test_an_edited_official_sam_template_stays_the_users(official):
    template = official / "template.yml"
    template.write_text(template.read_text() + "      Environment:\n        Variables: {}\n")
    result = generate_project(official)
    assert [p.as_posix() for p in result.skipped] == ["template.yml"]
    assert "Environment" in template.read_text()


def test_user_written_docs_and_inputs_stay_the_users(official):
    (official / "docs" / "README.md").write_text("# Our own notes\n")
    (official / "example_inputs" / "inputs_1_create.json").write_text('{"Title": "real"}\n')
    result = generate_project(official)
    assert {p.as_posix() for p in result.skipped} == {
        "docs/README.md",
        "example_inputs/inputs_1_create.json",
        "template.yml",
    }


def set_runtime(root: Path, runtime: str, language: str) -> None:
    config = json.loads((root / ".rpdk-config").read_text())
    config["runtime"], config["language"] = runtime, language
    (root / ".rpdk-config").write_text(json.dumps(config, indent=4) + "\n")


def test_official_toolchain_accepts_python314_recorded_as_python312(official):
    """The official plugin knows python38..python312 only: a newer runtime keeps
    `"language": "python312"` and records the real runtime, which ends up in the package."""
    import zipfile

    set_runtime(official, "python3.14", "python312")
    assert cfn("validate", cwd=official).returncode == 0
    result = cfn("submit", "--dry-run", cwd=official)
    assert result.returncode == 0, result.stderr[-2000:]
    with zipfile.ZipFile(official / "acme-test-widget.zip") as package:
        config = json.loads(package.read(".rpdk-config"))
    assert (config["runtime"], config["language"]) == ("python3.14", "python312")


def test_official_toolchain_rejects_an_unknown_language(official):
    set_runtime(official, "python3.13", "python313")
    assert cfn("validate", cwd=official).returncode != 0


def call_handler(root: Path, action: str) -> dict:
    """Run the project's handlers through the library's test entrypoint, in a fresh process."""
    code = (
        "import json, sys\n"
        f"from {PACKAGE}.handlers import test_entrypoint\n"
        "event = {'credentials': {'accessKeyId': 'a', 'secretAccessKey': 'b',"
        " 'sessionToken': 'c'}, 'action': sys.argv[1], 'request': {'clientRequestToken': 't',"
        " 'desiredResourceState': {'Title': 'x', 'TestCode': 'NOT_STARTED'},"
        " 'logicalResourceIdentifier': 'L'}, 'callbackContext': None}\n"
        "print(json.dumps(test_entrypoint(event, None)))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "AWS_DEFAULT_REGION": "us-east-1"}
    out = subprocess.run(
        [sys.executable, "-c", code, action], env=env, capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_official_project_keeps_working_after_generate(official):
    """With the real renderers: handlers import and run, cfn validate and submit succeed."""
    result = generate_project(official)
    assert [p.as_posix() for p in result.skipped] == ["template.yml"]
    before = snapshot_tree(official)
    for action in ("CREATE", "READ"):
        event = call_handler(official, action)
        assert event["status"] in ("SUCCESS", "IN_PROGRESS", "FAILED"), event
        assert "Uninitialized" not in json.dumps(event)
    assert cfn("validate", cwd=official).returncode == 0
    submitted = cfn("submit", "--dry-run", cwd=official)
    assert submitted.returncode == 0, submitted.stderr[-2000:]
    # ... and generate is then a no-op that agrees with what is on disk.
    assert generate_project(official, check=True).drift == []
    after = {k: v for k, v in snapshot_tree(official).items() if k in before}
    assert after == before
