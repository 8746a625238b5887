"""Where a template's Lambda function (a custom resource's, a Lambda hook's) may take its code
from.

cfngen only reads these paths to run code: the function's `CodeUri` (or `Code`), its layers'
`ContentUri`, the `--handler` file and its folder, and every symbolic link inside those folders
(Python's imports follow them, as `sam build` does). They may leave the project, since monorepos
share `../shared`, but never the repository that holds it: the git work tree's top, else the
project itself (cfngen/_files/_contain.py). Each path that leaves the project is listed for the
user; one that leaves the repository is refused, named.
"""

from __future__ import annotations

import os
from pathlib import Path

from cfngen._errors import CfngenError
from cfngen._files._contain import readable, repository_root, within

#: Folders never searched for links: what `sam build` leaves out of a Python function's
#: package (virtual environments, caches), and every folder whose name starts with a dot.
_NOT_CODE = frozenset({"__pycache__", "node_modules", "venv", "env", "ENV", "htmlcov"})


class Reach:
    """The paths one run reads code from, checked against the project's repository."""

    def __init__(self, project: Path) -> None:
        self.project = Path(os.path.abspath(project))
        self.repository = repository_root(project)
        #: One line per path read from outside the project.
        self.notes: list[str] = []
        self._listed: set[str] = set()

    def code(self, path: Path, what: str, *, listed: bool = True) -> Path:
        """`path` (a code folder or file), its links followed, once it and every link inside
        it stay in the repository; else a CfngenError naming `what` and the path. Unless
        `listed` is false (a file of a folder that is listed), leaving the project is noted."""
        real = self._check(path, what, listed=listed)
        if real.is_dir():
            self._links(Path(os.path.abspath(path)), what)
        return real

    def _check(self, path: Path, what: str, *, listed: bool = True) -> Path:
        path = Path(os.path.abspath(path))  # named as `a/../b` reads: b
        try:
            real = readable(path, self.repository, what=what)
        except CfngenError as exc:
            if os.path.lexists(self.repository / ".git"):
                raise
            raise CfngenError(
                exc.message,
                f"{self.project} is in no git repository, so code may only come from inside "
                "it: make the folder that holds the template and its code a git repository, "
                "or pass that folder as the project",
            ) from None
        if listed and not within(self.project, real) and str(real) not in self._listed:
            self._listed.add(str(real))
            shown = os.path.relpath(real, self.project)
            self.notes.append(
                f"{what}: reads {shown}, outside the project {self.project}, inside its "
                f"repository {self.repository}"
            )
        return real

    def _links(self, folder: Path, what: str) -> None:
        """Check every symbolic link under `folder`, and under the folders they lead to."""
        visited = {os.path.realpath(folder)}
        pending = [folder]
        while pending:
            current = pending.pop()
            try:
                entries = sorted(os.scandir(current), key=lambda entry: entry.name)
            except OSError:
                continue
            for entry in entries:
                if entry.name.startswith(".") or entry.name in _NOT_CODE:
                    continue
                path = Path(entry.path)
                if entry.is_symlink():
                    shown = os.path.relpath(path, self.project)
                    target = self._check(path, f"{shown} (a link in the {what})")
                    if target.is_dir() and str(target) not in visited:
                        visited.add(str(target))
                        pending.append(path)
                elif entry.is_dir(follow_symlinks=False):
                    pending.append(path)
