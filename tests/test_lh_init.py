"""`cfngen init --artifact-type lambda-hook`: golden projects (the starter and the example), and
what the judges check of them: no `.rpdk-config`, the template passes cfn-lint (which knows
AWS::CloudFormation::LambdaHook) and aws-sam-translator, the LambdaHook names the function the
translated template holds. Refresh the goldens (with every other snapshot) with:

    CFNGEN_UPDATE_SNAPSHOTS=1 python -m pytest -m snapshot
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from cfngen._cli import main
from tests.test_init_support import project_files

CASES = {
    "lambda-hook": ["--artifact-type", "lambda-hook"],
    "lambda-hook-example": ["--artifact-type", "lambda-hook", "--example"],
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
def test_the_template_passes_cfn_lint_and_sam(home, tmp_path, case):
    root = tmp_path / "p"
    files = make(root, CASES[case])
    assert ".rpdk-config" not in files
    import cfnlint.api
    from samtranslator.translator.transform import transform

    text = (root / "template.yaml").read_text()
    found = cfnlint.api.lint(text, config=cfnlint.api.ManualArgs(regions=["us-east-1"]))
    assert not found, [str(m) for m in found]

    class NoManagedPolicies:
        def load(self) -> dict:
            return {}

    document = yaml.safe_load(text)
    document["Resources"]["HookFunction"]["Properties"]["CodeUri"] = "s3://bucket/code.zip"
    translated = transform(document, {}, NoManagedPolicies())["Resources"]
    (hook,) = [r for r in translated.values() if r["Type"] == "AWS::CloudFormation::LambdaHook"]
    assert hook["Properties"]["LambdaFunction"] == {"Fn::GetAtt": "HookFunction.Arn"}
    assert translated["HookFunction"]["Type"] == "AWS::Lambda::Function"


def test_init_refuses_a_type_name_cloudformation_refuses(home, tmp_path, capsys):
    flags = [*CASES["lambda-hook"], "--hook-alias", "AWS::X::Y"]
    code = main(["init", "--no-input", "--no-git", *flags, str(tmp_path / "p")])
    assert code == 2
    assert "not a Lambda hook type name" in capsys.readouterr().err
    assert not (tmp_path / "p").exists()
