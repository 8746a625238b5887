"""`cfngen init`: render the project template, generate the derived files, make one commit.

Everything happens in a private workspace (cfngen._files.Workspace: a folder a killed init's
successor sweeps away) and is then moved into place in one step: a new destination is one
rename; into an existing folder the files go in one transaction that only ever creates files
(an existing file is never replaced, even with --force: it is listed as kept). A failure,
Ctrl-C, SIGTERM or SIGHUP leaves the destination as it was; so does a failing git step.

With --force, generate runs on the project as it will be: the files the folder keeps (its own
schema, say) replace the template's in the workspace first, so nothing is derived from a file
the project will not have. When generate fails on them (an invalid schema kept), init says so
and derives nothing.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._editor import export_schemas, wants_schemas
from cfngen._errors import CfngenError
from cfngen._files import (
    Transaction,
    Workspace,
    commit_then_report,
    raised_while_interrupted,
    reason,
    recover,
    signals_deferred,
    sweep,
)
from cfngen._git import git, git_available, has_identity, work_tree_root
from cfngen._init import _ci, _copier, _template_cache
from cfngen._init._existing import files_of, not_derived, set_aside_existing, take_existing
from cfngen._render import Rendered

if TYPE_CHECKING:
    from cfngen._generate import GenerateResult
    from cfngen._kind._init_spec import Answers

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
    #: What the user should know: no git, an enclosing repository.
    notes: list[str] = field(default_factory=list)
    #: Files of the project not written because the folder already had a file there (--force).
    kept: list[str] = field(default_factory=list)
    #: Files written whose handlers are stubs (`# STUB:` lines), for the next steps.
    stubbed: list[str] = field(default_factory=list)
    #: The CI workflow written at the root of the repository the project is a folder of.
    workflow: Path | None = None

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
        if self.workflow is not None:
            text.out(
                f"  CI: {self.workflow} (GitHub runs workflows from the repository's root; "
                "it runs in the project's folder)"
            )
        if self.generated is not None:
            for warning in self.generated.warnings:
                text.warning(warning)
        for note in self.notes:
            text.warning(note)
        if self.kept:
            text.warning(
                f"kept {len(self.kept)} file(s) already in the folder; the project's versions "
                f"were not written: {', '.join(self.kept)}"
            )
        text.out("Next:")
        if where != ".":
            text.out(f"  cd {where}")
        for step in self.answers.next_steps(self.stubbed):
            text.out(f"  {step}")


#: What marks a folder as a project already: init never writes into one (upgrade does).
_PROJECT_MARKERS = (".rpdk-config", _copier.ANSWERS_FILE)


def check_destination(dest: Path, *, force: bool) -> None:
    """Refuse a destination we must not write into; called before any question is asked.
    Also clears what an init killed here earlier left behind."""
    if os.path.lexists(dest) and not dest.is_dir():
        raise CfngenError(f"{dest} exists and is not a folder", "choose another destination")
    if not dest.is_dir():
        return
    recover(dest)
    if sweep(dest, "init"):
        raise CfngenError(
            f"another cfngen init is creating a project in {dest}",
            "wait for it to finish, or choose another folder",
        )
    for marker in _PROJECT_MARKERS:
        if os.path.lexists(dest / marker):
            raise CfngenError(
                f"a project exists here ({dest / marker}); init never writes into one",
                "use `cfngen upgrade` to bring it to this cfngen's template, or choose an "
                "empty or new folder",
            )
    # A fresh clone of an empty repository holds only .git: that is an empty project folder.
    if any(p.name != ".git" for p in dest.iterdir()) and not force:
        raise CfngenError(
            f"{dest} is not empty",
            "choose an empty or new folder, or pass --force to add the project's files to it "
            "(a file already there is kept, never replaced)",
        )


def init_project(
    dest: Path,
    answers: Answers,
    *,
    force: bool = False,
    use_git: bool = True,
    template_version: str | None = None,
    generate: Callable[[Path], GenerateResult] | None = None,
) -> InitResult:
    """`generate(project)` replaces `cfngen generate` on the rendered project (tests pass a
    failing one)."""
    from cfngen._extras import require
    from cfngen._generate import generate_project

    require("init", "`cfngen init`")
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
            _template_cache.sync(kind, anywhere=True)
        except CfngenError as exc:
            # The project does not need the cache; only its later upgrades do.
            result.notes.append(
                f"{exc.message}; `cfngen upgrade` will need it: fix that, then run "
                "`cfngen template sync`"
            )

    # A folder of a larger repository: its CI files are made for that folder (_ci.py).
    where = _ci.placement(dest)
    existed = dest.is_dir()
    created_parents = _missing_parents(dest)
    # A new destination is built beside it, so the final move is one rename on one file
    # system; an existing one inside it, so a killed init's leftovers stay in that folder.
    stage_parent = dest if existed else dest.parent
    workspace: Workspace | None = None
    moved = False
    try:
        try:
            stage_parent.mkdir(parents=True, exist_ok=True)
            sweep(stage_parent, "init")
            with signals_deferred():
                workspace = Workspace(stage_parent, "init")
        except OSError as exc:
            raise CfngenError(
                f"cannot write to {stage_parent}: {reason(exc)}",
                _hint(exc, "choose another folder"),
            ) from None
        project = workspace.path / "project"
        try:
            # The packaged folder is byte for byte the cache's tag (sync just made sure), and
            # rendering it skips copier's clone and checkout of the cache: ~0.3 s of every init.
            data = answers.copier_data()
            if (
                where is not None
                and where.plain
                and _template_cache.has_question(versions[version].path, "ci_working_directory")
            ):
                data["ci_working_directory"] = where.folder
            _copier.render(str(versions[version].path), project, data, None)
            _copier.pin_template(project, src, version)
            kept = take_existing(project, dest) if existed else []
            try:
                result.generated = (generate or generate_project)(project)
            except CfngenError as exc:
                if not kept:
                    raise
                result.notes.append(not_derived(kept, exc))
            # The meta-schemas the editor settings of the template point at.
            if wants_schemas(project):
                export_schemas(project)
            ci = _ci.place(project, where) if where is not None else None
            if ci is not None:
                result.notes.extend(ci.notes)
            if existed:
                result.kept = sorted({*kept, *set_aside_existing(project, dest)})
            result.files = files_of(project)
            result.stubbed = _stubbed(project, result.files)
            if use_git:
                _git_step(project, dest, answers, version, result)
        except OSError as exc:
            if raised_while_interrupted(exc):
                # A library's cleanup (copier removes what it rendered) failed while an
                # interrupt went through it: the interrupt is what happened.
                raise KeyboardInterrupt from None
            raise CfngenError(
                f"cannot write the project: {reason(exc)}; nothing was created",
                _hint(exc, "fix that and retry"),
            ) from None
        except CfngenError as exc:
            raise _in_destination(exc, project, dest) from None
        commit_then_report(
            lambda: _move_into_place(project, dest, existed=existed), dest, result.files
        )
        moved = True
        if where is not None and ci is not None and ci.workflow is not None:
            # After the project is in place, which it does not belong to: if it cannot be
            # written, the project stays and init says so.
            written = _ci.write_workflow(where, *ci.workflow)
            if isinstance(written, Path):
                result.workflow = written
            else:
                result.notes.append(written)
    finally:
        if workspace is not None:
            workspace.close()
        if not moved:
            _remove(created_parents)
    return result


def _in_destination(error: CfngenError, project: Path, dest: Path) -> CfngenError:
    """An error from building the project in the workspace, told about the destination (the
    workspace is cfngen's business), saying that nothing was created."""
    message = error.message.replace(str(project), str(dest))
    message = message.replace("; everything was put back as it was", "")
    if "nothing was" not in message:
        message += "; nothing was created"
    return CfngenError(message, error.hint, exit_code=error.exit_code)


def _hint(exc: OSError, otherwise: str) -> str:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "free some space and retry"
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return "choose a folder you can write to"
    return otherwise


def _remove(folders: list[Path]) -> None:
    for folder in folders:
        with contextlib.suppress(OSError):
            folder.rmdir()


def _stubbed(project: Path, files: list[str]) -> list[str]:
    """The Python files among `files` that hold a handler stub's marker line."""
    from cfngen._init._stubs import MARKER

    return [
        rel
        for rel in files
        if rel.endswith(".py")
        and MARKER in (project / rel).read_text(encoding="utf-8", errors="replace")
    ]


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
        # A project whose first commit failed (a full disk, a broken git) is not "Created".
        raise CfngenError(
            f"{exc.message}; nothing was created",
            "fix that (free some space, check `git commit` works) and retry, or pass --no-git",
        ) from None


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
        try:
            project.rename(dest)
        except OSError as exc:
            if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
                raise CfngenError(
                    f"{dest} was created while init was running (another cfngen init?); "
                    "nothing was written to it",
                    "choose another folder, or retry when the other one has finished",
                ) from None
            raise
        return
    transaction = Transaction(dest)
    for path in sorted(project.rglob("*")):
        if path.is_dir() and not path.is_symlink():
            transaction.mkdir(path.relative_to(project).as_posix())
            continue
        # Only creations: a file that appeared meanwhile fails the whole move, unchanged.
        transaction.create(
            path.relative_to(project).as_posix(),
            path.read_bytes(),
            mode=path.stat().st_mode & 0o7777,
        )
    transaction.commit()
