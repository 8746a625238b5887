"""Where a new project's CI file goes when the project is a folder of a larger git repository.

A forge reads CI files only at the top of a repository: GitHub runs the workflows in the root's
`.github/workflows/`, GitLab the root's `.gitlab-ci.yml`. A project made in a folder of a
repository (a monorepo's `types/widget/`) gets its CI files rendered for that folder (the
template's `ci_working_directory`: the jobs run there, their paths lead there), and then:

- GitHub: the workflow moves to the repository's root as
  `.github/workflows/cfngen-<the folder's path, dashed>.yml`, a name of its own per project. It
  never replaces a file: a workflow already there keeps its place, and init says so.
- GitLab: the root's `.gitlab-ci.yml` is the repository's own (one per repository), so init
  writes none there: the job stays in the project, written for the repository's root, and init
  says the line that includes it.

A folder whose path has other characters than letters, digits, '.', '_', '-' and '/' keeps the
files as made for a repository of its own, and init says why they will not run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from cfngen._errors import CfngenError
from cfngen._git import git_available, work_tree_root

_PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*(/[A-Za-z0-9_][A-Za-z0-9._-]*)*")
_GITHUB = ".github/workflows/cfngen.yml"
_GITLAB = ".gitlab-ci.yml"


@dataclass(frozen=True)
class Placement:
    #: The repository's root.
    repository: Path
    #: The project's folder, from the repository's root (posix).
    folder: str

    @property
    def plain(self) -> bool:
        """Whether the path can be written into the CI files as it is."""
        return bool(_PLAIN.fullmatch(self.folder))

    @property
    def workflow(self) -> str:
        """Where the project's GitHub workflow goes, from the repository's root."""
        return f".github/workflows/cfngen-{self.folder.replace('/', '-')}.yml"


def placement(dest: Path) -> Placement | None:
    """Where the project at `dest` is in a larger repository; None when it is no folder of one
    (not in a repository, or at its root)."""
    if not git_available():
        return None
    root = work_tree_root(dest)
    if root is None:
        return None
    try:
        folder = dest.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    return None if folder == "." else Placement(root, folder)


@dataclass
class Moved:
    """The GitHub workflow to write at the repository's root, and what to tell the user."""

    #: (path from the repository's root, bytes) to write there, if any.
    workflow: tuple[str, bytes] | None = None
    notes: list[str] = field(default_factory=list)


def place(project: Path, where: Placement) -> Moved:
    """Take the GitHub workflow out of the rendered `project` (it goes to the repository's
    root), and say what the user must know about the CI files."""
    github, gitlab = project / _GITHUB, project / _GITLAB
    moved = Moved()
    if not (github.is_file() or gitlab.is_file()):
        return moved
    forge = "GitHub" if github.is_file() else "GitLab"
    if not where.plain:
        moved.notes.append(
            f"{forge} does not run the CI file init wrote in the project: {forge} reads it at "
            f"the root of the repository ({where.repository}), and the project's path there, "
            f"{where.folder!r}, has characters other than letters, digits, '.', '_', '-' and "
            "'/'; move it there and point it at the project's folder yourself"
        )
        return moved
    if gitlab.is_file():
        moved.notes.append(
            f"GitLab runs only the repository's own {_GITLAB} (at {where.repository}): add "
            f"`include: [{{local: {where.folder}/{_GITLAB}}}]` to it; the job in "
            f"{where.folder}/{_GITLAB} is written for the repository's root"
        )
        return moved
    data = github.read_bytes()
    github.unlink()
    for folder in (github.parent, github.parent.parent):
        if not any(folder.iterdir()):
            folder.rmdir()
    target = where.repository / where.workflow
    if target.exists() or target.is_symlink():
        moved.notes.append(
            f"{target} exists, so the project's GitHub workflow was not written (init never "
            "replaces a file); GitHub runs workflows only from the repository's root: make "
            "one there that runs in the project's folder"
        )
        return moved
    moved.workflow = (where.workflow, data)
    return moved


def write_workflow(where: Placement, relpath: str, data: bytes) -> Path | str:
    """Create the workflow at the repository's root, all or nothing: where it went, or why it
    could not be written."""
    from cfngen._files import Transaction, reason

    transaction = Transaction(where.repository)
    transaction.mkdir(relpath.rsplit("/", 1)[0])
    transaction.create(relpath, data)
    try:
        transaction.commit()
    except (CfngenError, OSError) as exc:
        why = exc.message if isinstance(exc, CfngenError) else reason(exc)
        return (
            f"the project's GitHub workflow could not be written to {where.repository / relpath}"
            f": {why}; GitHub runs workflows only from the repository's root"
        )
    return where.repository / relpath
