"""cfngen_custom_resource.py, the protocol helper shipped into custom resource projects, on
every CPython a Lambda Python runtime runs (3.8 to 3.13, from pyenv; a missing one fails): the
cases of tests/fixtures/custom_resource/exercise_helper.py against a local HTTP server."""

from __future__ import annotations

import functools
import json
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.test_support_runtimes import PYTHONS, interpreter

ROOT = Path(__file__).resolve().parent.parent
EXERCISE = Path(__file__).parent / "fixtures" / "custom_resource" / "exercise_helper.py"
NEVER_MADE = "cfngen-not-created-"

pytestmark = pytest.mark.oracle  # each runtime's CPython is the judge


@functools.cache
def _helper_folder() -> Path:
    """A folder holding the helper as custom resources get it: one file."""
    from cfngen._support import HELPER_FILE, module_source

    folder = Path(tempfile.mkdtemp(prefix="cfngen-helper-"))
    (folder / HELPER_FILE).write_text(module_source("custom_resource"))
    return folder


@functools.cache
def _all_cases() -> dict[str, dict]:
    """Every interpreter at once (they run side by side: one wait instead of six)."""
    running = {
        version: subprocess.Popen(
            [str(interpreter(version)), str(EXERCISE), str(_helper_folder())],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for version in PYTHONS
    }
    out = {}
    for version, process in running.items():
        stdout, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, f"python{version}: {stderr[-3000:]}"
        out[version] = json.loads(stdout)
        assert out[version]["python"] == version
    return out


@pytest.fixture(params=PYTHONS)
def cases(request: pytest.FixtureRequest) -> dict:
    return _all_cases()[request.param]


def only(puts: list) -> dict:
    assert len(puts) == 1, f"{len(puts)} PUTs: {puts}"
    assert puts[0]["content_type"] == "", "the PUT must carry an empty Content-Type"
    return puts[0]["body"]


def test_one_answer_with_a_deterministic_id_and_string_data(cases):
    body = only(cases["create"])
    assert body["Status"] == "SUCCESS"
    assert body["Data"] == {"A": "1", "B": "true", "C": "c"}
    assert body["RequestId"] == "req-1" and body["LogicalResourceId"] == "Thing"
    # A duplicate delivery of the same request gets the same id.
    assert only(cases["create_again"])["PhysicalResourceId"] == body["PhysicalResourceId"]


def test_an_exception_is_answered_failed_and_the_rollback_delete_succeeds(cases):
    body = only(cases["raise"])
    assert body["Status"] == "FAILED"
    assert body["Reason"] == "ValueError: boom"
    assert body["PhysicalResourceId"].startswith(NEVER_MADE)
    rollback = only(cases["rollback_delete"])
    assert rollback["Status"] == "SUCCESS"
    assert rollback["PhysicalResourceId"] == body["PhysicalResourceId"]
    assert cases["rollback_delete_calls"] == [], "nothing was made: delete is not called"


def test_a_create_that_named_its_resource_fails_with_that_id(cases):
    body = only(cases["claim"])
    assert (body["Status"], body["PhysicalResourceId"]) == ("FAILED", "made-1")
    assert only(cases["claim_delete"])["Status"] == "SUCCESS"
    assert cases["claim_delete_calls"] == [["delete", "made-1"]]


def test_out_of_time_answers_failed_once_before_the_deadline(cases):
    body = only(cases["timeout"])  # the late SUCCESS is dropped
    assert body["Status"] == "FAILED"
    assert "timed out" in body["Reason"]
    assert body["PhysicalResourceId"].startswith(NEVER_MADE)


def test_a_long_reason_keeps_its_head_within_4096_bytes(cases):
    (put,) = cases["long_reason"]
    assert put["bytes"] <= 4096
    assert put["body"]["Reason"].startswith("ValueError: HEAD xxx")
    assert put["body"]["Reason"].endswith("[truncated]")


def test_oversize_data_is_refused_with_its_size(cases):
    (put,) = cases["big_data"]
    assert put["bytes"] <= 4096
    body = put["body"]
    assert body["Status"] == "FAILED" and "Data" not in body
    assert "4096" in body["Reason"] and "Data" in body["Reason"]


def test_nested_data_and_a_huge_id_are_refused(cases):
    nested = only(cases["nested_data"])
    assert nested["Status"] == "FAILED" and "flat map of strings" in nested["Reason"]
    huge = only(cases["huge_id"])
    assert huge["Status"] == "FAILED" and "1024" in huge["Reason"]
    assert len(huge["PhysicalResourceId"].encode()) <= 1024


def test_update_keeps_its_id_unless_it_replaces(cases):
    new_id = only(cases["update_new_id"])
    assert (new_id["Status"], new_id["PhysicalResourceId"]) == ("FAILED", "old-id")
    assert "replace=True" in new_id["Reason"]
    replaced = only(cases["update_replace"])
    assert (replaced["Status"], replaced["PhysicalResourceId"]) == ("SUCCESS", "other-id")
    kept = only(cases["update_keep"])
    assert (kept["Status"], kept["PhysicalResourceId"]) == ("SUCCESS", "old-id")


def test_delete_of_what_is_gone_succeeds_without_data(cases):
    body = only(cases["delete_not_found"])
    assert (body["Status"], body["PhysicalResourceId"]) == ("SUCCESS", "gone")
    assert "Data" not in body


def test_sns_wrapped_requests_are_unwrapped(cases):
    (body,) = cases["sns"]
    assert body["Status"] == "SUCCESS" and body["RequestId"] == "req-1"


def test_5xx_is_retried_and_403_is_not(cases):
    assert len(cases["retry_503"]) == 3  # 503, 503, then delivered
    assert len(cases["expired_403"]) == 1  # an expired URL cannot succeed later
