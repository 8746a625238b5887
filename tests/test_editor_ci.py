"""What `cfngen init` writes for editors and CI, checked by the tools that read it: the editor
settings point at exported schemas that exist, check-jsonschema (the jsonschema an editor's
language service applies) flags an invalid edit with them, and the workflows validate against
the GitHub and GitLab CI schemas check-jsonschema ships and pass `zizmor --offline`."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from jsonschema import Draft7Validator

from cfngen._cli import main
from cfngen._editor import SCHEMA_DIR, metaschemas
from tests.test_init_support import made_once

REPO = Path(__file__).resolve().parent.parent
VALID_CASES = sorted((REPO / "tests" / "validate_cases" / "valid").glob("*.json"))
BIN = Path(sys.executable).parent


def tool(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = BIN / name
    assert exe.is_file(), f"{name} is a dev dependency (pyproject.toml [dev])"
    return subprocess.run(
        [str(exe), *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=120
    )


def schema_of(root: Path) -> Path:
    type_name = json.loads((root / ".rpdk-config").read_text())["typeName"]
    return root / (type_name.replace("::", "-").lower() + ".json")


@pytest.fixture(scope="module")
def resource(tmp_path_factory) -> Path:
    return made_once(tmp_path_factory, "editor-widget", "-t", "Acme::Svc::Widget")


@pytest.fixture(scope="module")
def hook(tmp_path_factory) -> Path:
    return made_once(
        tmp_path_factory, "editor-hook", "--artifact-type", "hook", "-t", "Acme::Svc::Hook"
    )


@pytest.fixture(scope="module")
def custom(tmp_path_factory) -> Path:
    return made_once(tmp_path_factory, "plugin-custom", "--artifact-type", "custom-resource")


@pytest.fixture(scope="module")
def gitlab(tmp_path_factory) -> Path:
    return made_once(tmp_path_factory, "gitlab-widget", "--ci", "gitlab", "-t", "Acme::Svc::Widget")


# ------------------------------------------------------------------------------ editors


@pytest.mark.parametrize("which", ["resource", "hook"])
def test_editor_settings_point_at_schemas_that_exist(which, request):
    root: Path = request.getfixturevalue(which)
    schema_file = schema_of(root).name
    vscode = json.loads((root / ".vscode" / "settings.json").read_text())
    assert vscode["files.associations"] == {".rpdk-config": "json"}
    mapped = {}
    for entry in vscode["json.schemas"]:
        url = (root / entry["url"]).resolve()
        assert url.is_file(), entry["url"]
        for pattern in entry["fileMatch"]:
            assert (root / pattern.lstrip("/")).is_file(), pattern
            mapped[pattern.lstrip("/")] = url.name
    assert mapped[schema_file] == f"{which}.schema.json"

    idea = ET.parse(root / ".idea" / "jsonSchemas.xml").getroot()
    infos = idea.findall(".//SchemaInfo")
    assert infos
    for info in infos:
        options = {o.get("name"): o.get("value") for o in info.findall("option")}
        assert (root / options["relativePathToSchema"]).is_file()
        for item in info.findall(".//Item/option[@name='path']"):
            assert (root / item.get("value")).is_file()
    paths = {item.get("value") for item in idea.findall(".//Item/option[@name='path']")}
    assert schema_file in paths


@pytest.mark.oracle
@pytest.mark.parametrize("which", ["resource", "hook"])
def test_the_editor_schema_accepts_the_schema_and_flags_an_invalid_edit(which, request, tmp_path):
    root: Path = request.getfixturevalue(which)
    schema_file = schema_of(root)
    exported = root / SCHEMA_DIR / f"{which}.schema.json"
    ok = tool("check-jsonschema", "--schemafile", str(exported), str(schema_file), cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr

    schema = json.loads(schema_file.read_text())
    schema["typeName"] = "not-a-type-name"
    edited = tmp_path / schema_file.name
    edited.write_text(json.dumps(schema, indent=2))
    bad = tool("check-jsonschema", "--schemafile", str(exported), str(edited), cwd=tmp_path)
    assert bad.returncode == 1
    assert "$.typeName" in bad.stdout


def test_the_exported_resource_schema_accepts_every_valid_case():
    validator = Draft7Validator(metaschemas()["resource.schema.json"])
    for case in VALID_CASES:
        errors = list(validator.iter_errors(json.loads(case.read_text())))
        assert not errors, (case.name, errors[0].message)


def test_exported_schemas_are_plain_json_schema():
    for name, schema in metaschemas().items():
        Draft7Validator.check_schema(schema)
        assert '"x-' not in json.dumps(schema), name
        # Single-file: every reference stays inside the file (an editor offline fetches none).
        refs = re.findall(r'"\$ref": "([^"]*)"', json.dumps(schema))
        assert all(ref.startswith("#/") for ref in refs), name
    assert {"resource.schema.json", "hook.schema.json", "type-configuration.schema.json"} <= set(
        metaschemas()
    )


def test_schema_export_check_and_refresh(resource, tmp_path, capsys):
    root = tmp_path / "project"
    shutil.copytree(resource, root)
    assert main(["schema", "export", str(root), "--check"]) == 0
    target = root / SCHEMA_DIR / "hook.schema.json"
    target.write_text("{}\n")
    (root / SCHEMA_DIR / "resource.schema.json").unlink()
    assert main(["schema", "export", str(root), "--check"]) == 1
    assert target.read_text() == "{}\n"
    capsys.readouterr()
    assert main(["schema", "export", str(root), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert sorted(report["written"]) == [
        f"{SCHEMA_DIR}/hook.schema.json",
        f"{SCHEMA_DIR}/resource.schema.json",
    ]
    assert main(["schema", "export", str(root), "--check"]) == 0


# ------------------------------------------------------------------------------ CI


@pytest.mark.oracle
@pytest.mark.parametrize("which", ["resource", "hook", "custom"])
def test_the_github_workflow_validates_and_passes_zizmor(which, request):
    root: Path = request.getfixturevalue(which)
    workflow = root / ".github" / "workflows" / "cfngen.yml"
    assert not (root / ".gitlab-ci.yml").exists()
    checked = tool(
        "check-jsonschema", "--builtin-schema", "vendor.github-workflows", str(workflow), cwd=root
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    audit = tool("zizmor", "--offline", "--persona", "pedantic", str(workflow), cwd=root)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    text = workflow.read_text()
    for command in ("cfngen validate --format github", "cfngen generate --check", "cfngen test"):
        assert command in text
    assert "persist-credentials: false" in text


@pytest.mark.oracle
def test_the_gitlab_pipeline_validates(gitlab):
    pipeline = gitlab / ".gitlab-ci.yml"
    assert not (gitlab / ".github").exists()
    checked = tool(
        "check-jsonschema", "--builtin-schema", "vendor.gitlab-ci", str(pipeline), cwd=gitlab
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "junit: reports/*.xml" in pipeline.read_text()
    assert "ci: gitlab" in (gitlab / ".copier-answers.yml").read_text()


def test_an_upgraded_project_gets_the_editor_settings_and_their_schemas(
    tmp_path_factory, tmp_path, synced_home
):
    from tests.test_init_support import run_cfngen

    # The 0.1.0 project (with its commit) the upgrade tests start from, made once.
    made = made_once(
        tmp_path_factory,
        "upgrade-0.1.0",
        *("-t", "Acme::Svc::Widget", "--template-version", "0.1.0"),
        git=True,
    )
    assert not (made / ".vscode").exists()
    root = tmp_path / "upgraded"
    shutil.copytree(made, root, symlinks=True)
    result = run_cfngen("upgrade", cwd=root, home=synced_home)
    assert result.returncode == 0, result.stdout + result.stderr
    vscode = json.loads((root / ".vscode" / "settings.json").read_text())
    for entry in vscode["json.schemas"]:
        assert (root / entry["url"]).is_file(), entry["url"]
