"""The only place cfngen calls copier: render, update and recopy, always unattended.

copier never prompts here (cfngen asks the questions itself), never runs tasks, and ignores the
user's copier settings file so the same answers always give the same project. copier gives
every file it writes the template file's mode, whatever the user's umask; cfngen puts the
umask back on new files and the earlier mode back on files that were there (`_modes_kept`).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError, ExitCode

ANSWERS_FILE = ".copier-answers.yml"


@contextlib.contextmanager
def _copier_errors(action: str) -> Iterator[None]:
    """copier's errors as CfngenError. Its warnings (about dirty local templates, old copier
    versions) concern template authors, not cfngen users: they are not shown."""
    from copier.errors import CopierError, UserMessageError

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            yield
        except UserMessageError as exc:
            raise CfngenError(f"{action} failed: {exc}", None, exit_code=ExitCode.FAILED) from None
        except CopierError as exc:
            raise CfngenError(
                f"{action} failed: {type(exc).__name__}: {exc}", None, exit_code=ExitCode.FAILED
            ) from None


def _settings() -> Any:
    import copier

    # An empty Settings: the user's copier settings (default answers, trusted prefixes) must
    # not change what cfngen renders.
    return copier.Settings()


def _options() -> dict[str, Any]:
    """What every copier run of cfngen's gets: no questions, no tasks, no untrusted extensions."""
    return {
        "defaults": True,
        "overwrite": True,
        "quiet": True,
        "unsafe": False,
        "skip_tasks": True,
        "settings": _settings(),
    }


@contextlib.contextmanager
def _modes_kept(root: Path) -> Iterator[None]:
    """Files under `root` keep their mode; files copier adds get the umask applied."""
    from cfngen._files import umask

    def modes() -> dict[Path, int]:
        if not root.is_dir():
            return {}
        return {
            p: stat.S_IMODE(p.lstat().st_mode)
            for p in root.rglob("*")
            if p.is_file() and not p.is_symlink() and ".git" not in p.relative_to(root).parts
        }

    before = modes()
    yield
    mask = ~umask()
    for path, mode in modes().items():
        wanted = before.get(path, mode & mask)
        if mode != wanted:
            os.chmod(path, wanted)


@contextlib.contextmanager
def _recorded_paths_lead_to_the_cache(needed: bool = True) -> Iterator[None]:
    """Answers files record the template as `~/.cfngen/templates/<kind>` (the same on every
    machine), and copier expands that `~` itself, from HOME. Where cfngen keeps a template
    elsewhere (CFNGEN_HOME, or a temporary repository when the home cannot be used), HOME is,
    for the copier run, a folder whose `.cfngen/templates/<kind>` leads there; git still reads
    the user's own configuration files through links beside it."""
    from cfngen._files import scratch_folder
    from cfngen._files._home import DEFAULT
    from cfngen._init._template_cache import located

    moved = located() if needed else {}
    if not moved:
        yield
        return
    real = Path(os.path.expanduser("~"))
    fake = scratch_folder("cfngen-home-")
    templates = fake / Path(DEFAULT).name / "templates"
    templates.mkdir(parents=True)
    for kind, repo in moved.items():
        (templates / kind).symlink_to(repo, target_is_directory=True)
    for name in (".gitconfig", ".config"):
        if os.path.lexists(real / name):
            (fake / name).symlink_to(real / name)
    before = os.environ.get("HOME")
    os.environ["HOME"] = str(fake)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = before


def render(src: str, dest: Path, data: dict[str, Any], ref: str | None) -> None:
    """Render the template at `src` (a git repository, or a plain folder) into `dest`."""
    import copier

    with (
        _copier_errors("rendering the project template"),
        _modes_kept(dest),
        _recorded_paths_lead_to_the_cache(src.startswith("~")),
    ):
        copier.run_copy(src, dest, data=data, vcs_ref=ref, **_options())


def update(root: Path, ref: str) -> None:
    """copier update with a real three-way merge: conflict markers only where both sides
    changed ("rej" would drop user edits that merely share a hunk with a template change)."""
    import copier

    with (
        _copier_errors("updating the project from its template"),
        _modes_kept(root),
        _untracked_files_unseen(),
        _recorded_paths_lead_to_the_cache(),
    ):
        copier.run_update(root, vcs_ref=ref, conflict="inline", skip_answered=True, **_options())


@contextlib.contextmanager
def _untracked_files_unseen() -> Iterator[None]:
    """copier refuses a project whose `git status` lists anything ("dirty"), files git does
    not track included. cfngen checked the tracked files itself and lets the user keep the
    others, having made sure the new template writes none of them (_worktree.py): copier's
    check is left out for the update. (Hiding them from git's status instead would hide the
    `*.rej` files copier finds its merge's rejected hunks with.)"""
    from unittest import mock

    from copier._subproject import Subproject

    with mock.patch.object(Subproject, "is_dirty", lambda self: False):
        yield


def recopy(root: Path, ref: str) -> None:
    import copier

    with (
        _copier_errors("re-rendering the project template"),
        _modes_kept(root),
        _recorded_paths_lead_to_the_cache(),
    ):
        copier.run_recopy(root, vcs_ref=ref, skip_answered=True, **_options())


def read_answers(root: Path) -> dict[str, Any] | None:
    """The project's answers file, or None when it has none."""
    import yaml

    path = root / ANSWERS_FILE
    if not path.is_file():
        return None
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise CfngenError(
            f"{path}: cannot read it: {exc}",
            f"restore it from git (`git checkout -- {ANSWERS_FILE}`)",
        ) from None
    if not isinstance(data, dict):
        raise CfngenError(
            f"{path}: expected a mapping of answers",
            f"restore it from git (`git checkout -- {ANSWERS_FILE}`)",
        )
    return data


def pin_template(root: Path, src: str, version: str) -> None:
    """Record the cache at `src`, tag `version`, as the template a project was rendered from.

    `cfngen init` renders the packaged folder of that version, whose files are exactly that
    tag's (and without git there is no cache at all); with this, the answers file is the one
    copier writes when it renders the tag itself, so `copier update` works the same.
    """
    from cfngen._files import write_atomic

    path = root / ANSWERS_FILE
    text = path.read_text(encoding="utf-8")
    text, count = re.subn(
        r"(?m)^_src_path: .*$", f"_commit: {version}\n_src_path: {src}", text, count=1
    )
    if count != 1:
        raise CfngenError(f"{path}: copier wrote no _src_path", "this is a bug in the template")
    write_atomic(path, text)
