"""`cfngen validate` as a user runs it: verdicts, output formats, exit codes, paths."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cfngen._errors import ExitCode
from cfngen._kinds.resource import EXAMPLE_SCHEMA
from cfngen._validate import validate_file, validate_paths, validate_text

CASES = Path(__file__).resolve().parent / "validate_cases"
VALID = sorted((CASES / "valid").glob("*.json"))
INVALID = CASES / "invalid"
#: Valid cases the official validator crashes on instead of accepting (its bugs).
OFFICIAL_CRASHES = {
    # Its flattener leaves an OrderedSet in the schema, then json.dumps() of it fails.
    "combiners-top-level": "TypeError",
}
LINE = re.compile(
    r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning): (?P<ptr>/\S*): .+"
)


def validate_in_a_subprocess(*args, cwd=None, env=None):
    return subprocess.run(
        [sys.executable, "-m", "cfngen", "validate", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "", "FORCE_COLOR": "", **(env or {})},
        check=False,
    )


def official(path: Path) -> tuple[str, list[str]]:
    """The official verdict ('ok' or the exception type) and the warnings it logs."""
    from rpdk.core.data_loaders import load_resource_spec

    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    logger = logging.getLogger("rpdk.core.data_loaders")
    handler = Keep(level=logging.WARNING)
    logger.addHandler(handler)
    try:
        with path.open(encoding="utf-8") as stream:
            load_resource_spec(stream)
        return "ok", records
    except Exception as exc:
        return type(exc).__name__, records
    finally:
        logger.removeHandler(handler)


# --------------------------------------------------------------------------- verdicts


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_unusual_valid_schemas_are_accepted_without_warnings(path):
    report = validate_file(path)
    assert report.diagnostics == []
    assert report.valid


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_unusual_valid_schemas_are_valid_for_the_official_tool_too(path):
    verdict, _ = official(path)
    assert verdict == OFFICIAL_CRASHES.get(path.stem, "ok")


def test_the_example_schema_is_valid_and_clean_for_both_tools():
    assert validate_file(EXAMPLE_SCHEMA).diagnostics == []
    verdict, warnings = official(EXAMPLE_SCHEMA)
    assert (verdict, warnings) == ("ok", [])


def test_relative_refs_to_a_file_beside_the_schema(tmp_path):
    example = json.loads(EXAMPLE_SCHEMA.read_text())
    (tmp_path / "common.json").write_text(json.dumps({"definitions": {"Name": {"type": "string"}}}))
    example["properties"]["Name"] = {"$ref": "common.json#/definitions/Name"}
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(example, indent=2))
    assert validate_file(schema).diagnostics == []
    example["properties"]["Name"] = {"$ref": "common.json#/definitions/Nope"}
    schema.write_text(json.dumps(example, indent=2))
    [error] = validate_file(schema).diagnostics
    assert error.pointer == "/properties/Name/$ref"
    assert "has no 'Nope'" in error.message


def test_all_problems_are_reported_in_file_order():
    report = validate_file(INVALID / "keywords.json")
    positions = [(d.line, d.column) for d in report.diagnostics]
    assert len(positions) > 10
    assert positions == sorted(positions)
    assert all(d.line and d.column for d in report.diagnostics)


def test_strict_makes_warnings_fatal():
    path = INVALID / "lint-only.json"
    assert validate_file(path).valid
    assert not validate_file(path, strict=True).valid
    assert [r.valid for r in validate_paths([path], strict=True)] == [False]


def test_validate_text_needs_no_file():
    report = validate_text('{"typeName": 1}')
    assert not report.valid
    assert report.path == "<schema>"


# --------------------------------------------------------------------------- the command


def _examples() -> int:
    """Every kind ships an example file (`cfngen validate --example` checks them all)."""
    from cfngen._kind import all_kinds

    return sum(len(kind.example_files) for kind in all_kinds())


def test_example_command_says_so_on_stderr_and_exits_0(cli):
    result = cli("validate", "--example")
    assert result.exit_code == ExitCode.OK
    assert result.stdout == ""
    n = _examples()
    assert result.stderr == f"{n} files checked: {n} valid, 0 invalid (0 errors, 0 warnings)\n"


def test_text_output_lines_and_summary(cli):
    path = INVALID / "handlers.json"
    result = cli("validate", path, "--example")
    assert result.exit_code == ExitCode.FAILED
    lines = result.stdout.splitlines()
    assert lines and all(LINE.match(line) for line in lines), result.stdout
    first = LINE.match(lines[0])
    assert first and first["file"] == str(path)
    assert "(list the specific actions the handler calls)" in result.stdout
    n = _examples()
    assert result.stderr == f"{n + 1} files checked: {n} valid, 1 invalid (5 errors, 2 warnings)\n"
    assert "\033[" not in result.stdout


def test_colour_only_when_asked_or_on_a_terminal():
    result = validate_in_a_subprocess(INVALID / "handlers.json", env={"FORCE_COLOR": "1"})
    assert "\033[1;31merror\033[0m" in result.stdout


def test_warnings_alone_exit_0_and_strict_exits_1(cli):
    path = INVALID / "lint-only.json"
    assert cli("validate", path).exit_code == ExitCode.OK
    assert cli("validate", path, "--strict").exit_code == ExitCode.FAILED


def test_json_output_is_exactly_one_document_of_the_promised_shape(cli):
    result = cli("validate", INVALID / "refs.json", EXAMPLE_SCHEMA, "--format", "json")
    assert result.exit_code == ExitCode.FAILED
    assert result.stderr == ""
    doc = json.loads(result.stdout)  # raises if anything else is on stdout
    assert list(doc) == ["files"]
    assert [f["path"] for f in doc["files"]] == [str(INVALID / "refs.json"), str(EXAMPLE_SCHEMA)]
    assert [f["valid"] for f in doc["files"]] == [False, True]
    for file in doc["files"]:
        assert list(file) == ["path", "valid", "diagnostics"]
        for d in file["diagnostics"]:
            assert list(d) == ["severity", "pointer", "line", "column", "message", "hint", "code"]
            assert d["code"].startswith("cfngen/")
            assert d["severity"] in ("error", "warning")
            assert isinstance(d["pointer"], str)
            assert isinstance(d["line"], int | None) and isinstance(d["column"], int | None)
            assert isinstance(d["message"], str) and d["message"]
            assert isinstance(d["hint"], str | None)
    assert doc["files"][1]["diagnostics"] == []
    assert any(d["severity"] == "warning" for d in doc["files"][0]["diagnostics"])


def test_output_is_the_same_under_another_hash_seed():
    args = (*sorted(INVALID.glob("*.json")), "--format", "json")
    first = validate_in_a_subprocess(*args, env={"PYTHONHASHSEED": "1"})
    second = validate_in_a_subprocess(*args, env={"PYTHONHASHSEED": "2"})
    assert first.stdout == second.stdout


@pytest.mark.parametrize("name", ["syntax-error", "nan", "not-utf8", "not-an-object"])
def test_broken_json_is_an_invalid_schema_not_a_usage_error(name, cli):
    result = cli("validate", INVALID / f"{name}.json")
    assert result.exit_code == ExitCode.FAILED
    assert LINE.match(result.stdout.splitlines()[0])
    assert "Traceback" not in result.stderr


def test_duplicate_keys_are_a_warning_the_official_tool_reads_the_last_one(cli):
    result = cli("validate", INVALID / "duplicate-keys.json")
    assert result.exit_code == ExitCode.OK
    assert ": warning: /typeName: duplicate key 'typeName'" in result.stdout
    assert cli("validate", INVALID / "duplicate-keys.json", "--strict").exit_code == ExitCode.FAILED


def _project(root: Path, type_name: str = "Acme::Storage::Vault") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / ".rpdk-config").write_text(json.dumps({"typeName": type_name, "language": "python312"}))
    shutil.copy(EXAMPLE_SCHEMA, root / "acme-storage-vault.json")
    return root


def test_default_is_the_project_in_the_current_folder(tmp_path, cli):
    project = _project(tmp_path / "vault")
    result = cli("validate", cwd=project)
    assert result.exit_code == ExitCode.OK, result.stdout + result.stderr
    assert "1 file checked: 1 valid" in result.stderr


def test_project_folders_and_files_together(tmp_path, cli):
    project = _project(tmp_path / "vault")
    result = cli("validate", project, INVALID / "tagging.json", "--format", "json")
    assert result.exit_code == ExitCode.FAILED
    paths = [f["path"] for f in json.loads(result.stdout)["files"]]
    assert paths == [str(project / "acme-storage-vault.json"), str(INVALID / "tagging.json")]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["missing.json"], "no such file or folder"),
        (["."], "not a project folder"),
        (["--format", "yaml"], "invalid choice"),
        (["--nope"], "unrecognized arguments"),
    ],
)
def test_usage_errors_exit_2_before_any_output(tmp_path, args, fragment, cli):
    (tmp_path / "ok.json").write_text(EXAMPLE_SCHEMA.read_text())
    result = cli("validate", "ok.json", *args, cwd=tmp_path)
    assert result.exit_code == ExitCode.USAGE
    assert fragment in result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr


def test_project_whose_schema_is_missing_is_a_usage_error(tmp_path, cli):
    project = _project(tmp_path / "vault")
    (project / "acme-storage-vault.json").unlink()
    result = cli("validate", project)
    assert result.exit_code == ExitCode.USAGE
    assert "acme-storage-vault.json is missing" in result.stderr


def test_the_official_tool_agrees_the_hand_written_bad_cases_are_bad():
    # Except where cfngen is stricter on purpose (see docs/validate.md).
    stricter = {"handlers", "lint-only", "pointers", "tagging", "duplicate-keys"}
    for path in sorted(INVALID.glob("*.json")):
        if path.stem in stricter or path.stem in ("not-utf8",):
            continue
        verdict, _ = official(path)
        assert verdict != "ok", path.name


def test_official_cannot_read_what_we_report_as_not_utf8():
    from rpdk.core.data_loaders import load_resource_spec

    raw = (INVALID / "not-utf8.json").read_bytes()
    with pytest.raises(Exception):  # noqa: B017 - any failure is a rejection
        load_resource_spec(io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"))


# --------------------------------------------------------------------------- robustness

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                ["type", "properties", "items", "$ref", "required", "permissions", "x", "Tags"]
            ),
            children,
            max_size=3,
        )
    ),
    max_leaves=8,
)


def _all_pointers(value, pointer=""):
    yield pointer
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _all_pointers(v, f"{pointer}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _all_pointers(v, f"{pointer}/{i}")


EXAMPLE = json.loads(EXAMPLE_SCHEMA.read_text())
EXAMPLE_POINTERS = [p for p in _all_pointers(EXAMPLE) if p]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(EXAMPLE_POINTERS), json_values)
def test_any_value_anywhere_gives_diagnostics_never_a_crash(pointer, value):
    schema = json.loads(json.dumps(EXAMPLE))
    *parents, last = pointer.lstrip("/").split("/")
    node = schema
    for token in parents:
        node = node[int(token)] if isinstance(node, list) else node[token]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    report = validate_text(json.dumps(schema, indent=2))
    for d in report.diagnostics:
        assert d.message and d.line and d.column
