"""Golden module projects: `cfngen init --artifact-type module` (which runs generate) and
`cfngen generate` in a project the official `cfn init` made; file set first, then each file.
Refresh them (with every other snapshot) with:

    CFNGEN_UPDATE_SNAPSHOTS=1 python -m pytest -m snapshot
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cfngen._cli import main
from tests.conftest import compare_tree

REPO = Path(__file__).resolve().parent.parent
SNAPSHOTS = REPO / "snapshots"
TYPE_NAME = "Acme::Storage::Bucket::MODULE"
STACK = """\
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Parameters:
  Env: {Type: String, Default: dev, AllowedValues: [dev, prod]}
Resources:
  Topic:
    Type: AWS::SNS::Topic
    Properties:
      TopicName: !Sub "${Env}-topic"
      KmsMasterKeyId: !ImportValue shared-kms-key
Outputs:
  TopicArn:
    Value: !Ref Topic
    Export: {Name: topic-arn}
"""

INIT_CASES = {
    "module-yaml": ["-t", TYPE_NAME],
    "module-json": ["-t", TYPE_NAME, "--fragment-format", "json"],
    "module-from-template": ["-t", TYPE_NAME, "--from-template", "{stack}", "--drop-forbidden"],
}


def files_of(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CFNGEN_HOME", raising=False)
    return home


@pytest.mark.snapshot
@pytest.mark.parametrize("case", sorted(INIT_CASES))
def test_init_snapshot(home: Path, tmp_path: Path, case: str) -> None:
    stack = tmp_path / "stack.yaml"
    stack.write_text(STACK)
    args = [a.format(stack=stack) for a in INIT_CASES[case]]
    dest = tmp_path / "project"
    assert (
        main(["init", "--no-input", "--no-git", "--artifact-type", "module", *args, str(dest)]) == 0
    )
    compare_tree(f"init/{case}", files_of(dest))


@pytest.mark.snapshot
def test_generate_in_an_official_project(tmp_path: Path) -> None:
    """A project as `cfn init` makes it for a module, with the schema `cfn validate` wrote."""
    import rpdk.core
    from rpdk.core.fragment.generator import TemplateFragment

    root = tmp_path / "official"
    (root / "fragments").mkdir(parents=True)
    config = {"artifact_type": "MODULE", "typeName": TYPE_NAME, "settings": {}}
    (root / ".rpdk-config").write_text(json.dumps(config, indent=4) + "\n")
    sample = Path(rpdk.core.__file__).parent / "data/examples/module/sample.json"
    shutil.copy(sample, root / "fragments" / "sample.json")
    TemplateFragment(TYPE_NAME, root).generate_schema()
    assert main(["generate", str(root)]) == 0
    compare_tree("generate/module-official", files_of(root))
