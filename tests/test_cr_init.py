"""`cfngen init --artifact-type custom-resource`: golden projects (file set first, then each
file), and what the judge checks of them: no `.rpdk-config`, the template passes cfn-lint and
aws-sam-translator, validate is clean, and the example passes `cfngen test` offline. Refresh the
goldens (with every other snapshot) with:

    CFNGEN_UPDATE_SNAPSHOTS=1 python -m pytest -m snapshot
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from cfngen._cli import main
from tests.test_init_support import project_files

CASES = {
    "custom-resource": ["--artifact-type", "custom-resource"],
    "custom-resource-example": ["--artifact-type", "custom-resource", "--example"],
}


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CFNGEN_HOME", raising=False)
    return home


def make(dest: Path, args: list[str]) -> dict[str, bytes]:
    assert main(["init", "--no-input", "--no-git", *args, str(dest)]) == 0
    return project_files(dest)


@pytest.mark.snapshot
@pytest.mark.parametrize("case", CASES)
def test_init_snapshot(home, tmp_path, case, golden):
    golden(f"init/{case}", make(tmp_path / "project", CASES[case]))


@pytest.mark.parametrize("case", CASES)
def test_the_project_is_sam_not_an_official_kind(home, tmp_path, case):
    root = tmp_path / "p"
    files = make(root, CASES[case])
    assert ".rpdk-config" not in files
    assert "src/cfngen_custom_resource.py" in files  # derived: the helper beside the handler
    assert main(["validate", str(root)]) == 0
    import cfnlint.api
    from samtranslator.translator.transform import transform

    text = (root / "template.yaml").read_text()
    found = cfnlint.api.lint(text, config=cfnlint.api.ManualArgs(regions=["us-east-1"]))
    assert not found, [str(m) for m in found]

    class NoManagedPolicies:
        def load(self) -> dict:
            return {}

    # As `sam package` leaves it: the local CodeUri uploaded to S3.
    document = yaml.safe_load(text)
    for resource in document["Resources"].values():
        if resource["Type"] == "AWS::Serverless::Function":
            resource["Properties"]["CodeUri"] = "s3://bucket/code.zip"
    translated = transform(document, {}, NoManagedPolicies())
    types = {r["Type"] for r in translated["Resources"].values()}
    assert "AWS::Lambda::Function" in types
    custom = [r for r in translated["Resources"].values() if r["Type"].startswith("Custom::")]
    assert len(custom) == 1 and "ServiceTimeout" in custom[0]["Properties"]


def test_the_example_passes_cfngen_test_offline(home, tmp_path, capsys):
    root = tmp_path / "p"
    make(root, CASES["custom-resource-example"])
    capsys.readouterr()
    assert main(["test", str(root), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["failed"] == 0 and report["skipped"] == 0
    assert report["passed"] == 11


def test_without_a_schema_the_starter_inputs_still_make_it_fail(home, tmp_path, capsys):
    root = tmp_path / "p"
    files = make(root, [*CASES["custom-resource"], "--no-properties-schema"])
    assert "properties-schema.json" not in files
    assert "src/properties_model.py" not in files
    capsys.readouterr()
    assert main(["test", str(root), "--format", "json", "-k", "failed_rollback"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["passed"], report["skipped"]) == (2, 0)
