"""`cfngen generate` in a custom resource project: the protocol helper beside each handler that
imports it, typed property models when there is a properties schema, nothing for a SAM project
that does not use the helper."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cfngen._generate import generate_project
from cfngen._support import package_files

TEMPLATE = """\
Transform: AWS::Serverless-2016-10-31
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: code/
      Handler: main.handler
      Runtime: python3.9
  Thing:
    Type: Custom::Thing
    Properties:
      ServiceToken: !GetAtt Fn.Arn
"""
SCHEMA = {
    "type": "object",
    "properties": {
        "Count": {"type": "integer"},
        "Enabled": {"type": "boolean"},
        "Tags": {"type": "array", "items": {"type": "string"}},
    },
}


def project(root: Path, code: str, schema: dict | None = None) -> Path:
    (root / "code").mkdir(parents=True)
    (root / "code" / "main.py").write_text(code)
    (root / "template.yaml").write_text(TEMPLATE)
    if schema is not None:
        (root / "properties-schema.json").write_text(json.dumps(schema))
    return root


def test_a_sam_project_without_the_helper_gets_nothing(tmp_path):
    root = project(tmp_path, "import cfnresponse\n", SCHEMA)
    result = generate_project(root)
    assert result.written == []
    assert sorted(p.name for p in (root / "code").iterdir()) == ["main.py"]
    assert not (root / ".rpdk-config").exists()


def test_typed_properties_turn_cloudformation_strings_into_the_schema_types(tmp_path):
    root = project(tmp_path, "from cfngen_custom_resource import CustomResource\n", SCHEMA)
    result = generate_project(root)
    written = sorted(str(p) for p in result.written)
    assert written == sorted(
        [
            "code/cfngen_custom_resource.py",
            # The runtime library the models import, as a package beside them.
            *(f"code/{path}" for path in package_files()),
            "code/properties_model.py",
        ]
    )
    model = (root / "code" / "properties_model.py").read_text()
    assert "Optional[" in model  # python3.9: the 3.9 spelling
    probe = (
        "import json, properties_model\n"
        "p = properties_model.Properties._deserialize("
        "{'Count': '5', 'Enabled': 'true', 'Tags': ['a'], 'ServiceToken': 'arn'})\n"
        "print(json.dumps([p.Count, p.Enabled, p.Tags]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=root / "code",
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [5, True, ["a"]]
    # Nothing changed: nothing is written again.
    assert generate_project(root).up_to_date
