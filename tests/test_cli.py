import subprocess
import sys
from pathlib import Path

import pytest

from cfngen import __version__
from cfngen._cli import main
from cfngen._errors import ExitCode


def test_version(cli):
    result = cli("--version")
    assert result.exit_code == 0
    first, *shaping = result.stdout.splitlines()
    assert first == f"cfngen {__version__}"
    # The libraries that shape generated output, with their versions.
    names = [line.split()[0] for line in shaping]
    assert names == [
        "datamodel-code-generator",
        "black",
        "ruff",
        "cloudformation-cli-python-lib",
        "copier",
    ]


def test_help_lists_commands(cli):
    result = cli("--help")
    assert result.exit_code == 0
    assert "validate" in result.stdout


def test_help_does_not_import_heavy_libraries():
    code = (
        "import sys; from cfngen._cli import build_parser; build_parser();"
        "heavy = {'copier', 'datamodel_code_generator', 'black', 'boto3', 'jsonschema', 'moto'};"
        "print(sorted(heavy & set(sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_a_command_declares_only_its_own_options_and_lists_the_others_alike():
    """The parser built for the command about to run lists every command as the whole one
    does, and declaring it does not load what the others' options need (init's: every kind's
    questions)."""
    from cfngen._cli import COMMANDS, build_parser

    whole = build_parser()
    for declared in COMMANDS:
        name = declared.__name__.rpartition(".")[2]
        assert build_parser(name).format_help() == whole.format_help(), name
    code = (
        "import sys; from cfngen._cli import _parse; _parse(['generate', '--check'], None, {});"
        "print(sorted(m for m in sys.modules if m.endswith('._answers')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
    code = code.replace("'generate', '--check'", "'init', '--help'")
    result = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True
    )
    assert "--type-name" in result.stdout


def test_no_command_is_a_usage_error(cli):
    result = cli()
    assert result.exit_code == ExitCode.USAGE
    assert "required" in result.stderr


def test_unknown_flag_is_a_usage_error(cli):
    assert cli("validate", "--nope").exit_code == ExitCode.USAGE


def test_user_error_is_one_message_and_a_hint_without_traceback(tmp_path, cli):
    result = cli("validate", str(tmp_path / "missing.json"))
    assert result.exit_code == ExitCode.USAGE
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("cfngen: error: ")
    assert "hint:" in result.stderr


def test_not_a_project_folder(tmp_path, cli):
    result = cli("validate", cwd=tmp_path)
    assert result.exit_code == ExitCode.USAGE
    assert "not a project folder" in result.stderr


def test_internal_errors_are_reported_as_bugs_not_tracebacks(monkeypatch, capsys):
    import cfngen._validate

    def boom(*_a, **_k):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(cfngen._validate, "validate_paths", boom)
    monkeypatch.delenv("CFNGEN_DEBUG", raising=False)
    assert main(["validate", "x.json"]) == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: kaboom" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("stream_is_tty", [False])
def test_no_colour_when_not_a_terminal(tmp_path, stream_is_tty, cli):
    result = cli("validate", str(tmp_path / "missing.json"))
    assert "\033[" not in result.stderr


@pytest.mark.parametrize(
    ("env", "coloured"),
    [
        ({"TERM": "xterm"}, True),
        ({"TERM": "dumb"}, False),
        ({"TERM": "xterm", "NO_COLOR": "1"}, False),
        ({"TERM": "dumb", "FORCE_COLOR": "1"}, True),
    ],
)
def test_colour_on_a_terminal_follows_term_and_no_color(tmp_path, env, coloured):
    """On a real (pseudo-)terminal: TERM=dumb and NO_COLOR turn colour off."""
    import os

    import pexpect

    clean = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    child = pexpect.spawn(
        sys.executable,
        ["-m", "cfngen", "validate", str(tmp_path / "missing.json")],
        env={**clean, **env},
        encoding="utf-8",
        timeout=60,
    )
    child.expect(pexpect.EOF)
    assert ("\033[" in child.before) == coloured, child.before


def test_a_stdout_that_cannot_encode_the_output_is_no_crash(tmp_path):
    """LANG=C or a latin-1 pipe: characters the stream cannot encode are escaped."""
    import os

    schema = tmp_path / "schéma-✓.json"
    schema.write_text('{"typeName": "Acme::Svc::Wïdget✓"}')
    result = subprocess.run(
        [sys.executable, "-m", "cfngen", "validate", str(schema)],
        capture_output=True,
        check=False,
        env={**os.environ, "PYTHONIOENCODING": "ascii", "LC_ALL": "C"},
    )
    assert result.returncode in (ExitCode.OK, ExitCode.FAILED), result.stderr
    output = (result.stdout + result.stderr).decode("ascii")
    assert "Traceback" not in output and "internal error" not in output
    assert "\\u2713" in output  # the check mark, escaped


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN", "1e999"])
@pytest.mark.parametrize(
    "argv",
    [
        ["test", "--enforce-timeout"],
        ["invoke", "CREATE", "request.json", "--enforce-timeout"],
        ["invoke", "CREATE", "request.json", "--max-delay"],
    ],
)
def test_nan_and_infinite_numbers_are_usage_errors(capsys, argv, value):
    *command, option = argv
    with pytest.raises(SystemExit) as info:
        main([*command, f"{option}={value}"])
    assert info.value.code == ExitCode.USAGE
    assert "finite number" in capsys.readouterr().err


FIXTURES = Path(__file__).parent
VALID = FIXTURES / "fixtures" / "contract" / "store" / "example-test-store.json"
INVALID = FIXTURES / "validate_cases" / "invalid" / "handlers.json"


def _raising(exc: BaseException):
    def raise_it(*_a, **_k):
        raise exc

    return raise_it


#: Every way a command ends, and its exit code: what CFNGEN_DEBUG=1 must not change.
ENDINGS = [
    ("ok", [str(VALID)], None, ExitCode.OK),
    ("failed", [str(INVALID)], None, ExitCode.FAILED),
    ("usage", ["missing.json"], None, ExitCode.USAGE),
    ("argparse", ["--nope", "x.json"], None, ExitCode.USAGE),
    ("environment", ["x.json"], PermissionError(13, "Permission denied", "x.json"), 2),
    ("internal", ["x.json"], RuntimeError("kaboom"), ExitCode.INTERNAL),
    ("internal-oserror", ["x.json"], OSError(5 + 1000, "odd"), ExitCode.INTERNAL),
    ("interrupted", ["x.json"], KeyboardInterrupt(), ExitCode.INTERRUPTED),
]


@pytest.mark.parametrize("fmt", ["text", "json", "junit"])
@pytest.mark.parametrize(
    ("ending", "args", "raised", "code"), ENDINGS, ids=[row[0] for row in ENDINGS]
)
def test_cfngen_debug_never_changes_an_exit_code(monkeypatch, *, ending, args, raised, code, fmt):
    import cfngen._validate
    from tests.conftest import run_cli

    if raised is not None:
        monkeypatch.setattr(cfngen._validate, "validate_paths", _raising(raised))
    codes = {}
    for debug in (None, "1"):
        if debug is None:
            monkeypatch.delenv("CFNGEN_DEBUG", raising=False)
        else:
            monkeypatch.setenv("CFNGEN_DEBUG", debug)
        result = run_cli("validate", *args, "--format", fmt)
        codes[debug] = result.exit_code
        if ending.startswith("internal") and fmt == "text":
            assert ("Traceback" in result.stderr) == (debug == "1"), result.stderr
    assert codes == {None: code, "1": code}
