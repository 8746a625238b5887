"""Parameter values for a custom resource's template (`--param NAME=VALUE`, `--params FILE`), as
for a module's: the properties CloudFormation would send are resolved from them. A `--params`
YAML file is read as templates are, so short-form intrinsics (`!Sub`, `!Ref`) are values too,
for both kinds."""

from __future__ import annotations

import json
from pathlib import Path

from cfngen._kinds.module import EXAMPLE_FRAGMENT


def test_a_module_reads_the_same_params_file(tmp_path: Path, cli) -> None:
    """One reader for `--params` files: a module's render takes short forms too."""
    root = tmp_path / "m"
    (root / "fragments").mkdir(parents=True)
    (root / ".rpdk-config").write_text(
        json.dumps({"artifact_type": "MODULE", "typeName": "Acme::Aa::Bb::MODULE"})
    )
    (root / "fragments" / "module.yaml").write_text(EXAMPLE_FRAGMENT.read_text())
    (tmp_path / "params.yaml").write_text('BucketName: !Sub "${AWS::StackName}-logs"\n')
    result = cli("module", "render", root, "--params", tmp_path / "params.yaml", "--format", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    bucket = json.loads(result.stdout)["Resources"]["ModuleBucket"]["Properties"]
    assert bucket["BucketName"] == {"Fn::Sub": "${AWS::StackName}-logs"}
