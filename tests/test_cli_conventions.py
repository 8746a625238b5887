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

from cfngen._cli import build_parser, main
from cfngen._errors import ExitCode
from tests.conftest import CliResult
from tests.conftest import run_cli as run_in_process


def run_cli(*args: str, cwd: Path) -> CliResult:
    """The CLI in this process (`conftest.run_cli`) in `cwd`; `template sync` writes the
    template cache: the test's, not the user's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CFNGEN_HOME", str(cwd / "cfngen-home"))
        return run_in_process(*args, cwd=cwd)


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
    ("completion",): ["bash"],
    ("drift", "explain"): ["/properties/Name", "a", "b"],
}


def test_every_command_takes_format_json():
    assert len(COMMANDS) >= 12
    for words in COMMANDS:
        parser = build_parser()
        args = parser.parse_args([*words, *POSITIONALS.get(tuple(words), []), "--format", "json"])
        assert args.format == "json", words


@pytest.fixture
def here(tmp_path, monkeypatch, capsys):
    """An empty folder as the current one, the template cache the test's own (in-process)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "cfngen-home"))
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


def json_main(*argv: str, capsys) -> tuple[int, dict]:
    code = main(list(argv))
    out = capsys.readouterr().out
    return code, json.loads(out)


@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_a_usage_error_is_one_json_document(words, here, capsys):
    args = POSITIONALS.get(tuple(words), [])
    code, document = json_main(*words, *args, "--no-such-option", "--format", "json", capsys=capsys)
    assert code == ExitCode.USAGE
    assert set(document) == {"error", "exit_code"}
    assert "--no-such-option" in document["error"]["message"]
    assert document["error"]["hint"]


@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_an_error_outside_a_project_is_one_json_document(words, here, capsys):
    if words == ["init"]:
        args = ["--no-input", "--type-name", "AWS::Bad::Name", "x"]
    else:
        args = POSITIONALS.get(tuple(words), [])
    code, document = json_main(*words, *args, "--format", "json", capsys=capsys)
    if code == ExitCode.OK:  # `template sync`, `schema export`, `completion` work anywhere
        assert "error" not in document
        return
    assert code == ExitCode.USAGE, document
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
    assert text.exit_code == ExitCode.USAGE
    assert "argument --" in text.stderr and "not a project" not in text.stderr
    document = json.loads(run_cli(*argv, "--format", "json", cwd=tmp_path).stdout)
    assert document["error"]["message"].startswith(f"cfngen {argv[0]}: argument --")


def test_good_regions_pass():
    parser = build_parser()
    for region in ("us-east-1", "eu-west-2", "us-gov-west-1", "cn-northwest-1", "ap-southeast-5"):
        assert parser.parse_args(["test", "--region", region]).region == region


def test_help_in_json_mode_is_still_one_document(tmp_path):
    result = run_cli("validate", "--help", "--format", "json", cwd=tmp_path)
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert any("usage: cfngen validate" in line for line in document["output"])


# ------------------------------------------------------------------------------ colour, quiet


BAD_SCHEMA = Path(__file__).resolve().parent / "validate_cases" / "invalid" / "handlers.json"
LINT_ONLY = Path(__file__).resolve().parent / "validate_cases" / "invalid" / "lint-only.json"


