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


def _validate_hook() -> dict:
    (hook,) = [h for h in yaml.safe_load(MANIFEST.read_text()) if h["id"] == "cfngen-validate"]
    return hook


def selected(path: str) -> bool:
    """pre-commit's rule: `files` and `exclude` are searched in the path from the root."""
    import re

    hook = _validate_hook()
    return bool(re.search(hook["files"], path)) and not re.search(hook["exclude"], path)


def test_validate_is_passed_json_yaml_and_config_but_never_inputs_or_docs():
    for path in (
        "acme-svc-widget.json",
        "services/a/acme-svc-widget.json",
        ".rpdk-config",
        "services/a/.rpdk-config",
        "template.yaml",
        "templates/thing.yml",
        "fragments/module.yaml",
        "properties-schema.json",
        "properties-schemas/Custom__Box.json",
    ):
        assert selected(path), path
    for path in (
        "inputs/inputs-1-create.json",
        "inputs/acme-svc-widget.json",
        "target-schemas/aws-s3-bucket.json",
        "example_inputs/inputs_1_create.json",
        "docs/widget.json",
        "custom-resource-inputs/Custom__Box.json",
        ".cfngen/generated.json",
        "src/app.py",
    ):
        assert not selected(path), path


#: Each kind's starter: (init arguments, the files a kind owns in it, one of them broken so that
#: validate must fail naming it, and a file of it that is no kind's, broken too).
STARTERS = {
    "resource": (
        ("--type-name", "Acme::Hook::Widget"),
        {"acme-hook-widget.json", "callback-context.json"},
        ("acme-hook-widget.json", '"typeName": "Acme::Hook::Widget"', '"typeName": "Widget"'),
    ),
    "hook": (
        ("--artifact-type", "hook", "--type-name", "Acme::Hook::Check"),
        {"acme-hook-check.json"},
        ("acme-hook-check.json", '"handlers": {', '"handlers": {"preNothing": {},'),
    ),
    "module": (
        ("--artifact-type", "module", "--type-name", "Acme::Hook::Thing::MODULE"),
        {"fragments/module.yaml"},
        ("fragments/module.yaml", "Resources:", "Resources: 7\nUnused:"),
    ),
    "custom-resource": (
        ("--artifact-type", "custom-resource"),
        {"template.yaml", "properties-schema.json"},
        ("template.yaml", "ServiceTimeout: 120", "ServiceTimeout: 0"),
    ),
}


def _passed(root: Path) -> list[str]:
    """What pre-commit passes the hook for `--all-files`: every file it selects."""
    return sorted(
        path.relative_to(root).as_posix()
        for path in root.rglob("*")
        if path.is_file()
        and ".git" not in path.parts
        and selected(path.relative_to(root).as_posix())
    )


@pytest.fixture
def starter(made_project, tmp_path, request) -> tuple[str, Path]:
    kind = request.param
    made = made_project(f"precommit-{kind}", *STARTERS[kind][0])
    root = tmp_path / kind
    shutil.copytree(made, root)
    # A JSON file no kind owns, broken: the hook is passed it and must leave it alone.
    (root / "custom-resource-inputs.json").write_text("{not json")
    return kind, root


@pytest.mark.parametrize("starter", STARTERS, indirect=True)
def test_validate_owned_checks_exactly_what_each_kind_owns(cli, starter):
    kind, root = starter
    result = cli("validate", "--owned", "--format", "json", *_passed(root), cwd=root)
    assert result.exit_code == 0, result.stdout + result.stderr
    checked = {Path(f["path"]).as_posix() for f in json.loads(result.stdout)["files"]}
    assert checked == STARTERS[kind][1]


@pytest.mark.parametrize("starter", STARTERS, indirect=True)
def test_validate_owned_fails_on_a_broken_file_a_kind_owns(cli, starter):
    kind, root = starter
    name, old, new = STARTERS[kind][2]
    path = root / name
    assert old in path.read_text(), "the planted change no longer applies: fix the table"
    path.write_text(path.read_text().replace(old, new, 1))
    result = cli("validate", "--owned", *_passed(root), cwd=root)
    assert result.exit_code == 1, result.stdout + result.stderr
    assert all(line.startswith(name) for line in result.stdout.splitlines()), result.stdout


@pytest.mark.oracle
@pytest.mark.parametrize("starter", STARTERS, indirect=True)
def test_the_validate_hook_passes_every_starter_and_fails_its_broken_file(starter):
    kind, root = starter
    hooks = yaml.safe_load(MANIFEST.read_text())
    for hook in hooks:
        hook["language"] = "system"
    config = {"repos": [{"repo": "local", "hooks": hooks}]}
    (root / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    git(root, "init", "-q")
    git(root, "add", "-A")
    clean = pre_commit("run", "cfngen-validate", "--all-files", cwd=root)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    name, old, new = STARTERS[kind][2]
    (root / name).write_text((root / name).read_text().replace(old, new, 1))
    git(root, "add", "-A")
    broken = pre_commit("run", "cfngen-validate", "--all-files", cwd=root)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert f"{name}:" in broken.stdout


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
