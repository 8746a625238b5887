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


def test_the_context_has_the_functions_timeout_left(root, capsys):
    (root / "src" / "app.py").write_text(
        RAW.replace(
            'data = {"Greeting": "Hello, " + properties["Name"]}',
            'data = {"Left": str(context.get_remaining_time_in_millis()), '
            '"Name": context.function_name}',
        )
    )
    assert main(["invoke", "Create", "--project", str(root)]) == 0
    out = capsys.readouterr().out
    left = int(out.split('"Left": "')[1].split('"')[0])
    assert 2_000 < left <= 3_000  # the template's Timeout: 3
    assert '"Name": "cfngen-test-Fn"' in out


def test_a_handler_that_ends_its_process_exits_1_naming_the_call(root, capsys):
    (root / "src" / "app.py").write_text(
        "import os\n\ndef handler(event, context):\n    os._exit(3)\n"
    )
    assert main(["invoke", "Create", "--project", str(root)]) == 1
    err = capsys.readouterr().err
    assert "Create did not finish" in err and "exited with status 3 during Create #1" in err


def test_a_handler_that_hangs_exits_1_at_its_timeout(tmp_path, capsys):
    root = project(
        tmp_path / "p", "def handler(event, context):\n    while True:\n        pass\n", timeout=1
    )
    assert main(["invoke", "Create", "--project", str(root)]) == 1
    captured = capsys.readouterr()
    assert "still running after 1 s" in captured.out
    assert "one-response: no response before the deadline" in captured.out


@pytest.mark.parametrize(
    "command",
    [["test", "-q"], ["invoke", "Create", "--project"], ["validate"], ["runtime", "--project"]],
    ids=["test", "invoke", "validate", "runtime"],
)
def test_a_project_named_from_its_parent_folder(root, command, monkeypatch, capsys):
    """`cfngen test p` from the folder above: the template the project was found by is
    relative to the working folder, and was joined to the project folder again
    ("p/p/template.yaml: no such template")."""
    monkeypatch.chdir(root.parent)
    assert main([*command, root.name]) == 0, capsys.readouterr().err
