"""cfn-lint finds no errors in the generated resource-role.yaml and template.yml.

cfn-lint's Python API in this one process: the snapshot cases file by file, every runtime's SAM
template, and the role of every corpus schema, batched into templates.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from cfngen._kinds._shared._role import render_role
from cfngen._kinds._shared._sam import render_template
from cfngen._languages._python_runtimes import RUNTIMES
from tests._corpus import corpus

SNAPSHOTS = Path(__file__).parent.parent / "snapshots" / "generate"
CASES = sorted(p.name for p in SNAPSHOTS.iterdir() if (p / "input").is_dir())

#: cfn-lint is the judge of every test here.
pytestmark = pytest.mark.oracle


def lint_errors(text: str) -> list[str]:
    from cfnlint.api import ManualArgs, lint

    matches = lint(text, config=ManualArgs(regions=["us-east-1"]))
    return [f"{m.rule.id} line {m.linenumber}: {m.message}" for m in matches if m.rule.id[0] == "E"]


@pytest.mark.parametrize("case", CASES)
def test_snapshot_role_has_no_lint_errors(case):
    schema = json.loads((SNAPSHOTS / case / "input" / "schema.json").read_text())
    assert lint_errors(render_role(schema, schema["typeName"])) == []


def test_roles_that_deny_everything_have_no_lint_errors():
    assert lint_errors(render_role({}, "Acme::Test::Widget")) == []


@pytest.mark.parametrize("runtime", [r.name for r in RUNTIMES])
def test_sam_template_has_no_lint_errors(runtime):
    text = render_template(
        "Acme::Test::Widget",
        runtime,
        "acme_test_widget.handlers.resource",
        "acme_test_widget.handlers.test_entrypoint",
    )
    assert lint_errors(text) == []


BATCHES = 10


@pytest.mark.corpus
@pytest.mark.parametrize("batch", range(BATCHES))
def test_corpus_roles_have_no_lint_errors(batch):
    """Every corpus schema's role, one resource each, in ten templates of ~190 roles (a lint
    call costs ~0.5 s however small the template, so one template per role would take minutes).
    """
    names = list(corpus())[batch::BATCHES]
    template: dict = {"AWSTemplateFormatVersion": "2010-09-09", "Resources": {}}
    for i, name in enumerate(names):
        role = yaml.safe_load(render_role(corpus()[name], name))
        template["Resources"][f"Role{i}"] = role["Resources"]["ExecutionRole"]
    errors = lint_errors(yaml.safe_dump(template, sort_keys=False))
    assert errors == []
