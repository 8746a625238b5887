"""The project's files a package carries, read as the deployed handler will see them.

Lambda imports the handler from the zip's files alone, so a symbolic link in the package must
be packed as what it leads to: Python's import follows a linked folder (a monorepo's
`src/pkg/shared -> ../../../shared`) or file, and so does this reader, as far as the repository
that holds the project (cfngen/_files/_contain.py `readable`), never further. A link that
leads outside it, nowhere, or back into a folder it is inside stops the build by name.

Some files are never packed, whatever links lead to them: dotfiles and dot-folders (`.env`,
`.git`, tools' caches), cfngen's `*.cfngen-old` backups and bytecode compiled for this machine.
Every link followed and everything left out is recorded for the build's report.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from cfngen._errors import CfngenError
from cfngen._files import read_bytes, readable, reason, repository_root

_KINDS = {
    stat.S_IFIFO: "a named pipe",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


def left_out(name: str) -> str | None:
    """Why a file or folder called `name` is never packed, or None."""
    if name == "__pycache__" or name.endswith((".pyc", ".pyo")):
        return "bytecode, compiled for this machine's Python (Lambda compiles its own)"
    if name.endswith(".cfngen-old"):
        return "a backup cfngen saved of a file you had edited"
    if name.startswith("."):
        return "a dotfile: private settings (.env) or a tool's files (.git, caches)"
    return None


class ProjectFiles:
    """One build's reader of the project's files; `links` and `excluded` say what it did."""

    def __init__(self, project_root: Path) -> None:
        self.root = Path(project_root)
        self.repository = repository_root(self.root)
        self._real_root = Path(os.path.realpath(self.root))
        #: Path in the project (POSIX) -> where the link there leads, from the project.
        self.links: dict[str, str] = {}
        #: Path in the project (POSIX) -> why it was not packed.
        self.excluded: dict[str, str] = {}
        #: Every file read into the package, by its path in the project (through links).
        self.packed: set[str] = set()
        self._trees: dict[Path, dict[str, Path]] = {}

    def read(self, path: Path) -> bytes:
        """The bytes of a file the layout names (`.rpdk-config`, the schema, ...)."""
        shown = self._display(path)
        data = read_bytes(self._resolve(path, shown), display=shown, hint="the package needs it")
        self.packed.add(shown)
        return data

    def tree(self, folder: Path, *, recursive: bool = True) -> dict[str, Path]:
        """The files to pack from `folder`, by their path inside it (`shared/util.py`), each
        the real file to read; without `recursive`, the files directly inside it."""
        if folder not in self._trees:
            shown = self._display(folder)
            real = self._resolve(folder, shown)
            files: dict[str, Path] = {}
            self._walk(real, shown, "", (str(real),), files, recursive=recursive)
            self._trees[folder] = files
        return self._trees[folder]

    def _walk(
        self,
        folder: Path,
        shown: str,
        prefix: str,
        ancestors: tuple[str, ...],
        files: dict[str, Path],
        *,
        recursive: bool,
    ) -> None:
        with os.scandir(folder) as scan:
            entries = sorted(scan, key=lambda e: e.name)
        for entry in entries:
            here, name = f"{shown}/{entry.name}", prefix + entry.name
            why = left_out(entry.name)
            if why is not None:
                self.excluded[here] = why
                continue
            path = self._follow(Path(entry.path), here) if entry.is_symlink() else Path(entry.path)
            mode = path.stat().st_mode
            if stat.S_ISREG(mode):
                files[name] = path
                self.packed.add(here)
            elif not stat.S_ISDIR(mode):
                self.excluded[here] = f"{_KINDS.get(stat.S_IFMT(mode), 'not a file')}, not a file"
            elif recursive:
                real = os.path.realpath(path)
                if real in ancestors:
                    raise CfngenError(
                        f"{here}: a symbolic link to {os.readlink(entry.path)}, a folder it is "
                        "inside: packing it would never end (and Python would import the "
                        "package again under every name)",
                        "remove the link, or point it at a folder that does not hold it",
                    )
                self._walk(path, here, name + "/", (*ancestors, real), files, recursive=True)

    def _follow(self, link: Path, shown: str) -> Path:
        """Where the symbolic link `link` leads, if that is in the repository and exists."""
        real = readable(link, self.repository, what=f"the link {shown}")
        try:
            os.stat(link)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise CfngenError(f"{shown}: {reason(exc)}", "remove the link") from None
            raise CfngenError(
                f"{shown}: a symbolic link to {os.readlink(link)}, which does not exist; the "
                "deployed handler could not import it",
                "restore what it leads to (is part of the repository not checked out?) or "
                "remove the link",
            ) from None
        self.links[shown] = self._from_root(real)
        return real

    def _resolve(self, path: Path, shown: str) -> Path:
        """`path` with its links followed, if that is in the repository; recorded as a
        followed link when a link on the way made it lead elsewhere."""
        real = readable(path, self.repository, what=shown)
        if real != self._real_root / shown:
            self.links[shown] = self._from_root(real)
        return real

    def _display(self, path: Path) -> str:
        return Path(path).relative_to(self.root).as_posix()

    def _from_root(self, real: Path) -> str:
        return Path(os.path.relpath(real, self._real_root)).as_posix()
