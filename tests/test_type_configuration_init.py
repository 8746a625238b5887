"""The type configuration beyond the contract run: `cfngen init --example --type-configuration`
makes a type whose handler reads it and whose `cfngen test` passes offline with no flags; the
stubs show how to read it; `build` keeps `.rpdk-config` contractSettings as written, references
unresolved; `submit --configure` reads the same file format per kind as `--typeconfig`."""

from __future__ import annotations

import json
import shutil
import zipfile

import pytest

from cfngen._errors import CfngenError
from tests.conftest import run_cli
from tests.test_type_configuration import CONFIG, ENVELOPE, write_project


@pytest.fixture
def example(made_project, tmp_path):
    made = made_project("tc-example", "--example", "--type-configuration")
    root = tmp_path / "example"
    shutil.copytree(made, root)
    return root


def test_the_example_with_a_type_configuration_passes_with_no_flags(example):
    """The code before refused `--example --type-configuration` (the example fixed it to no)."""
    result = run_cli("test", example, "--format", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    outcomes = {t["name"]: t["outcome"] for t in json.loads(result.stdout)["tests"]}
    assert outcomes["contract_handles_missing_type_configuration"] == "passed"
    assert set(outcomes.values()) == {"passed"}, outcomes
    assert "contractSettings.typeConfiguration.configuration" in result.stderr


@pytest.mark.parametrize(
    ("configuration", "tier"),
    [({"Tier": "Advanced"}, "Advanced"), (None, "Standard"), ({}, "Standard")],
)
def test_the_examples_create_handler_reads_the_configuration(
    example, tmp_path, configuration, tier
):
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"desiredResourceState": {"Name": "p1", "Value": "v"}}))
    config = json.loads((example / ".rpdk-config").read_text())
    del config["contractSettings"]  # the configuration is the flag's, or none
    (example / ".rpdk-config").write_text(json.dumps(config))
    args: list[object] = ["invoke", "CREATE", request, "--project", example]
    if configuration is not None:
        (tmp_path / "config.json").write_text(json.dumps(configuration))
        args += ["--typeconfig", tmp_path / "config.json"]
    result = run_cli(*args)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert f"creating parameter p1 in the {tier} tier" in result.stdout


def test_a_configuration_outside_the_examples_schema_is_refused(example, tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"Tier": "Premium"}))
    result = run_cli("test", example, "--typeconfig", tmp_path / "config.json")
    assert result.exit_code == 2
    assert "/Tier: " in result.stderr


def test_the_stubs_show_how_to_read_the_configuration_and_its_absence(made_project):
    root = made_project("tc-stubs", "--type-name", "Acme::Svc::Widget", "--type-configuration")
    handlers = (root / "src" / "acme_svc_widget" / "handlers.py").read_text()
    assert "request.typeConfiguration" in handlers
    assert "None when the account never called SetTypeConfiguration" in handlers
    models = (root / "src" / "acme_svc_widget" / "models.py").read_text()
    assert "class TypeConfigurationModel" in models
    assert "None when it never called it" in models


# --------------------------------------------------------------------------- build, submit

SETTINGS = {
    "typeConfiguration": {"configuration": CONFIG, "configurationAlias": "default"},
}


@pytest.mark.parametrize("kind", ["resource", "hook"])
def test_build_keeps_contract_settings_and_their_references_unresolved(tmp_path, monkeypatch, kind):
    from cfngen._package import build_package

    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "home"))
    root = write_project(tmp_path / "p", kind, settings=SETTINGS)
    (root / "requirements.txt").write_text("")
    written = (root / ".rpdk-config").read_bytes()
    built = build_package(root, pip_options=["--no-index"])
    with zipfile.ZipFile(built.path) as package:
        packed = package.read(".rpdk-config")
    assert packed == written
    assert json.loads(packed)["contractSettings"] == SETTINGS


@pytest.mark.parametrize(
    ("kind", "contents", "refused"),
    [
        ("resource", CONFIG, None),
        ("resource", ENVELOPE, "CloudFormationConfiguration"),
        (
            "hook",
            {
                "CloudFormationConfiguration": {
                    "HookConfiguration": {"FailureMode": "FAIL", "Properties": CONFIG}
                }
            },
            None,
        ),
    ],
)
def test_submit_configure_reads_the_format_typeconfig_reads(tmp_path, kind, contents, refused):
    """A file `submit --configure` takes is one `--typeconfig` takes, per kind: a resource
    type's is the properties alone, a hook's envelope given to one is refused by name."""
    from cfngen._package import prepare_configuration
    from cfngen._project import load_project

    root = write_project(tmp_path / "p", kind)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(contents))
    if refused is not None:
        with pytest.raises(CfngenError, match=refused):
            prepare_configuration(load_project(root), path)
        tested = run_cli("test", root, "--typeconfig", path)
        assert tested.exit_code == 2 and refused in tested.stderr
        return
    assert json.loads(prepare_configuration(load_project(root), path)) == contents
    tested = run_cli("test", root, "--typeconfig", path, "--ssm", "/acme/api-key=k-0123456789")
    assert tested.exit_code == 0, tested.stdout + tested.stderr
