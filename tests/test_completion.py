"""`cfngen completion`: the scripts, run by the shells themselves."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cfngen._cli import build_parser
from cfngen._completion import script

CASES = [
    (["cfngen", "va"], ["validate"]),
    (["cfngen", "validate", "--fo"], ["--format"]),
    (["cfngen", "validate", "--format", ""], ["text", "json", "junit", "sarif", "github"]),
    (["cfngen", "invoke", "--format", ""], ["text", "json"]),
    (["cfngen", "template", ""], ["sync"]),
    (["cfngen", "schema", "export", "--ch"], ["--check"]),
    (["cfngen", "init", "--ci", "g"], ["github", "gitlab"]),
    (["cfngen", "test", "--region", "eu-west-1", "--enf"], ["--enforce-timeout"]),
    (["cfngen", "--col"], ["--color"]),
]


def bash_complete(source: str, words: list[str]) -> list[str]:
    program = (
        f"{source}\n"
        f"COMP_WORDS=({' '.join(repr(w) for w in words)})\n"
        "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))\n"
        "COMPREPLY=()\n_cfngen_complete\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    result = subprocess.run(
        ["bash", "--norc", "-c", program], capture_output=True, text=True, check=True, timeout=30
    )
    return [line for line in result.stdout.splitlines() if line]


@pytest.mark.parametrize(("words", "expected"), CASES)
def test_bash_completes_commands_options_and_choices(words, expected):
    assert bash_complete(script("bash", build_parser()), words) == expected


def test_the_cli_prints_the_script_and_tab_runs_no_python():
    result = subprocess.run(
        [sys.executable, "-m", "cfngen", "completion", "bash"],
        capture_output=True,
        text=True,
        check=True,
    )
    body = result.stdout.split("_cfngen_complete() {", 1)[1].split("\n}\n", 1)[0]
    assert "python" not in body and "cfngen " not in body
    assert bash_complete(result.stdout, ["cfngen", "gen"]) == ["generate"]


@pytest.mark.oracle
def test_zsh_runs_the_bash_script_through_bashcompinit(oracle_tool):
    text = script("zsh", build_parser())
    assert text.startswith("#compdef cfngen\n")
    assert "bashcompinit" in text and "complete -o default -F _cfngen_complete cfngen" in text
    # zsh checks the syntax; the bash tests above run the logic.
    subprocess.run([oracle_tool("zsh"), "-n", "-c", text], check=True, timeout=30)


@pytest.mark.oracle
def test_fish_lists_every_command_and_option(oracle_tool):
    text = script("fish", build_parser())
    for name in ("validate", "generate", "test", "init", "completion", "sync", "export"):
        assert f"-a {name} " in text
    assert "-l format -xa 'text json junit sarif github'" in text
    subprocess.run([oracle_tool("fish"), "--no-execute", "-c", text], check=True, timeout=30)
