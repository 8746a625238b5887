"""A resource type made by the official `cfn init`, its models made by the official `cfn
generate`, whose create handler reads `request.typeConfiguration` with a required
`{{resolve:ssm-secure:...}}` property: `cfngen test` runs it with --typeconfig, with
`.rpdk-config` contractSettings alone and with no configuration at all, refuses a configuration
the schema refuses without calling a handler, and the official `cfn validate` and `cfn submit
--dry-run` still accept the project with contractSettings in it."""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests._official_projects import CFN, cfn_init
from tests.conftest import run_cli
from tests.test_type_configuration import (
    CONFIG,
    RESOURCE_HANDLERS,
    SECRET,
    SEED,
    calls,
    schema_of,
)

pytestmark = pytest.mark.oracle


def cfn(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CFN), *args], cwd=cwd, capture_output=True, text=True, check=False)


@pytest.fixture
def official(tmp_path_factory, tmp_path, monkeypatch) -> Path:
    root = tmp_path / "project"
    shutil.copytree(cfn_init(tmp_path_factory, "resource"), root)
    (root / "acme-test-widget.json").write_text(json.dumps(schema_of("resource"), indent=4))
    (root / "src" / "acme_test_widget" / "handlers.py").write_text(RESOURCE_HANDLERS)
    generated = cfn("generate", cwd=root)
    assert generated.returncode == 0, generated.stderr
    assert "class TypeConfigurationModel" in (root / "src/acme_test_widget/models.py").read_text()
    monkeypatch.setenv("WIDGET_SEEN", str(tmp_path / "seen.jsonl"))
    return root


def set_contract_settings(root: Path, configuration: dict) -> None:
    config = json.loads((root / ".rpdk-config").read_text())
    config["contractSettings"] = {"typeConfiguration": {"configuration": configuration}}
    (root / ".rpdk-config").write_text(json.dumps(config, indent=4) + "\n")


@pytest.mark.parametrize("source", ["flag", "contractSettings", "none"])
def test_the_official_project_passes_with_each_source(official, tmp_path, source):
    args: list[object] = ["test", official]
    if source == "flag":
        (tmp_path / "config.json").write_text(json.dumps(CONFIG))
        args += ["--typeconfig", tmp_path / "config.json", *SEED]
    elif source == "contractSettings":
        set_contract_settings(official, CONFIG)
        args += [*SEED]
    result = run_cli(*args)
    output = result.stdout + result.stderr
    assert result.exit_code == 0, output
    seen = calls(tmp_path / "seen.jsonl")
    assert {c["action"] for c in seen} == {"CREATE", "READ", "UPDATE", "DELETE", "LIST"}
    assert {c["type"] for c in seen} == {"TypeConfigurationModel"}
    keys = {c["config"]["ApiKey"] for c in seen}
    if source == "none":
        assert keys == {"cfngen-stand-in-ApiKey"}
        assert "stand-ins" in result.stderr
    else:
        assert keys == {SECRET}
        assert SECRET not in output


def test_a_configuration_the_schema_refuses_calls_no_handler(official, tmp_path):
    set_contract_settings(official, {"ApiKey": "a-plain-key"})
    result = run_cli("test", official)
    assert result.exit_code == 2
    assert "/ApiKey: " in result.stderr
    assert calls(tmp_path / "seen.jsonl") == []


def test_the_official_toolchain_accepts_contract_settings(official):
    set_contract_settings(official, CONFIG)
    assert cfn("validate", cwd=official).returncode == 0
    submitted = cfn("submit", "--dry-run", "--no-docker", cwd=official)
    assert submitted.returncode == 0, submitted.stderr[-2000:]
    with zipfile.ZipFile(official / "acme-test-widget.zip") as package:
        packed = json.loads(package.read(".rpdk-config"))
    assert packed["contractSettings"]["typeConfiguration"]["configuration"] == CONFIG
