"""Templates that are the project but not what CloudFormation or a file reader expects: a custom
type name CloudFormation refuses is still the project, and validate names the limit; a template
that is a named pipe is one message, exit 2, and never a wait (it read "not a project folder",
or "no such file", for both)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.test_cr_protocol import RAW, TEMPLATE


def project(root: Path, type_name: str = "Custom::Thing") -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(RAW)
    (root / "template.yaml").write_text(
        TEMPLATE.format(timeout=3).replace("Custom::Thing", type_name)
    )
    return root


#: Type names CloudFormation refuses, and what validate must say of each.
REFUSED = {
    "61 characters": (
        "Custom::" + "A" * 61,
        "61 characters after Custom::; CloudFormation takes at most 60",
    ),
    "200 characters": ("Custom::" + "Ab" * 100, "200 characters after Custom::"),
    "a dot": ("Custom::My.Thing", "letters, digits, _, @ or -"),
}


@pytest.mark.parametrize("case", REFUSED)
def test_a_type_name_cloudformation_refuses_is_still_the_project_and_validate_says_why(
    cli, tmp_path, case
):
    type_name, words = REFUSED[case]
    root = project(tmp_path, type_name)
    validated = cli("validate", root)
    assert validated.exit_code == 1, validated.stdout + validated.stderr
    (error,) = [line for line in validated.stdout.splitlines() if ": error: " in line]
    assert "/Resources/Thing/Type" in error and words in error, error
    tested = cli("test", root, "-k", "cr_create and not failed")
    assert tested.exit_code == 0, tested.stdout + tested.stderr
    assert "is not a name CloudFormation accepts" in tested.stderr
    assert cli("generate", root).exit_code == 0


@pytest.fixture
def fifo_project(tmp_path) -> Path:
    root = project(tmp_path / "p")
    os.mkfifo(root / "pipe.yaml")
    return root


#: Commands meeting a template that is a named pipe: (args, relative to the project's folder).
WAYS = {
    "test, template.yaml a pipe": ("test", "{root}"),
    "validate, template.yaml a pipe": ("validate", "{root}"),
    "generate, template.yaml a pipe": ("generate", "{root}"),
    "test --template": ("test", "--template", "{root}/pipe.yaml"),
    "test PROJECT": ("test", "{root}/pipe.yaml"),
    "invoke --template": ("invoke", "Create", "--template", "{root}/pipe.yaml"),
}


@pytest.mark.parametrize("way", WAYS)
def test_a_template_that_is_a_named_pipe_is_one_message_and_exit_2(cli, fifo_project, way):
    root = fifo_project
    args = [arg.format(root=root) for arg in WAYS[way]]
    if "template.yaml a pipe" in way:
        (root / "template.yaml").unlink()
        os.mkfifo(root / "template.yaml")
        shown = "template.yaml"
    else:
        shown = "pipe.yaml"
    result = cli(*args)  # a blocking open would hang here: the test run's timeout catches it
    assert result.exit_code == 2, result.stdout + result.stderr
    assert f"{shown}: is a named pipe (FIFO), not a file" in result.stderr, result.stderr
    assert "not a project folder" not in result.stderr
    assert result.stderr.count("cfngen: error:") == 1