@pytest.mark.parametrize(
    ("flags", "env", "coloured"),
    [
        (["--color", "always"], {"NO_COLOR": "1"}, True),
        (["--color", "never"], {"FORCE_COLOR": "1"}, False),
        ([], {"FORCE_COLOR": "1"}, True),
        ([], {}, False),  # a pipe is not a terminal
    ],
)
def test_color_flag_wins_over_the_environment(flags, env, coloured, tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "cfngen", "validate", *flags, str(BAD_SCHEMA)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        env={k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")} | env,
    )
    assert result.returncode == ExitCode.FAILED
    assert ("\033[" in result.stdout) is coloured


def test_quiet_keeps_the_result_and_drops_warnings_and_summary(tmp_path):
    loud = run_cli("validate", str(LINT_ONLY), cwd=tmp_path)
    quiet = run_cli("validate", "-q", str(LINT_ONLY), cwd=tmp_path)
    assert loud.exit_code == quiet.exit_code == ExitCode.OK
    assert quiet.stdout == loud.stdout != ""
    assert "checked" in loud.stderr and quiet.stderr == ""


# ------------------------------------------------------------------------------ configuration


def test_pyproject_settings_are_defaults_and_flags_win(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.cfngen]\nstrict = true\nformat = "github"\n'
    )
    sub = tmp_path / "deeper"
    sub.mkdir()
    configured = run_cli("validate", str(LINT_ONLY), cwd=sub)
    # strict: the lint warnings fail the run; format: GitHub annotations, as errors.
    assert configured.exit_code == ExitCode.FAILED
    assert configured.stdout.startswith("::error ")
    flagged = run_cli("validate", "--format", "text", str(LINT_ONLY), cwd=sub)
    assert flagged.stdout.split(":")[0].endswith("lint-only.json")


def test_a_cfngen_toml_with_a_bad_setting_is_a_usage_error_naming_it(tmp_path):
    (tmp_path / "cfngen.toml").write_text('region = "mars-1"\n')
    result = run_cli("validate", str(LINT_ONLY), cwd=tmp_path)
    assert result.exit_code == ExitCode.USAGE
    assert "cfngen.toml: region" in result.stderr and result.stdout == ""
    (tmp_path / "cfngen.toml").write_text("stirct = true\n")
    document = json.loads(run_cli("validate", "--format", "json", cwd=tmp_path).stdout)
    assert "unknown cfngen setting 'stirct'" in document["error"]["message"]


def test_a_request_that_is_not_utf8_is_a_usage_error_like_bad_json(tmp_path):
    project = Path(__file__).resolve().parent / "fixtures" / "contract" / "store"
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"desiredResourceState": {"Name": "caf\xe9"}}')
    truncated = tmp_path / "truncated.json"
    truncated.write_text('{"desiredResourceState": ')
    for request in (latin, truncated):
        result = run_cli("invoke", "CREATE", str(request), "--project", str(project), cwd=tmp_path)
        assert result.exit_code == ExitCode.USAGE, result.stderr
        assert request.name in result.stderr


def test_a_missing_request_file_is_a_usage_error_where_the_kind_needs_one(capsys):
    project = Path(__file__).resolve().parent / "fixtures" / "contract" / "store"
    assert main(["invoke", "CREATE", "--project", str(project)]) == ExitCode.USAGE
    assert "REQUEST_FILE is missing" in capsys.readouterr().err


def _parsers(parser, words=()):
    yield list(words), parser
    for action in parser._actions:
        if isinstance(action.choices, dict):
            for name, child in dict(action.choices).items():
                yield from _parsers(child, (*words, name))


@pytest.mark.parametrize("words", [w for w, _ in _parsers(build_parser())], ids=" ".join)
def test_every_help_metavar_reads_as_a_word(words, capsys):
    """A value's name in --help is chosen, not argparse's upper-cased `dest` (which showed
    ANSWER_TYPE_NAME for init's --type-name): every option and argument that takes a value
    names it (metavar) or lists its choices."""
    parser = next(p for w, p in _parsers(build_parser()) if w == words)
    unnamed = [
        action.option_strings or action.dest
        for action in parser._actions
        if action.nargs != 0
        and action.help != "==SUPPRESS=="
        and not isinstance(action.choices, dict)
        and action.metavar is None
        and not action.choices
    ]
    assert not unnamed, unnamed
    with pytest.raises(SystemExit):
        main([*words, "--help"])
    text = capsys.readouterr().out
    assert "ANSWER_" not in text and "_TYPE " not in text
