"""The pre-commit hooks this repository publishes (.pre-commit-hooks.yaml), run by pre-commit.

`pre-commit try-repo` would build a virtualenv and install cfngen with its dependencies from the
index for each run; here the manifest's hooks run through real pre-commit as `repo: local` hooks
of `language: system` (the cfngen of this test run), with the manifest's own `files`, `exclude`,
`pass_filenames` and entries: pre-commit's file selection and exit codes, offline.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.test_init_support import git

REPO = Path(__file__).resolve().parent.parent
MANIFEST = REPO / ".pre-commit-hooks.yaml"
STORE = REPO / "tests" / "fixtures" / "contract" / "store"
SCHEMA = "example-test-store.json"


def pre_commit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    bin_dir = Path(sys.executable).parent
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(cwd.parent / "pre-commit-home"),
        "NO_COLOR": "1",
        "PYTHONPATH": str(REPO),
    }
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("generated") / "project"
    shutil.copytree(STORE, root, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "inputs" / "example-not-a-schema.json").write_text("{not json")
    subprocess.run(
        [sys.executable, "-m", "cfngen", "generate"], cwd=root, check=True, capture_output=True
    )
    return root


@pytest.fixture
def sample(generated, tmp_path) -> Path:
    """A generated project in a git repository, with the manifest's hooks configured."""
    root = tmp_path / "project"
    shutil.copytree(generated, root)
    hooks = yaml.safe_load(MANIFEST.read_text())
    for hook in hooks:
        hook["language"] = "system"
    config = {"repos": [{"repo": "local", "hooks": hooks}]}
    (root / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    git(root, "init", "-q")
    git(root, "add", "-A")
    return root


@pytest.mark.oracle
def test_the_manifest_is_valid():
    result = pre_commit("validate-manifest", str(MANIFEST), cwd=REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    ids = [hook["id"] for hook in yaml.safe_load(MANIFEST.read_text())]
    assert ids == ["cfngen-validate", "cfngen-generate-check", "cfngen-generate"]


@pytest.mark.oracle
def test_a_clean_project_passes(sample):
    result = pre_commit("run", "--all-files", cwd=sample)
    assert result.returncode == 0, result.stdout + result.stderr
    # The broken JSON under inputs/ is not a schema: never passed to validate.
    assert "example-not-a-schema" not in result.stdout


@pytest.mark.oracle
def test_a_broken_schema_fails_validate(sample):
    path = sample / SCHEMA
    schema = json.loads(path.read_text())
    schema["primaryIdentifier"] = "/properties/Name"
    path.write_text(json.dumps(schema, indent=2))
    result = pre_commit("run", "cfngen-validate", "--all-files", cwd=sample)
    assert result.returncode == 1
    assert f"{SCHEMA}:" in result.stdout and "/primaryIdentifier" in result.stdout


@pytest.mark.oracle
def test_drift_fails_the_check_and_the_fixer_repairs_it(sample):
    (sample / "resource-role.yaml").unlink()
    check = pre_commit("run", "cfngen-generate-check", "--all-files", cwd=sample)
    assert check.returncode == 1
    assert "out of date: resource-role.yaml" in check.stdout
    fix = pre_commit("run", "cfngen-generate", "--all-files", cwd=sample)
    # A fixer that changed files fails the commit once, as every pre-commit fixer does.
    assert (sample / "resource-role.yaml").is_file(), fix.stdout
    again = pre_commit("run", "cfngen-generate-check", "--all-files", cwd=sample)
    assert again.returncode == 0, again.stdout


def test_validate_selects_schemas_and_config_not_inputs():
    import re

    (hook,) = [h for h in yaml.safe_load(MANIFEST.read_text()) if h["id"] == "cfngen-validate"]
    files, exclude = re.compile(hook["files"]), re.compile(hook["exclude"])

    def selected(path: str) -> bool:
        # pre-commit's rule: `files` and `exclude` are searched in the path from the root.
        return bool(files.search(path)) and not exclude.search(path)

    assert selected("acme-svc-widget.json")
    assert selected("services/a/acme-svc-widget.json")
    assert selected(".rpdk-config")
    assert selected("services/a/.rpdk-config")
    assert not selected("inputs/inputs-1-create.json")
    assert not selected("inputs/acme-svc-widget.json")
    assert not selected("target-schemas/aws-s3-bucket.json")
    assert not selected("callback-context.json")
    assert not selected("example_inputs/inputs_1_create.json")


@pytest.mark.oracle
def test_every_hook_stops_on_a_journal_the_repository_ships(sample):
    """A committed journal whose "backup" is the handlers module, to be put over the schema
    (tests/test_crafted_files.py has the table): every hook fails naming it, nothing applied."""
    from tests.test_crafted_files import entry, journal, sha256, tree

    handlers = next(sample.glob("src/*/handlers.py")).relative_to(sample).as_posix()
    schema = (sample / SCHEMA).read_bytes()
    crafted = {**entry(SCHEMA, sha256=sha256(schema)), "backup": handlers}
    (sample / ".cfngen-journal.json").write_text(journal("committing", [crafted]))
    git(sample, "add", "-A")
    before = tree(sample)
    result = pre_commit("run", "--all-files", cwd=sample)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.count("not a journal this cfngen writes") == 3, result.stdout
    assert tree(sample) == before
