"""`pytest --cfngen`: the contract tests as pytest items, run in a real pytest subprocess and read
back from its JUnit report with junitparser. pytest (with xdist) and junitparser are the judges:
these are oracle tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from junitparser import Failure, JUnitXml, Skipped

from cfngen._kinds.resource.contract._suite import TEST_NAMES

STORE = Path(__file__).resolve().parent / "fixtures" / "contract" / "store"
HANDLERS = "src/example_test_store/handlers.py"

pytestmark = pytest.mark.oracle
SKIPPED = {"contract_create_taggable", "contract_update_tag_updatable"}


def pytest_run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env={**os.environ, "NO_COLOR": "1", "PYTEST_ADDOPTS": ""},
    )


def store(where: Path, name: str = "store", *, forget: bool = False) -> Path:
    root = where / name
    shutil.copytree(STORE, root, ignore=shutil.ignore_patterns("__pycache__"))
    if forget:
        handlers = root / HANDLERS
        handlers.write_text(handlers.read_text().replace("del STORE[model.Name]  # FORGET", "pass"))
    return root


def junit_cases(report: Path) -> dict[str, object]:
    return {
        f"{case.classname}::{case.name}": case
        for suite in JUnitXml.fromfile(str(report))
        for case in suite
    }


def outcome(case) -> str:
    kinds = {type(r) for r in case.result}
    return "failed" if Failure in kinds else "skipped" if Skipped in kinds else "passed"


def test_without_the_option_nothing_is_collected(tmp_path):
    root = store(tmp_path)
    result = pytest_run("--collect-only", "-q", cwd=root)
    assert "contract_" not in result.stdout


def test_collect_only_lists_every_test_without_running_handlers(tmp_path):
    root = store(tmp_path)
    handlers = root / HANDLERS
    handlers.write_text(handlers.read_text() + "\nraise SystemExit('imported')\n")
    result = pytest_run("--cfngen", "--collect-only", "-q", cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr
    listed = [line.split("::")[-1] for line in result.stdout.splitlines() if "::" in line]
    assert listed == list(TEST_NAMES)


def test_a_folder_of_projects_reports_its_tests_in_junit(tmp_path):
    """Two projects below one root, one with a delete that deletes nothing; `-n 2` (xdist)."""
    good = store(tmp_path, "good")
    store(tmp_path, "bad", forget=True)
    # A unit test of one project that only imports with that project's own settings.
    (good / "tests").mkdir()
    (good / "tests" / "test_unit.py").write_text("import example_test_store\n")
    listed = pytest_run("--cfngen", "--collect-only", "-q", cwd=tmp_path)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    for project in ("good", "bad"):
        names = [ln.split("::")[-1] for ln in listed.stdout.splitlines() if ln.startswith(project)]
        assert names == list(TEST_NAMES), project

    report = tmp_path / "report.xml"
    chosen = "delete_read or create_taggable"
    result = pytest_run("--cfngen", "-n", "2", "-k", chosen, f"--junitxml={report}", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    cases = {key: outcome(case) for key, case in junit_cases(report).items()}
    assert cases == {
        "good..rpdk-config::contract_delete_read": "passed",
        "good..rpdk-config::contract_create_taggable": "skipped",
        "bad..rpdk-config::contract_delete_read": "failed",
        "bad..rpdk-config::contract_create_taggable": "skipped",
    }
    xml = junit_cases(report)
    (failure,) = xml["bad..rpdk-config::contract_delete_read"].result
    assert "READ returned SUCCESS; expected FAILED (NotFound)" in failure.text
    (skip,) = xml["good..rpdk-config::contract_create_taggable"].result
    assert skip.message == "the schema has no tagging metadata"


def test_k_and_m_select_as_usual_and_the_ini_option_enables_it(tmp_path):
    root = store(tmp_path, forget=True)
    (root / "pytest.ini").write_text("[pytest]\ncfngen = true\n")
    report = tmp_path / "report.xml"
    result = pytest_run(
        "-m", "cfngen", "-k", "delete_read or create_read", f"--junitxml={report}", cwd=root
    )
    assert result.returncode == 1, result.stdout + result.stderr
    cases = {key.split("::")[-1]: outcome(case) for key, case in junit_cases(report).items()}
    assert cases == {"contract_create_read": "passed", "contract_delete_read": "failed"}
    assert "READ returned SUCCESS; expected FAILED (NotFound)" in result.stdout


def test_a_project_whose_tests_cannot_be_listed_is_a_collection_error_that_says_why(tmp_path):
    """`cfngen test` exits 2 on it, saying why once: so does pytest, whatever -k says."""
    root = store(tmp_path)
    (root / "inputs" / "inputs_1_create.json").write_text("{not json")
    result = pytest_run("--cfngen", "-k", "create_read", cwd=root)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout.count("inputs_1_create.json") == 1, result.stdout
    assert "error during collection" in result.stdout
    assert "Traceback" not in result.stdout


def test_a_hook_project_gets_the_hook_tests_and_reports_skips_at_the_project(cli, tmp_path_factory):
    from tests.test_init_support import made_once

    made = made_once(
        tmp_path_factory, "editor-hook", "--artifact-type", "hook", "-t", "Acme::Svc::Hook"
    )
    root = tmp_path_factory.mktemp("plugin-hook") / "hook"
    shutil.copytree(made, root)
    listed = pytest_run("--cfngen", "-m", "cfngen", "--collect-only", "-q", cwd=root)
    names = [line.split("::")[-1] for line in listed.stdout.splitlines() if "::" in line]
    # The oracle: the tests `cfngen test` runs on the same project (here, in this process).
    ran = cli("test", "--format", "json", cwd=root)
    assert names == [test["name"] for test in json.loads(ran.stdout)["tests"]]
    result = pytest_run("--cfngen", "-m", "cfngen", "-rs", "-k", "pre_create_failed", cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SKIPPED [1] .rpdk-config:1: no wildcard target" in result.stdout


def test_a_custom_resource_project_is_collected_by_its_template(cli, tmp_path_factory):
    from tests.test_init_support import made_once

    made = made_once(tmp_path_factory, "plugin-custom", "--artifact-type", "custom-resource")
    root = tmp_path_factory.mktemp("plugin-custom") / "custom"
    shutil.copytree(made, root)
    listed = pytest_run("--cfngen", "--collect-only", "-q", cwd=root)
    names = [line.split("::")[-1] for line in listed.stdout.splitlines() if "::" in line]
    ran = cli("test", "--format", "json", cwd=root)
    assert names == [test["name"] for test in json.loads(ran.stdout)["tests"]]
    assert len(names) > 5
