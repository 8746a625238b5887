"""`cfngen generate` over several projects (a repository holding more than one, as pre-commit
passes their files), and the pre-commit hooks that run it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_cli
from tests.test_init_support import git
from tests.test_precommit import MANIFEST, STORE, pre_commit

PROJECTS = ("services/a", "services/b")


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """A repository with two generated projects and a file in neither."""
    repo = tmp_path_factory.mktemp("mono") / "repo"
    for name in PROJECTS:
        shutil.copytree(STORE, repo / name, ignore=shutil.ignore_patterns("__pycache__"))
        assert run_cli("generate", cwd=repo / name).exit_code == 0
    (repo / "README.md").write_text("two projects\n")
    git(repo, "init", "-q")
    return repo


@pytest.fixture
def repo(generated, tmp_path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(generated, root, symlinks=True)
    return root


#: How the projects are named: folders, files in them (as pre-commit passes them), with a
#: file in no project among them, and each project's .rpdk-config.
NAMED = {
    "folders": list(PROJECTS),
    "files": [f"{p}/example-test-store.json" for p in PROJECTS]
    + [f"{p}/src/example_test_store/handlers.py" for p in PROJECTS],
    "files-and-others": ["README.md", *(f"{p}/example-test-store.json" for p in PROJECTS)],
    "rpdk-configs": [f"{p}/.rpdk-config" for p in PROJECTS],
}


@pytest.mark.parametrize("named", NAMED.values(), ids=NAMED)
def test_generate_check_takes_several_projects(repo, named):
    (repo / "services/b/resource-role.yaml").unlink()
    check = run_cli("generate", "--check", *named, cwd=repo)
    assert check.exit_code == 1, check.stdout + check.stderr
    # Each project under its name; only b's drift, named from where the command ran.
    assert "services/a:\ncfngen: derived files are up to date" in check.stdout
    assert "services/b:\nout of date: resource-role.yaml" in check.stdout
    if "README.md" in named:
        assert "README.md is in no project: skipped" in check.stderr

    github = run_cli("generate", "--check", "--format", "github", *named, cwd=repo)
    errors = [line for line in github.stdout.splitlines() if line.startswith("::error")]
    assert errors == [
        "::error file=services/b/resource-role.yaml,line=1,title=cfngen generate --check::"
        "services/b/resource-role.yaml is out of date; run `cfngen generate` to refresh it"
    ]
    document = json.loads(
        run_cli("generate", "--check", "--format", "json", *named, cwd=repo).stdout
    )
    assert {name: doc["up_to_date"] for name, doc in document["projects"].items()} == {
        "services/a": True,
        "services/b": False,
    }

    assert run_cli("generate", *named, cwd=repo).exit_code == 0
    assert (repo / "services/b/resource-role.yaml").is_file()
    assert run_cli("generate", "--check", *named, cwd=repo).exit_code == 0


def test_one_project_that_fails_does_not_stop_the_others(repo):
    (repo / "services/a/.rpdk-config").write_text("{not json")
    (repo / "services/b/resource-role.yaml").unlink()
    result = run_cli("generate", *PROJECTS, cwd=repo)
    assert result.exit_code == 2  # the worst of the projects' exit codes
    assert "services/a/.rpdk-config: cannot read it" in result.stderr
    assert (repo / "services/b/resource-role.yaml").is_file()


def test_files_in_no_project_are_nothing_to_do(repo):
    result = run_cli("generate", "--check", "README.md", cwd=repo)
    assert result.exit_code == 0
    assert "README.md is in no project: skipped" in result.stderr


def test_a_folder_that_is_no_project_is_still_an_error(repo):
    (repo / "docs").mkdir()
    result = run_cli("generate", "--check", "docs", "services/a", cwd=repo)
    assert result.exit_code == 2
    assert "docs: not a project folder" in result.stderr


@pytest.fixture
def hooked(repo) -> Path:
    """The repository with the manifest's generate hooks, as `repo: local` system hooks."""
    hooks = [h for h in yaml.safe_load(MANIFEST.read_text()) if h["id"] != "cfngen-validate"]
    for hook in hooks:
        hook["language"] = "system"
    (repo / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump({"repos": [{"repo": "local", "hooks": hooks}]})
    )
    git(repo, "add", "-A")
    return repo


@pytest.mark.oracle
def test_the_generate_hooks_check_every_project_a_commit_touches(hooked):
    (hooked / "services/b/resource-role.yaml").unlink()
    git(hooked, "add", "-A")
    check = pre_commit("run", "cfngen-generate-check", "--all-files", cwd=hooked)
    assert check.returncode == 1, check.stdout
    assert "out of date: resource-role.yaml" in check.stdout
    fix = pre_commit("run", "cfngen-generate", "--all-files", cwd=hooked)
    assert (hooked / "services/b/resource-role.yaml").is_file(), fix.stdout
    git(hooked, "add", "-A")
    again = pre_commit("run", "cfngen-generate-check", "--all-files", cwd=hooked)
    assert again.returncode == 0, again.stdout
    # A change outside every project runs the hook on no project, and passes.
    (hooked / "README.md").write_text("changed\n")
    git(hooked, "add", "README.md")
    only_readme = pre_commit("run", "cfngen-generate-check", cwd=hooked)
    assert only_readme.returncode == 0, only_readme.stdout


@pytest.mark.oracle
def test_the_generate_hooks_take_projects_as_args(hooked):
    config = yaml.safe_load((hooked / ".pre-commit-config.yaml").read_text())
    for hook in config["repos"][0]["hooks"]:
        hook.update(args=list(PROJECTS), pass_filenames=False, always_run=True)
    (hooked / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    (hooked / "services/a/resource-role.yaml").unlink()
    git(hooked, "add", "-A")
    check = pre_commit("run", "cfngen-generate-check", cwd=hooked)
    assert check.returncode == 1, check.stdout
    # pre-commit interleaves the two streams: each project's lines are there.
    assert "services/a:" in check.stdout and "services/b:" in check.stdout
    assert "out of date: resource-role.yaml" in check.stdout
