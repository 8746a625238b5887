"""The real `cfngen init` wizard, typed into through a pseudo-terminal (not mocked prompts)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pexpect
import pytest
import yaml

from cfngen._errors import ExitCode
from tests.test_init_support import cfngen_argv, cfngen_env, git

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

DOWN = "\x1b[B"
CTRL_U = "\x15"
CTRL_C = "\x03"


def spawn(tmp_path: Path, *args: str):
    argv = cfngen_argv()
    child = pexpect.spawn(
        argv[0],
        [*argv[1:], "init", *args],
        cwd=str(tmp_path),
        # A terminal answers cursor-position requests; pexpect does not, so do not ask.
        env=cfngen_env(tmp_path, TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1"),
        encoding="utf-8",
        dimensions=(40, 120),
        timeout=60,
    )
    # pexpect sleeps 50 ms before each send for programs that drop input typed too early;
    # prompt_toolkit queues it, and each test sends a dozen keys.
    child.delaybeforesend = None
    return child


def finish(child) -> int:
    child.expect(pexpect.EOF, timeout=180)
    child.close()
    return child.exitstatus


def test_answering_every_prompt_makes_the_project(tmp_path):
    child = spawn(tmp_path, "widget")
    child.expect("What do you want to build")
    child.expect("resource type")
    child.send("\r")
    child.expect("Start from the working example")
    child.send("n")
    child.expect("Type name")
    child.send("AWS::S3::Thing")  # refused as typed
    child.expect("reserved by AWS")
    child.send(CTRL_U + "Acme::Svc::Widget\r")
    child.expect("Python package name")
    child.expect("acme_svc_widget")  # the derived default
    child.send("\r")
    child.expect("Lambda runtime")
    child.send(DOWN + "\r")  # the second newest
    child.expect("Tags property")
    child.send("n")
    child.expect("typeConfiguration")
    child.send("y")
    child.expect("Handlers to scaffold")
    child.send(DOWN * 4 + " " + "\r")  # everything but list
    child.expect("CI workflow")
    child.send(DOWN + "\r")  # GitLab CI
    child.expect("handlers +create, read, update, delete\r")
    child.expect("Create this project")
    child.send("y")
    child.expect("Created Acme::Svc::Widget in widget")
    assert finish(child) == ExitCode.OK

    root = tmp_path / "widget"
    answers = yaml.safe_load((root / ".copier-answers.yml").read_text())
    assert answers["type_name"] == "Acme::Svc::Widget"
    assert answers["package_name"] == "acme_svc_widget"
    assert answers["runtime"] != "python3.12"
    assert answers["tagging"] is False
    assert answers["type_configuration"] is True
    assert answers["handlers"] == ["create", "read", "update", "delete"]
    assert answers["ci"] == "gitlab"
    assert (root / ".gitlab-ci.yml").is_file() and not (root / ".github").exists()
    schema = json.loads((root / "acme-svc-widget.json").read_text())
    assert sorted(schema["handlers"]) == ["create", "delete", "read", "update"]
    assert git(root, "rev-list", "--count", "HEAD").strip() == "1"


def test_flags_skip_their_prompts(tmp_path):
    child = spawn(
        tmp_path, "-t", "Acme::Svc::Widget", "--runtime", "python3.12", "--no-tags", "widget"
    )
    child.expect("What do you want to build")
    child.send("\r")
    child.expect("Start from the working example")
    child.send("\r")  # no, the default
    child.expect("Python package name")  # no type name question
    child.send(CTRL_U + "widgets\r")
    child.expect("typeConfiguration")  # no runtime or tags question
    child.send("n")
    child.expect("Handlers to scaffold")
    child.send("\r")
    child.expect("CI workflow")
    child.send("\r")
    child.expect("Create this project")
    child.send("y")
    assert finish(child) == ExitCode.OK
    assert (tmp_path / "widget" / "src" / "widgets" / "handlers.py").is_file()


def test_the_example_asks_only_what_it_can_change(tmp_path):
    child = spawn(tmp_path, "demo")
    child.expect("What do you want to build")
    child.send("\r")
    child.expect("Start from the working example")
    child.send("y")
    child.expect("Type name")
    child.expect("Example::SSM::Parameter")  # the default
    child.send("\r")
    child.expect("Python package name")
    child.expect("example_ssm_parameter")
    child.send("\r")
    child.expect("Lambda runtime")
    child.send("\r")
    # The example may have a type configuration (its create handler reads it).
    child.expect("typeConfiguration")
    child.send("y")
    child.expect("CI workflow")
    child.send("\r")
    # No tags or handler questions: the example fixes them.
    child.expect("start from +the working SSM example\r")
    child.expect("type configuration +yes\r")
    child.expect("handlers +create, read, update, delete, list\r")
    child.expect("Create this project")
    child.send("y")
    child.expect("Created Example::SSM::Parameter in demo")
    assert finish(child) == ExitCode.OK
    answers = yaml.safe_load((tmp_path / "demo" / ".copier-answers.yml").read_text())
    assert (answers["example"], answers["type_name"]) == (True, "Example::SSM::Parameter")
    assert answers["type_configuration"] is True
    schema = json.loads((tmp_path / "demo" / "example-ssm-parameter.json").read_text())
    assert "Tier" in schema["typeConfiguration"]["properties"]


def test_declining_at_the_summary_writes_nothing(tmp_path):
    child = spawn(tmp_path, "-t", "Acme::Svc::Widget", "widget")
    child.expect("What do you want to build")
    child.send("\r")
    for _ in range(7):  # example, package, runtime, tags, type configuration, handlers, CI
        child.expect(r"\? ")
        child.send("\r")
    child.expect("Create this project")
    child.send("n")
    child.expect("Nothing was created")
    assert finish(child) == ExitCode.FAILED
    assert not (tmp_path / "widget").exists()


def test_ctrl_c_leaves_nothing_behind(tmp_path):
    child = spawn(tmp_path, "widget")
    child.expect("What do you want to build")
    child.send("\r")
    child.expect("Start from the working example")
    child.send("n")
    child.expect("Type name")
    child.send("Acme::Sv" + CTRL_C)
    child.expect("interrupted")
    assert finish(child) == ExitCode.INTERRUPTED
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_the_hook_choice_asks_for_targets_with_completion(tmp_path):
    child = spawn(tmp_path, "guard")
    child.expect("What do you want to build")
    child.send(DOWN + "\r")  # the disabled module is skipped: hook
    child.expect("encrypted and versioned")  # the hook example
    child.send("n")
    child.expect("Type name")
    child.send("Acme::Guard::BucketHook\r")
    child.expect("Python package name")
    child.send("\r")
    child.expect("Lambda runtime")
    child.send("\r")
    child.expect("Target")
    child.send(CTRL_U + "AWS::S3::*?\r")  # refused as typed: the registry forbids '*?'
    child.expect("does not allow")
    child.send(CTRL_U + "AWS::SQS::Queu")
    child.expect("ePolicy")  # the menu completes from the bundled types: AWS::SQS::QueuePolicy
    child.send("e\r")
    child.expect("Another")
    child.send("STACK\r")
    child.expect("Another")
    child.send("\r")
    child.expect("Invocation points")
    child.send("\r")
    child.expect("Type configuration setting")
    child.send("CloudFormationMode\r")  # refused: a reserved name
    child.expect("invalid setting name")
    child.send(CTRL_U + "Mode\r")
    child.expect("Another")
    child.send("Limit:integer\r")
    child.expect("Another")
    child.send("\r")
    child.expect("CI workflow")
    child.send("\r")
    child.expect("Create this project")
    child.send("\r")
    assert finish(child) == ExitCode.OK
    root = tmp_path / "guard"
    config = json.loads((root / ".rpdk-config").read_text())
    assert config["artifact_type"] == "HOOK"
    schema = json.loads((root / "acme-guard-buckethook.json").read_text())
    assert schema["handlers"]["preDelete"]["targetNames"] == ["AWS::SQS::Queue", "STACK"]
    assert list(schema["typeConfiguration"]["properties"]) == ["Mode", "Limit"]
    answers = yaml.safe_load((root / ".copier-answers.yml").read_text())
    assert answers["targets"] == ["AWS::SQS::Queue", "STACK"]


CTRL_D = "\x04"


ALL_BUT_KIND = (
    "-t", "Acme::Svc::Widget", "--data", "example=false", "--runtime", "python3.12", "--tags",
    "--no-type-configuration", "--handlers", "create,read", "--ci", "none",
)  # fmt: skip


@pytest.mark.parametrize(
    ("args", "at"),
    [
        ((), "What do you want to build"),  # a select
        (("-t", "Acme::Svc::Widget"), "Python package name"),  # text, its default filled in
        ((*ALL_BUT_KIND, "--package-name", "acme_widget"), "Create this project"),  # confirm
    ],
    ids=["select", "text", "confirm"],
)
def test_ctrl_d_in_any_prompt_is_an_interrupt_and_writes_nothing(tmp_path, args, at):
    """Ctrl-D (end of input) ends the wizard like Ctrl-C: exit 130, no project, no traceback."""
    child = spawn(tmp_path, *args, "widget")
    if at != "What do you want to build":
        child.expect("What do you want to build")
        child.send("\r")
        if "example=false" not in args:
            child.expect("Start from the working example")
            child.send("n")
    child.expect(at)
    child.send(CTRL_D)
    child.expect("interrupted")
    assert finish(child) == ExitCode.INTERRUPTED
    assert "Traceback" not in (child.before or "")
    assert not (tmp_path / "widget").exists()
    assert not list(tmp_path.glob(".cfngen-init-*"))


def test_a_package_name_that_hides_a_module_is_refused_as_typed(tmp_path):
    child = spawn(tmp_path, "-t", "Acme::Svc::Widget", "widget")
    child.expect("What do you want to build")
    child.send("\r")
    child.expect("Start from the working example")
    child.send("n")
    child.expect("Python package name")
    child.send(CTRL_U + "json")
    child.expect("would hide Python's own json module")
    child.send(CTRL_U + "boto3")
    child.expect("would hide the boto3 package")
    child.send(CTRL_U + "acme_widget\r")
    child.expect("Lambda runtime")
    child.send(CTRL_C)
    assert finish(child) == ExitCode.INTERRUPTED


@pytest.mark.parametrize(
    ("kind", "folder", "proposed", "between"),
    [
        (
            "resource",
            "acme-storage-bucket",
            "Acme::Storage::Bucket",
            ["Python package name", "Lambda runtime", "Tags", "typeConfiguration", "Handlers"],
        ),
        ("custom resource", "acme-greeting", "Custom::AcmeGreeting", ["runtime", "properties"]),
        ("Lambda hook", "acme-bucket-rules", "Acme::Bucket::Rules", ["runtime"]),
    ],
    ids=["resource", "custom-resource", "lambda-hook"],
)
def test_the_type_name_offered_comes_from_the_folder_and_ci_is_asked(
    tmp_path, kind, folder, proposed, between
):
    """The wizard offered no type name (or a fixed one) and never asked about CI."""
    child = spawn(tmp_path, folder)
    child.expect("What do you want to build")
    labels = ["resource", "hook", "module", "custom resource", "Lambda hook"]
    child.send(DOWN * labels.index(kind) + "\r")
    child.expect("Start from the working example")
    child.send("n")
    child.expect("ype")
    child.expect(proposed)  # filled in: Enter takes it
    child.send("\r")
    for prompt in between:  # the defaults
        child.expect(prompt)
        child.send("\r")
    child.expect("CI workflow")
    child.send(DOWN + "\r")  # GitLab CI
    child.expect("Create this project")
    child.send("y")
    child.expect(f"Created {proposed} in {folder}")
    assert finish(child) == ExitCode.OK
    answers = yaml.safe_load((tmp_path / folder / ".copier-answers.yml").read_text())
    assert answers["ci"] == "gitlab"
    assert (tmp_path / folder / ".gitlab-ci.yml").is_file()
