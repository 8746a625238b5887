"""cfngen._files._contain: the two rules every path a project names is held to. What cfngen
writes stays in the project; what it reads to run or pack code stays in the repository. Each
way out (`..`, an absolute path, a linked folder, a linked file) is a variant of one table."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cfngen._errors import CfngenError
from cfngen._files import readable, repository_root, within, writable


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """outside/secret, repo/.git, repo/shared/lib.py, repo/proj (the project) with links."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret").write_text("key")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "shared").mkdir()
    (repo / "shared" / "lib.py").write_text("")
    project = repo / "proj"
    (project / "docs").mkdir(parents=True)
    os.symlink(tmp_path / "outside", project / "linked-out")
    os.symlink(tmp_path / "outside" / "secret", project / "secret-link")
    os.symlink(repo / "shared", project / "linked-shared")
    return repo


ESCAPES = {
    "dotdot": "../shared/lib.py",
    "absolute": "/etc/passwd",
    "linked-folder": "linked-out/secret",
    "linked-file": "secret-link",
}


@pytest.mark.parametrize("relpath", ESCAPES.values(), ids=ESCAPES.keys())
def test_a_written_path_that_leads_outside_the_project_is_refused(repo, relpath):
    with pytest.raises(CfngenError) as caught:
        writable(repo / "proj", relpath, what="the journal")
    assert "the journal" in caught.value.message and "proj" in caught.value.message


@pytest.mark.parametrize("relpath", ["docs/a.md", "./docs//a.md", "new/folder/file"])
def test_a_written_path_inside_the_project_is_given_back(repo, relpath):
    target = writable(repo / "proj", relpath, what="x")
    assert within(repo / "proj", target)


READ_ESCAPES = {
    "dotdot": Path("../../outside/secret"),
    "absolute": Path("/etc/passwd"),
    "linked-folder": Path("linked-out/secret"),
    "linked-file": Path("secret-link"),
}


@pytest.mark.parametrize("relpath", READ_ESCAPES.values(), ids=READ_ESCAPES.keys())
def test_a_read_path_that_leads_outside_the_repository_is_refused(repo, relpath):
    project = repo / "proj"
    with pytest.raises(CfngenError) as caught:
        readable(project / relpath, repository_root(project), what="CodeUri of Fn")
    assert "CodeUri of Fn" in caught.value.message and "outside the repository" in str(caught.value)


@pytest.mark.parametrize("relpath", ["../shared/lib.py", "linked-shared/lib.py", "docs"])
def test_a_read_path_may_leave_the_project_but_not_the_repository(repo, relpath):
    project = repo / "proj"
    found = readable(project / relpath, repository_root(project), what="x")
    assert within(repo, found)


def test_the_repository_is_the_git_top_else_the_project(tmp_path, repo):
    assert repository_root(repo / "proj" / "docs") == Path(os.path.realpath(repo))
    (tmp_path / "plain").mkdir()
    assert repository_root(tmp_path / "plain") == Path(os.path.realpath(tmp_path / "plain"))
    # A linked work tree or a submodule has a .git file, not a folder.
    (repo / "proj" / ".git").write_text("gitdir: elsewhere\n")
    assert repository_root(repo / "proj" / "docs") == Path(os.path.realpath(repo / "proj"))
