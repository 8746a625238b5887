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

#: Values argparse's choices do not hold, which the README promises completion offers: kinds,
#: runtimes, template versions, and positional arguments (invoke's ACTION of every kind).
ACTIONS = [
    *("CREATE", "READ", "UPDATE", "DELETE", "LIST"),
    *("CREATE_PRE_PROVISION", "UPDATE_PRE_PROVISION", "DELETE_PRE_PROVISION"),
    *("preCreate", "preUpdate", "preDelete"),
    *("Create", "Update", "Delete"),
]
RUNTIMES = [f"python3.{minor}" for minor in range(14, 7, -1)]
#: `runtime set` also offers the Node, Go and Java runtimes of cfn-lint's table of Lambda's.
SET_RUNTIMES = [
    *RUNTIMES,
    *("nodejs24.x", "nodejs22.x", "nodejs20.x", "nodejs18.x", "nodejs16.x", "nodejs14.x"),
    *("nodejs12.x", "nodejs10.x", "provided.al2023", "provided.al2", "go1.x"),
    *("java25", "java21", "java17", "java11", "java8.al2", "java8"),
]
VALUES = [
    (
        ["cfngen", "init", "--artifact-type", ""],
        ["resource", "hook", "module", "custom-resource", "lambda-hook"],
    ),
    (["cfngen", "init", "--artifact-type", "c"], ["custom-resource"]),
    (["cfngen", "init", "--runtime", "python3.1"], RUNTIMES[:4]),
    (["cfngen", "init", "--template-version", ""], ["0.1.0", "0.2.0"]),
    (["cfngen", "runtime", "set", ""], SET_RUNTIMES),
    (["cfngen", "runtime", "set", "nodejs2"], ["nodejs24.x", "nodejs22.x", "nodejs20.x"]),
    (["cfngen", "runtime", "set", "--project", "x", "python3.13"], ["python3.13"]),
    (["cfngen", "invoke", ""], ACTIONS),
    (["cfngen", "invoke", "pre"], ["preCreate", "preUpdate", "preDelete"]),
    (["cfngen", "invoke", "--region", "eu-west-1", "--allow-network", "R"], ["READ"]),
    (["cfngen", "--color", "never", "invoke", "LI"], ["LIST"]),
    (["cfngen", "completion", ""], ["bash", "zsh", "fish"]),
]
#: Where a file name comes next: no values (bash then completes file names, -o default).
FILES = [
    (["cfngen", "invoke", "CREATE", ""], []),
    (["cfngen", "invoke", "--region", ""], []),
    (["cfngen", "invoke", "--project", "x", "CREATE", ""], []),
    (["cfngen", "runtime", "set", "python3.12", ""], []),
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


@pytest.mark.parametrize(("words", "expected"), CASES + VALUES + FILES)
def test_bash_completes_commands_options_and_choices(words, expected):
    assert bash_complete(script("bash", build_parser()), words) == expected


def zsh_complete(zsh: str, source: str, words: list[str]) -> list[str]:
    """The bash function as zsh's bashcompinit calls it (`compgen -F` sets ksharrays first;
    its own compgen and complete stand in for bash's). That compgen returns every word of -W:
    zsh's compadd keeps those the typed prefix starts, as here."""
    program = (
        f"{source}\nsetopt ksharrays\nCOMP_WORDS=({' '.join(repr(w) for w in words)})\n"
        "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))\nCOMPREPLY=()\n_cfngen_complete\n"
        'print -rl -- "${COMPREPLY[@]}"\n'
    )
    result = subprocess.run(
        [zsh, "-f", "-c", program], capture_output=True, text=True, check=True, timeout=30
    )
    return [line for line in result.stdout.splitlines() if line and line.startswith(words[-1])]


@pytest.mark.oracle
@pytest.mark.parametrize(("words", "expected"), CASES + VALUES + FILES)
def test_zsh_completes_as_bash_does(oracle_tool, words, expected):
    assert zsh_complete(oracle_tool("zsh"), script("zsh", build_parser()), words) == expected


@pytest.mark.oracle
@pytest.mark.parametrize(("words", "expected"), CASES + VALUES)
def test_fish_offers_the_same_values(oracle_tool, tmp_path, words, expected):
    """fish's own completion engine (`complete -C`) on the fish script; it adds descriptions
    and, where a file may come, file names."""
    source = tmp_path / "cfngen.fish"
    source.write_text(script("fish", build_parser()))
    line = " ".join(words)
    result = subprocess.run(
        [oracle_tool("fish"), "--no-config", "-c", f"source {source}; complete -C {line!r}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
        cwd=tmp_path,
    )
    offered = {row.split("\t")[0] for row in result.stdout.splitlines()}
    assert set(expected) <= offered, result.stdout


def test_the_cli_prints_the_script_and_tab_runs_no_python():
    result = subprocess.run(
        [sys.executable, "-m", "cfngen", "completion", "bash"],
        capture_output=True,
        text=True,
        check=True,
    )
    body = result.stdout.split("_cfngen_complete() {", 1)[1].split("\n}\n", 1)[0]
    # The only command it runs is bash's compgen.
    assert body.count("$(") == body.count("$(compgen ") > 0
    assert "cfngen " not in body
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
