"""CLI conventions every command keeps: `--format json` is one JSON document on stdout whatever
happens (usage errors included), options are refused before any work, `--version` names what
shapes the output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cfngen._cli import build_parser
from cfngen._errors import ExitCode


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cfngen", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
        # `template sync` writes the template cache: the test's, not the user's.
        env={**os.environ, "NO_COLOR": "1", "CFNGEN_HOME": str(cwd / "cfngen-home")},
        timeout=300,
    )


def runnable_commands() -> list[list[str]]:
    """Every command that runs something, as its words (`["runtime", "set"]`)."""
    found = []

    def walk(parser, words):
        if parser.get_default("run") is not None:
            found.append(words)
        for action in parser._actions:
            if hasattr(action, "choices") and isinstance(action.choices, dict):
                for name, child in action.choices.items():
                    walk(child, [*words, name])

    walk(build_parser(), [])
    return found


COMMANDS = runnable_commands()
#: Arguments each command needs to get past argparse (to a CfngenError).
POSITIONALS = {
    ("invoke",): ["CREATE", "missing-request.json"],
    ("runtime", "set"): ["python3.12"],
}


def test_every_command_takes_format_json():
    assert len(COMMANDS) >= 12
    for words in COMMANDS:
        parser = build_parser()
        args = parser.parse_args([*words, *POSITIONALS.get(tuple(words), []), "--format", "json"])
        assert args.format == "json", words


@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_a_usage_error_is_one_json_document(words, tmp_path):
    args = POSITIONALS.get(tuple(words), [])
    result = run_cli(*words, *args, "--no-such-option", "--format", "json", cwd=tmp_path)
    assert result.returncode == ExitCode.USAGE
    document = json.loads(result.stdout)
    assert set(document) == {"error", "exit_code"}
    assert "--no-such-option" in document["error"]["message"]
    assert document["error"]["hint"]


@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_an_error_outside_a_project_is_one_json_document(words, tmp_path):
    if words == ["init"]:
        args = ["--no-input", "--type-name", "AWS::Bad::Name", "x"]
    else:
        args = POSITIONALS.get(tuple(words), [])
    result = run_cli(*words, *args, "--format", "json", cwd=tmp_path)
    document = json.loads(result.stdout)
    if result.returncode == ExitCode.OK:  # `template sync`, `schema export` work anywhere
        assert "error" not in document
        return
    assert result.returncode == ExitCode.USAGE, result.stderr
    assert document["exit_code"] == ExitCode.USAGE
    assert document["error"]["message"]


@pytest.mark.parametrize(
    "argv",
    [
        ["test", "--region", "mars-1"],
        ["invoke", "CREATE", "r.json", "--region", "US-EAST-1"],
        ["submit", "--region", "us-east"],
        ["submit", "--endpoint-url", "localhost:5000"],
        ["invoke", "CREATE", "r.json", "--max-delay", "-1"],
        ["test", "--max-reinvoke", "-3"],
    ],
)
def test_bad_option_values_are_refused_before_any_work(argv, tmp_path):
    """Outside a project: the option is what is reported, not the missing project."""
    text = run_cli(*argv, cwd=tmp_path)
    assert text.returncode == ExitCode.USAGE
    assert "argument --" in text.stderr and "not a project" not in text.stderr
    document = json.loads(run_cli(*argv, "--format", "json", cwd=tmp_path).stdout)
    assert document["error"]["message"].startswith(f"cfngen {argv[0]}: argument --")


def test_good_regions_pass():
    parser = build_parser()
    for region in ("us-east-1", "eu-west-2", "us-gov-west-1", "cn-northwest-1", "ap-southeast-5"):
        assert parser.parse_args(["test", "--region", region]).region == region


def test_help_in_json_mode_is_still_one_document(tmp_path):
    result = run_cli("validate", "--help", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0
    document = json.loads(result.stdout)
    assert any("usage: cfngen validate" in line for line in document["output"])
