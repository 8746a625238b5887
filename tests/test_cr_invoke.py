"""`cfngen invoke {Create,Update,Delete}` for custom resources: one request to the handler,
in-process, the response CloudFormation would receive printed with the protocol checked."""

from __future__ import annotations

import json

import pytest

from cfngen._cli import main
from tests.test_cr_protocol import RAW, project


@pytest.fixture
def root(tmp_path):
    return project(tmp_path / "p", RAW)


def test_create_needs_no_request_file(root, capsys):
    assert main(["invoke", "Create", "--project", str(root)]) == 0
    out = capsys.readouterr().out
    assert '"Status": "SUCCESS"' in out
    assert '"Greeting": "Hello, world"' in out  # the template's Name


def test_properties_from_flags_and_a_failed_answer_exits_1(root, capsys):
    assert main(["invoke", "create", "--project", str(root), "--property", "Name="]) == 1
    captured = capsys.readouterr()
    assert '"Status": "FAILED"' in captured.out and "Name is required" in captured.out


def test_update_and_delete_need_the_physical_id(root, capsys):
    assert main(["invoke", "Update", "--project", str(root)]) == 2
    assert "--physical-id" in capsys.readouterr().err
    code = main(
        ["invoke", "Update", "--project", str(root), "--physical-id", "thing-1",
         "--property", "Name=new", "--old-property", "Name=old"]
    )  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert '"OldResourceProperties"' in out and '"PhysicalResourceId": "thing-1"' in out


def test_a_request_file_and_a_broken_rule_is_shown(root, tmp_path, capsys):
    (root / "src" / "app.py").write_text(RAW.replace('"RequestId": event["RequestId"],', ""))
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"ResourceProperties": {"Name": "file"}}))
    assert main(["invoke", "Create", str(request), "--project", str(root)]) == 1
    out = capsys.readouterr().out
    assert "protocol: echo: RequestId" in out and "Hello, file" in out


def test_an_unknown_request_type_is_a_usage_error(root, capsys):
    assert main(["invoke", "Read", "--project", str(root)]) == 2
    assert "Create, Update or Delete" in capsys.readouterr().err
