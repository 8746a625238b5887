"""Hook inputs without inputs/: documents generated from the target schemas, shaped by
`overrides.json` as `cfn test` reads it (rpdk/core/contract/hook_client.py): keys
CREATE_PRE_PROVISION, UPDATE_PRE_PROVISION (else CREATE's), DELETE_PRE_PROVISION,
INVALID_<point> (else INVALID), each mapping a target to
{"resourceProperties": {pointer: value}}."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cfngen._generate import generate_project
from cfngen._kinds.hook import _inputs
from cfngen._kinds.hook._run import run_hook_tests
from tests._hook_projects import guard_project
from tests.test_hook_contract import SCHEMA

VERSIONED = {"/VersioningConfiguration": {"Status": "Enabled"}}
SUSPENDED = {"/VersioningConfiguration": {"Status": "Suspended"}}


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "cfngen-home"))


@pytest.fixture(scope="module")
def base_project(tmp_path_factory) -> Path:
    """The correct hook of tests/test_hook_contract.py (buckets must be versioned)."""
    root = guard_project(tmp_path_factory.mktemp("overrides") / "hook", inputs=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CFNGEN_HOME", str(root.parent / "home"))
        generate_project(root)
    return root


def without_inputs(base: Path, tmp_path: Path, overrides: dict | None) -> Path:
    root = tmp_path / "hook"
    shutil.copytree(base, root)
    if overrides is not None:
        (root / "overrides.json").write_text(json.dumps(overrides))
    return root


def test_overrides_make_generated_documents_compliant_and_non_compliant(base_project, tmp_path):
    overrides = {
        "CREATE_PRE_PROVISION": {"AWS::S3::Bucket": {"resourceProperties": VERSIONED}},
        "INVALID": {"AWS::S3::Bucket": {"resourceProperties": SUSPENDED}},
    }
    result = run_hook_tests(without_inputs(base_project, tmp_path, overrides))
    outcomes = {t.name: t.outcome for t in result.tests}
    failed = [t for t in result.tests if t.outcome == "failed"]
    assert not failed, failed[0].message
    # UPDATE takes CREATE's overrides when it has none of its own, as `cfn test` does; the
    # non-compliant documents come from INVALID for both points.
    for point in ("create", "update"):
        assert outcomes[f"contract_pre_{point}_success"] == "passed"
        assert outcomes[f"contract_pre_{point}_failed"] == "passed"


def test_without_overrides_no_generated_document_counts_as_non_compliant(base_project, tmp_path):
    """A random valid document is no evidence of non-compliance: the failed tests are skipped
    with the reason; the success tests run on the generated documents."""
    result = run_hook_tests(without_inputs(base_project, tmp_path, None))
    outcomes = {t.name: t for t in result.tests}
    assert outcomes["contract_pre_create_failed"].outcome == "skipped"
    assert "non-compliant" in (outcomes["contract_pre_create_failed"].message or "")
    assert outcomes["contract_pre_create_success"].outcome != "skipped"


def test_an_invalid_override_for_one_point_wins_over_the_shared_one(tmp_path):
    schema = dict(SCHEMA)
    overrides = {
        "INVALID": {"AWS::S3::Bucket": {"resourceProperties": SUSPENDED}},
        "INVALID_UPDATE_PRE_PROVISION": {
            "AWS::S3::Bucket": {"resourceProperties": {"/BucketName": "only-update"}}
        },
    }
    (tmp_path / "overrides.json").write_text(json.dumps(overrides))
    notes: list[str] = []
    made = _inputs.generated(tmp_path, schema, notes)
    create = made.non_compliant["CREATE_PRE_PROVISION"]["AWS::S3::Bucket"]
    update = made.non_compliant["UPDATE_PRE_PROVISION"]["AWS::S3::Bucket"]
    assert create["resourceProperties"]["VersioningConfiguration"] == {"Status": "Suspended"}
    assert update["resourceProperties"]["BucketName"] == "only-update"
    assert update["resourceProperties"].get("VersioningConfiguration") != {"Status": "Suspended"}
    assert not notes or all("overrides" not in n for n in notes)


def test_overrides_with_unknown_keys_are_ignored_with_a_note(tmp_path):
    (tmp_path / "overrides.json").write_text(json.dumps({"CREATE": {}}))
    notes: list[str] = []
    _inputs.generated(tmp_path, SCHEMA, notes)
    assert any("overrides.json is ignored" in n for n in notes)
