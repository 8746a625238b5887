"""Golden module projects: `cfngen init --artifact-type module` (which runs generate) and
`cfngen generate` in a project the official `cfn init` made; file set first, then each file.
Refresh them all with:

    CFNGEN_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_module_snapshots.py
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
from pathlib import Path

import pytest

from cfngen._cli import main

REPO = Path(__file__).resolve().parent.parent
SNAPSHOTS = REPO / "snapshots"
REFRESH = "CFNGEN_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_module_snapshots.py"
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


def compare(name: str, actual: dict[str, bytes]) -> None:
    target = SNAPSHOTS / name
    if os.environ.get("CFNGEN_UPDATE_SNAPSHOTS"):
        shutil.rmtree(target, ignore_errors=True)
        for rel, data in actual.items():
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            (target / rel).write_bytes(data)
    assert target.is_dir(), f"no snapshot {name}; create it with:\n  {REFRESH}"
    expected = files_of(target)
    missing, extra = sorted(set(expected) - set(actual)), sorted(set(actual) - set(expected))
    assert not missing and not extra, (
        f"file set differs: missing {missing}, unexpected {extra}\n"
        f"if the change is intended, refresh with:\n  {REFRESH}"
    )
    for rel in sorted(expected):
        if actual[rel] != expected[rel]:
            diff = difflib.unified_diff(
                expected[rel].decode(errors="replace").splitlines(keepends=True),
                actual[rel].decode(errors="replace").splitlines(keepends=True),
                f"snapshots/{name}/{rel}",
                f"made/{rel}",
            )
            pytest.fail(f"{rel} differs:\n{''.join(diff)}\nrefresh with:\n  {REFRESH}")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CFNGEN_HOME", raising=False)
    return home


@pytest.mark.parametrize("case", sorted(INIT_CASES))
def test_init_snapshot(home: Path, tmp_path: Path, case: str) -> None:
    stack = tmp_path / "stack.yaml"
    stack.write_text(STACK)
    args = [a.format(stack=stack) for a in INIT_CASES[case]]
    dest = tmp_path / "project"
    assert (
        main(["init", "--no-input", "--no-git", "--artifact-type", "module", *args, str(dest)]) == 0
    )
    compare(f"init/{case}", files_of(dest))


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
    compare("generate/module-official", files_of(root))


def test_refresh_command_is_the_documented_one() -> None:
    assert REFRESH in (__doc__ or "")
