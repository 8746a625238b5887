"""What `cfngen test` prints when many tests fail for one reason: the cause once, and the other
tests referring to it; the machine formats keep every test's whole message."""

from __future__ import annotations

import json

import pytest
from junitparser import Failure, JUnitXml

from tests.conftest import run_command
from tests.test_invoke import _answer_with, hook_example, project  # noqa: F401

#: Project, handler function, what its first line becomes, and the line the cause names.
CAUSES = [
    ("store", "create_handler", 'raise KeyError("nokey")', "raised KeyError: 'nokey'"),
    ("store", "create_handler", "return None", "returned None; it must return a ProgressEvent"),
    ("hook_example", "pre_create_handler", 'raise KeyError("nokey")', "raised KeyError: 'nokey'"),
    ("hook_example", "pre_create_handler", "return None", "returned None; it must return"),
]


@pytest.mark.parametrize(
    ("shape", "function", "body", "cause"),
    CAUSES,
    ids=["resource-raises", "resource-None", "hook-raises", "hook-None"],
)
def test_one_cause_is_told_once_and_every_format_keeps_each_message(
    request, tmp_path, *, shape, function, body, cause
):
    origin = shape if shape == "store" else request.getfixturevalue(shape)
    root = project(tmp_path, origin)
    path, def_line, body_line = _answer_with(root, function, body)
    line = body_line if body.startswith("raise") else def_line
    frame = f"{path}:{line} in {function}"

    document = json.loads(run_command("test", "--format", "json", cwd=root).stdout)
    failed = [t for t in document["tests"] if t["outcome"] == "failed"]
    assert len(failed) >= 2, document
    # JSON keeps every test's whole message.
    assert all(cause in t["message"] and frame in t["message"] for t in failed), failed

    text = run_command("test", cwd=root)
    assert text.returncode == 1, text.stdout + text.stderr
    summary = _summary(text.stdout)
    # The crash and its frame once; every other test it failed says so in a line.
    assert summary.count(frame) == 1, summary
    referring = summary.count("same cause as ") + summary.count("same failure as ")
    assert referring == len(failed) - 1, summary

    report = tmp_path / "report.xml"
    report.write_text(run_command("test", "--format", "junit", cwd=root).stdout)
    texts = [
        result.text
        for suite in JUnitXml.fromfile(str(report))
        for case in suite
        for result in case.result
        if isinstance(result, Failure)
    ]
    assert len(texts) == len(failed)
    assert all(frame in text for text in texts)


def test_tests_that_fail_alike_without_a_crash_are_told_once(tmp_path):
    """No exception, the same answer every time: each distinct message told once."""
    root = project(tmp_path, "store")
    handlers = root / "src/example_test_store/handlers.py"
    _answer_with(
        root,
        "create_handler",
        'return ProgressEvent.failed(HandlerErrorCode.ServiceLimitExceeded, "full")',
    )
    text = handlers.read_text()
    handlers.write_text(
        text.replace(
            "from cloudformation_cli_python_lib import (",
            "from cloudformation_cli_python_lib import (\n    HandlerErrorCode,",
            1,
        )
    )
    result = run_command("test", cwd=root)
    assert result.returncode == 1
    summary = _summary(result.stdout)
    document = json.loads(run_command("test", "--format", "json", cwd=root).stdout)
    messages = [t["message"] for t in document["tests"] if t["outcome"] == "failed"]
    # Each distinct explanation once (its "output:" line), a line for each repetition.
    assert summary.count("output: ") == len(set(messages)) < len(messages), summary
    repeated = len(messages) - len(set(messages))
    assert summary.count("same failure as contract_create_create (above)") == repeated


def _summary(stdout: str) -> str:
    """The text after the tests' own lines: the failures, then the counts."""
    lines = stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("FAILED ") and line[7] != " ")
    return "\n".join(lines[first:])
