"""`cfngen init`: render the project template, generate the derived files, make one commit.

Everything happens in a staging folder that is moved into place at the end, so a failure or
Ctrl-C leaves the destination as it was.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._errors import CfngenError
from cfngen._init import _copier, _template_cache
from cfngen._init._git import git, git_available, has_identity, work_tree_root
from cfngen._render import Rendered

if TYPE_CHECKING:
    from cfngen._generate import GenerateResult
    from cfngen._kinds import Answers

#: Who makes the first commit when git has no identity configured. Passed for that one commit
#: only, never written to the repository's config, so the user's own commits stay theirs.
_FALLBACK_IDENTITY = {
    "GIT_AUTHOR_NAME": "cfngen",
    "GIT_AUTHOR_EMAIL": "cfngen@users.noreply.invalid",
    "GIT_COMMITTER_NAME": "cfngen",
    "GIT_COMMITTER_EMAIL": "cfngen@users.noreply.invalid",
}


@dataclass
class InitResult:
    root: Path
    answers: Answers
    template_version: str
    #: Files written, relative to root, sorted (without .git/).
    files: list[str] = field(default_factory=list)
    generated: GenerateResult | None = None
    #: Short id of the commit made, when one was.
    commit: str | None = None
    #: What the user should know: no git, an enclosing repository, a failed commit.
    notes: list[str] = field(default_factory=list)

    def render(self, text: Rendered, *, where: str) -> None:
        """What was made and what to do next; `where` is the folder as the user should type
        it to get there."""
        details = [f"{len(self.files)} files", f"template {self.template_version}"]
        details += self.answers.details()
        text.out(
            f"{text.paint_out('Created', 'ok')} {self.answers.title} in {where} "
            f"({', '.join(details)})"
        )
        if self.commit:
            text.out(f"  git: one commit, {self.commit}")
        if self.generated is not None:
            for warning in self.generated.warnings:
                text.warning(warning)
        for note in self.notes:
            text.warning(note)
        text.out("Next:")
        if where != ".":
            text.out(f"  cd {where}")
        for step in self.answers.next_steps():
            text.out(f"  {step}")


def check_destination(dest: Path, *, force: bool) -> None:
    """Refuse a destination we must not write into; called before any question is asked."""
    if dest.exists() and not dest.is_dir():
        raise CfngenError(f"{dest} exists and is not a folder", "choose another destination")
    # A fresh clone of an empty repository holds only .git: that is an empty project folder.
    if dest.is_dir() and any(p.name != ".git" for p in dest.iterdir()) and not force:
        raise CfngenError(
            f"{dest} is not empty",
            "choose an empty or new folder, or pass --force to write the project into it "
            "(files with the same names are overwritten)",
        )


def init_project(
    dest: Path,
    answers: Answers,
    *,
    force: bool = False,
    use_git: bool = True,
    template_version: str | None = None,
) -> InitResult:
    from cfngen._generate import generate_project

    dest = dest.absolute()
    check_destination(dest, force=force)
    kind = answers.template
    versions = {t.tag: t for t in _template_cache.packaged_versions(kind)}
    version = template_version or _template_cache.live_version(kind).tag
    if version not in versions:
        raise CfngenError(
            f"this cfngen has no {kind} template {version}",
            f"use one of {', '.join(versions)}",
        )
    for key, value in answers.copier_data().items():
        # An earlier template version lacks later questions; one switched on must exist.
        if value is True and not _template_cache.has_question(versions[version].path, key):
            raise CfngenError(
                f"the {kind} template {version} has no {key}",
                f"drop --template-version to use template {_template_cache.live_version(kind).tag}",
            )
    result = InitResult(root=dest, answers=answers, template_version=version)
    result.notes.extend(answers.notes())
    have_git = git_available()
    src = _template_cache.src_path(kind)
    if have_git:
        try:
            _template_cache.sync(kind)
        except CfngenError as exc:
            # The project does not need the cache; only its later upgrades do.
            result.notes.append(
                f"{exc.message}; `cfngen upgrade` will need it: fix that, then run "
                "`cfngen template sync`"
            )

    existed = dest.exists()
    created_parents = _missing_parents(dest)
    # Stage beside the destination (or inside it when it exists) so the final move is a
    # rename on one file system.
    stage_parent = dest if existed else dest.parent
    try:
        stage_parent.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=".cfngen-init-", dir=stage_parent))
    except OSError as exc:
        for folder in created_parents:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise CfngenError(
            f"cannot write to {stage_parent}: {exc.strerror or exc}", "choose another folder"
        ) from None
    moved = False
    try:
        project = stage / "project"
        # The packaged folder is byte for byte the cache's tag (sync just made sure), and
        # rendering it skips copier's clone and checkout of the cache: ~0.3 s of every init.
        _copier.render(str(versions[version].path), project, answers.copier_data(), None)
        _copier.pin_template(project, src, version)
        result.generated = generate_project(project)
        result.files = sorted(
            p.relative_to(project).as_posix()
            for p in project.rglob("*")
            if p.is_file() and ".git" not in p.relative_to(project).parts
        )
        if use_git:
            _git_step(project, dest, answers, version, result)
        _move_into_place(project, dest, existed=existed)
        moved = True
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        if not moved:
            for folder in created_parents:
                with contextlib.suppress(OSError):
                    folder.rmdir()
    return result


def _git_step(
    project: Path, dest: Path, answers: Answers, version: str, result: InitResult
) -> None:
    if not git_available():
        result.notes.append(
            "git is not installed, so the project is not a git repository; `cfngen upgrade` "
            "needs one: install git, then `git init && git add -A && git commit`"
        )
        return
    enclosing = work_tree_root(dest.parent if not dest.exists() else dest)
    if enclosing is not None:
        result.notes.append(
            f"{dest} is inside the git repository at {enclosing}: no new repository was "
            "made; commit the new files there"
        )
        return
    try:
        git(["init", "--quiet"], project)
        git(["add", "--all"], project)
        env = None if has_identity(project) else _FALLBACK_IDENTITY
        git(
            [
                "commit",
                "--quiet",
                "--no-verify",
                "--no-gpg-sign",
                "-m",
                f"Create {answers.title} with cfngen init (template {version})",
            ],
            project,
            env=env,
        )
        result.commit = git(["rev-parse", "--short", "HEAD"], project).stdout.strip()
    except CfngenError as exc:
        result.notes.append(f"{exc.message}; the files are there, commit them yourself")


def _missing_parents(dest: Path) -> list[Path]:
    """The ancestors of `dest` that do not exist yet, deepest first."""
    missing = []
    for parent in dest.parents:
        if parent.exists():
            break
        missing.append(parent)
    return missing


def _move_into_place(project: Path, dest: Path, *, existed: bool) -> None:
    if not existed:
        project.rename(dest)
        return
    for entry in sorted(project.iterdir()):
        _merge(entry, dest / entry.name)


def _merge(src: Path, dst: Path) -> None:
    """Move `src` to `dst`, merging folders and replacing files (only --force gets here with
    anything already at `dst`)."""
    if src.is_dir() and not src.is_symlink():
        if dst.is_dir() and not dst.is_symlink():
            for child in sorted(src.iterdir()):
                _merge(child, dst / child.name)
            return
        if dst.exists() or dst.is_symlink():
            dst.unlink()
        src.rename(dst)
        return
    if dst.is_dir() and not dst.is_symlink():
        shutil.rmtree(dst)
    os.replace(src, dst)
