"""The template cache's git repository on disk: made, written, and verified when it is read.

A git repository is its own integrity story: git names every object by the digest of its
content. So "verified on read" is, first, `git fsck` (every object whole, every ref pointing
at one: an emptied, truncated or changed object file is found) and, second, in
_template_cache.sync, each tag this cfngen ships compared with the tree of its packaged files
(`tree_id`). A repository that fails, or anything else standing where it should be (a file, a
link, a pipe, a folder without a repository), is moved aside and made again; the tags of other
cfngen versions that git can still read are carried over (they cannot be made from this
package), and those it cannot are named.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
import uuid
from collections.abc import Collection
from pathlib import Path

from cfngen._files import note
from cfngen._git import git

_JUNK_DIRS = frozenset({"__pycache__", ".git", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
_JUNK_SUFFIXES = (".pyc", ".pyo", "~", ".swp")


def verified(path: Path, shipped: Collection[str]) -> Path:
    """The repository at `path`, made if absent; a damaged one made again, and noted.
    `shipped`: the tags this cfngen makes itself (not carried over from a damaged one)."""
    problem = _problem(path)
    if problem is None:
        ensure_repo(path)
        return path
    aside = path.with_name(f".{path.name}.damaged-{uuid.uuid4().hex[:12]}")
    os.rename(path, aside)
    try:
        lost = ensure_repo(path, carry_from=aside, shipped=shipped)
    finally:
        if aside.is_dir() and not aside.is_symlink():
            shutil.rmtree(aside, ignore_errors=True)
        elif os.path.lexists(aside):
            os.unlink(aside)
    carried = (
        f"; tags of other cfngen versions it could not read back: {', '.join(lost)} (run "
        "`cfngen template sync` with a cfngen that ships them)"
        if lost
        else ""
    )
    note(
        f"{path}: the template cache was damaged ({problem}); cfngen made it again from the "
        f"templates it ships{carried}"
    )
    return path


def _problem(path: Path) -> str | None:
    """What is wrong with the repository at `path` (None: nothing, or nothing there yet)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(mode):
        return "it is a symbolic link"
    if not stat.S_ISDIR(mode):
        return "it is a file" if stat.S_ISREG(mode) else "it is not a folder"
    if not (path / ".git").is_dir() or (path / ".git").is_symlink():
        return "a folder without a repository"
    checked = git(
        ["fsck", "--no-dangling", "--no-progress", "--no-reflogs"],
        path,
        env={"GIT_DIR": str(path / ".git")},
        check=False,
    )
    if checked.returncode == 0:
        return None
    said = [line for line in checked.stderr.splitlines() if line.startswith(("error", "fatal"))]
    found = said[-1] if said else (checked.stdout.strip().splitlines() or ["git fsck failed"])[0]
    return found.removeprefix("error: ").removeprefix("fatal: ")


def ensure_repo(
    path: Path, *, carry_from: Path | None = None, shipped: Collection[str] = ()
) -> list[str]:
    """Make a repository at `path` unless one is there; with `carry_from` (a damaged one),
    copy over the version tags not `shipped` that git can still read from it, and return
    those it could not."""
    lost: list[str] = []
    if (path / ".git").is_dir():
        return lost
    path.parent.mkdir(parents=True, exist_ok=True)
    # Build it beside its final place and rename it in, so a concurrent cfngen never sees a
    # half-made repository; whoever renames second uses the winner's.
    staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        git(["init", "--quiet"], staging)
        if carry_from is not None:
            lost = _carry_tags(carry_from, staging, shipped)
        try:
            staging.rename(path)
        except OSError:
            if not (path / ".git").is_dir():
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return lost


def _carry_tags(damaged: Path, repo: Path, shipped: Collection[str]) -> list[str]:
    from packaging.version import InvalidVersion, Version

    if not (damaged / ".git").is_dir():
        return []
    listed = git(["for-each-ref", "--format=%(refname:strip=2)", "refs/tags"], damaged, check=False)
    lost = []
    for tag in listed.stdout.split() if listed.returncode == 0 else []:
        try:
            Version(tag)
        except InvalidVersion:
            continue
        if tag in shipped:
            continue
        fetched = git(
            ["fetch", "--quiet", "--no-tags", str(damaged), f"refs/tags/{tag}:refs/tags/{tag}"],
            repo,
            check=False,
        )
        if fetched.returncode != 0:
            lost.append(tag)
    return lost


def template_files(folder: Path) -> list[Path]:
    """The files of one template version, sorted, without editor and interpreter droppings."""
    found = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d not in _JUNK_DIRS)
        for name in sorted(filenames):
            if not name.endswith(_JUNK_SUFFIXES):
                found.append(Path(dirpath, name))
    return found


def tree_id(folder: Path) -> str:
    """The id of the tree `write_tree` would write for `folder` in a repository of SHA-1 object
    names, computed here: checking a tag costs no process per file (git's object format: a
    header `<type> <size>\\0`, and a tree's entries sorted with folders' names ending in /)."""
    root: dict[str, object] = {}
    for path in template_files(folder):
        node = root
        *folders, name = path.relative_to(folder).parts
        for part in folders:
            node = node.setdefault(part, {})  # type: ignore[assignment]
        data = path.read_bytes()
        node[name] = _object(b"blob", data)
    return _tree(root).hex()


def _tree(node: dict[str, object]) -> bytes:
    entries = []
    for name, child in node.items():
        raw = name.encode("utf-8", "surrogateescape")
        if isinstance(child, dict):
            entries.append((raw + b"/", b"40000 " + raw + b"\0" + _tree(child)))
        else:
            assert isinstance(child, bytes)
            entries.append((raw, b"100644 " + raw + b"\0" + child))
    return _object(b"tree", b"".join(entry for _, entry in sorted(entries)))


def _object(kind: bytes, body: bytes) -> bytes:
    return hashlib.sha1(b"%s %d\0%s" % (kind, len(body), body), usedforsecurity=False).digest()


def write_tree(repo: Path, folder: Path) -> str:
    """The git tree of `folder`'s files (all mode 100644, bytes as they are), written into
    `repo` without a work tree or its index."""
    files = template_files(folder)
    hashes = git(
        ["hash-object", "-w", "--no-filters", "--stdin-paths"],
        repo,
        stdin="".join(f"{f}\n" for f in files),
    ).stdout.split()
    entries = "".join(
        f"100644 {sha}\t{f.relative_to(folder).as_posix()}\n"
        for f, sha in zip(files, hashes, strict=True)
    )
    fd, index = tempfile.mkstemp(prefix="cfngen-index-")
    os.close(fd)
    os.unlink(index)  # git wants to create the index itself
    try:
        env = {"GIT_INDEX_FILE": index}
        git(["update-index", "--add", "--index-info"], repo, env=env, stdin=entries)
        return git(["write-tree"], repo, env=env).stdout.strip()
    finally:
        if os.path.exists(index):
            os.unlink(index)
