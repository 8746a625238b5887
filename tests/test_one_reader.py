"""One reader per fact: CloudFormation templates are read in one module
(cfngen/_cfn_template.py), whichever kind or command reads them."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "cfngen"
TEMPLATE_LAYER = ROOT / "_cfn_template.py"
#: Reads YAML nodes to edit a template's Runtime values in place, keeping every other byte: a
#: writer's need, not a reading of the template.
EDITORS = {ROOT / "_runtime_set.py"}


def _modules():
    for path in sorted(ROOT.rglob("*.py")):
        if "_support" not in path.parts:
            yield path, ast.parse(path.read_text())


def test_only_the_template_layer_decodes_templates_with_cfn_lint():
    found = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "cfnlint.decode":
                found.append(path)
    assert found == [TEMPLATE_LAYER]


def test_only_the_template_layer_makes_a_yaml_loader_for_templates():
    found = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "SafeLoader":
                found.append(path)
    assert set(found) - EDITORS == {TEMPLATE_LAYER}


def test_the_layer_reads_short_forms_both_ways():
    from cfngen._cfn_template import decode, plain, position, read_plain

    text = (
        "Resources:\n  B:\n    Type: AWS::S3::Bucket\n"
        "    Properties:\n      BucketName: !Ref Name\n"
    )
    decoded = decode(text)
    assert plain(decoded.template)["Resources"]["B"]["Properties"]["BucketName"] == {"Ref": "Name"}
    assert position(decoded.template["Resources"]["B"]) == (3, 5)
    assert read_plain(text)["Resources"]["B"]["Properties"]["BucketName"] == "Name"
    assert decode("Resources: [\n").errors and decode("Resources: [\n").template is None


def test_no_logic_module_is_over_400_lines():
    """Small modules: a data table (the Unicode classes) and the custom resource helper, which
    projects get as one standard-library file on purpose, are the exceptions; the rest of the
    runtime library (cfngen/_support/cfngen_runtime/) counts like any module."""
    exceptions = {
        ROOT / "_patterns" / "_unicode.py",
        ROOT / "_support" / "cfngen_runtime" / "custom_resource.py",
    }
    long = [
        path.relative_to(ROOT).as_posix()
        for path in sorted(ROOT.rglob("*.py"))
        if path not in exceptions and len(path.read_text().splitlines()) > 400
    ]
    assert long == []
