"""A project's requirements as cfngen hands them to pip: pip reads the project, never writes it.

pip builds a local project it is asked for (`-e .`, `./lib`, `file:` URLs, `name @ file:...`)
where it lies, and setuptools then leaves `<name>.egg-info` and `build/` in the user's folder
(`cfngen test`, `invoke` and `build` made them). So every such folder is copied into a scratch
folder first and pip is pointed at the copy, with the scratch folder as its working directory
(where it would also clone an editable VCS requirement without a virtualenv). An editable
requirement becomes a plain one: cfngen installs into a `--target` folder (a run's, a
package's), where the `.pth` file of an editable install is never read.

Paths are read as pip reads them: a requirement's path from the folder pip ran in (the
requirements file's, as cfngen has always run it), an included file (`-r`, `-c`) from the file
that includes it, `--find-links` from the file when it exists there. What is copied is held to
the rule for what cfngen reads to run code: it may leave the project, never the repository
(cfngen/_files/_contain.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from cfngen._files import readable, repository_root

#: A line including another requirements file: its option, path and the rest of the line.
INCLUDE = re.compile(r"^(-r|--requirement|-c|--constraint)(?:\s*=\s*|\s+)(\S+)(.*)$")
_EDITABLE = re.compile(r"^(?:-e|--editable)(?:\s*=\s*|\s+)(\S+)(.*)$")
_FIND_LINKS = re.compile(r"^(-f|--find-links)(?:\s*=\s*|\s+)(\S+)(.*)$")
_DIRECT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*(?:\[[^\]]*\])?)\s*@\s*(file:\S+)(.*)$")
_EXTRAS = re.compile(r"^(.*?)(\[[^\]]*\])?$")
#: Left out of a copy: what a build leaves behind, and what no build reads.
_NOT_COPIED = {".git", ".hg", ".svn", "build", "dist", ".venv", "venv", ".tox", ".nox"}


def requirement_lines(text: str) -> list[str]:
    """The lines of a requirements file as pip reads them: continuations joined, comments and
    blank lines left out."""
    lines = (
        re.sub(r"(^|\s)#.*$", "", raw).strip() for raw in text.replace("\\\n", "").splitlines()
    )
    return [line for line in lines if line]


@dataclass
class PipInput:
    #: The requirements file to give pip (`-r`); its folder is pip's working directory.
    path: Path
    #: A digest of the local projects copied for pip ("" for none): their content is part of
    #: what gets installed, which the requirements' text alone does not say.
    local: str = ""
    #: The copies of those local projects: pip resolves them but, unlike a distribution from
    #: an index, `pip download` saves no file of them, so a package build builds them itself.
    folders: tuple[Path, ...] = ()


@contextlib.contextmanager
def pip_input(requirements: Path, text: str | None = None) -> Iterator[PipInput]:
    """`requirements` (or `text` in its place, read as if it were that file) rewritten for
    pip in a scratch folder that lasts as long as the block."""
    scratch = Path(tempfile.mkdtemp(prefix="cfngen-pip-"))
    try:
        rewriter = _Rewriter(requirements.parent.absolute(), scratch)
        body = text if text is not None else requirements.read_text(encoding="utf-8")
        path = rewriter.rewrite(body, requirements.absolute(), scratch / "requirements.txt")
        yield PipInput(
            path,
            rewriter.digest.hexdigest() if rewriter.copied else "",
            tuple(rewriter.copied.values()),
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


class _Rewriter:
    def __init__(self, base: Path, scratch: Path) -> None:
        #: The folder pip would have run in: relative requirement paths start there.
        self.base = base
        self.repository = repository_root(base)
        self.scratch = scratch
        self.copied: dict[Path, Path] = {}
        self.digest = hashlib.sha256()
        self._files = 0

    def rewrite(self, text: str, source: Path, target: Path) -> Path:
        """`text`, read from `source`, written to `target` for pip."""
        lines = [self._line(line, source) for line in requirement_lines(text)]
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return target

    def _line(self, line: str, source: Path) -> str:
        if include := INCLUDE.match(line):
            option, path, rest = include.groups()
            included = readable(
                source.parent / path, self.repository, what=f"{source} includes {path}"
            )
            self._files += 1
            copy = self.scratch / f"requirements-{self._files}.txt"
            text = included.read_text(encoding="utf-8")
            return f"{option} {self.rewrite(text, included, copy)}{rest}"
        if editable := _EDITABLE.match(line):
            where, rest = editable.groups()
            local = self._local(where, source)
            return f"{local}{rest}" if local is not None else line
        if links := _FIND_LINKS.match(line):
            option, where, rest = links.groups()
            if "://" not in where:
                beside = source.parent / where
                where = str((beside if beside.exists() else self.base / where).absolute())
            return f"{option} {where}{rest}"
        if direct := _DIRECT.match(line):
            name, url, rest = direct.groups()
            local = self._local(url, source)
            return f"{name} @ {Path(local).as_uri()}{rest}" if local is not None else line
        if line.startswith("-"):
            return line
        requirement, sep, markers = line.partition(";")
        local = self._local(requirement.strip(), source)
        return line if local is None else f"{local}{' ;' + markers if sep else ''}"

    def _local(self, where: str, source: Path) -> str | None:
        """The copy to give pip in place of `where` (with its extras) when it names a local
        folder, as pip resolves it; None when it names no folder (a distribution, a URL, an
        archive, which pip unpacks elsewhere)."""
        if where.startswith("file:"):
            path, extras = unquote(urlparse(where).path), ""
        else:
            match = _EXTRAS.match(where)
            assert match is not None
            path, extras = match.group(1), match.group(2) or ""
            if not (path.startswith((".", "/", "~")) or "/" in path or os.sep in path):
                return None
        folder = (self.base / Path(path).expanduser()).absolute()
        if not folder.is_dir():
            return None
        folder = readable(folder, self.repository, what=f"{source} names {where}")
        if folder not in self.copied:
            copy = self.scratch / f"local-{len(self.copied)}" / (folder.name or "project")
            shutil.copytree(folder, copy, symlinks=True, ignore=_ignored(folder))
            self.copied[folder] = copy
            for file in sorted(p for p in copy.rglob("*") if p.is_file() and not p.is_symlink()):
                self.digest.update(file.relative_to(copy).as_posix().encode() + b"\0")
                self.digest.update(file.read_bytes())
        return f"{self.copied[folder]}{extras}"


def _ignored(top: Path) -> Callable[[str, list[str]], set[str]]:
    """shutil.copytree's ignore: build leftovers at the top, bytecode and metadata anywhere."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        skipped = {n for n in names if n == "__pycache__" or n.endswith(".egg-info")}
        if Path(folder) == top:
            skipped |= _NOT_COPIED.intersection(names)
        return skipped

    return ignore
