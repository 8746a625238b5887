"""`cfngen upgrade`: move a project to this cfngen's template with a three-way merge.

Everything copier would refuse is checked first and refused in one sentence that says what to
do. The merge runs on a clean git tree and is rolled back if it fails, so the project is either
upgraded or exactly as it was; the result is left uncommitted for the user to review.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from cfngen._errors import CfngenError
from cfngen._files import recover
from cfngen._git import git, require_git, work_tree_root
from cfngen._init import _copier, _template_cache
from cfngen._init._copier import ANSWERS_FILE
from cfngen._init._gitignore import IgnoredLines, ignore_cfngen_files
from cfngen._init._worktree import WorkTree
from cfngen._render import Rendered, error_lines

if TYPE_CHECKING:
    from cfngen._generate import GenerateResult

CONFLICT_MARKERS = (b"<<<<<<< before updating", b">>>>>>> after updating")


@dataclass
class UpgradeResult:
    root: Path
    from_version: str | None
    to_version: str
    up_to_date: bool = False
    recopied: bool = False
    #: Files the upgrade changed, added or deleted (relative to root, sorted).
    changed: list[str] = field(default_factory=list)
    #: Files left with conflict markers: both the user and the template changed those lines.
    conflicts: list[str] = field(default_factory=list)
    #: Files the new template no longer has, deleted although the user had edited them
    #: (their last content is in git: `git checkout HEAD -- FILE`).
    deleted_edited: list[str] = field(default_factory=list)
    #: Files the new template no longer has because generate now derives them (a resource's
    #: inputs/): the user had edited them, so they were kept as the user's.
    kept_edited: list[str] = field(default_factory=list)
    generated: GenerateResult | None = None
    #: Why `cfngen generate` failed after the upgrade, when it did.
    generate_error: str | None = None
    #: file -> functions the user wrote, to which the merge would have added a stub marker.
    not_stubs: dict[str, list[str]] = field(default_factory=dict)
    #: Lines appended to the project's .gitignore (the names of the files cfngen leaves
    #: while it writes, which the template lacked when the project was made), or why they
    #: could not be (_gitignore.py).
    ignored: IgnoredLines | None = None

    @property
    def failed(self) -> bool:
        """Conflicts to resolve, or generate failed afterwards."""
        return bool(self.conflicts) or self.generate_error is not None

    def render(self, text: Rendered) -> None:
        if self.up_to_date:
            changed = self.ignored is not None and self.ignored.added
            more = "; only .gitignore changed" if changed else "; nothing to do"
            text.out(f"Already on template {self.to_version}{more}.")
            if self.ignored is not None:
                self.ignored.render(text)
            return
        verb = "Re-rendered" if self.recopied else "Upgraded"
        source = f"from template {self.from_version} " if self.from_version else ""
        text.out(
            f"{text.paint_out(verb, 'ok')} {source}to template {self.to_version}: "
            f"{len(self.changed)} file(s) changed, nothing committed (review with `git diff`)"
        )
        for path in self.changed:
            text.out(f"  {path}")
        for path in self.conflicts:
            text.warning(
                f"{path}: conflict where both you and the template changed the same lines; "
                "resolve the '<<<<<<< before updating' ... '>>>>>>> after updating' markers"
            )
        for path, names in self.not_stubs.items():
            text.out(
                f"  (kept {', '.join(names)} in {path} free of the new template's "
                "`# STUB: not implemented` line: you implemented them)"
            )
        for path in self.kept_edited:
            text.out(
                f"  (kept {path}: `cfngen generate` writes it now, but you had edited it, so "
                "it stays yours)"
            )
        for path in self.deleted_edited:
            text.warning(
                f"{path}: the new template has no such file, so it was deleted although you had "
                f"edited it; `git checkout HEAD -- {path}` brings it back"
            )
        if self.ignored is not None:
            self.ignored.render(text)
        if self.generated is not None:
            for warning in self.generated.warnings:
                text.warning(warning)
        if self.generate_error is not None:
            for line in error_lines(
                f"the upgrade is done, but cfngen generate failed: {self.generate_error}",
                "fix the problem, then run `cfngen generate`",
                text.paint_err,
            ):
                text.err(line)


def upgrade_project(
    root: Path,
    *,
    recopy: bool = False,
    merge: Callable[[Path, str], None] | None = None,
    generate: Callable[[Path], GenerateResult] | None = None,
) -> UpgradeResult:
    """`merge(root, tag)` and `generate(root)` replace copier's update (or recopy) and
    `cfngen generate` after it (tests pass failing ones)."""
    from cfngen._extras import require
    from cfngen._generate import generate_project

    require("init", "`cfngen upgrade`")
    root = root.absolute()
    if not root.is_dir():
        raise CfngenError(f"{root}: no such folder", "run it in a project folder, or pass one")
    # Before anything is read: a command killed while writing here is undone first (and a
    # journal cfngen did not write stops the upgrade, exit 2).
    recover(root)
    answers = _copier.read_answers(root)
    if answers is None:
        raise CfngenError(
            f"{root} has no {ANSWERS_FILE}, so cfngen does not know which template made it",
            "run `cfngen upgrade` in a project made by `cfngen init`, or restore "
            f"{ANSWERS_FILE} from git history",
        )
    require_git("`cfngen upgrade` merges through git")
    if work_tree_root(root) is None:
        raise CfngenError(
            f"{root} is not in a git repository",
            "commit the project first (`git init && git add -A && git commit -m 'Before "
            "upgrade'`) so the upgrade can be reviewed and undone",
        )
    tree = WorkTree.before_merge(root)
    kind = _template_of(answers)
    live = _template_cache.live_version(kind)
    current = _recorded_version(answers, required=not recopy)
    if current is not None and current > live.version:
        raise CfngenError(
            f"the project uses template {current}, newer than this cfngen's {live.tag}",
            "upgrade cfngen (`python -m pip install --upgrade cfngen`) and retry",
        )
    synced = _template_cache.sync(kind, anywhere=True)
    recorded_src = answers.get("_src_path")
    if not isinstance(recorded_src, str) or _expand(recorded_src) != _expand(synced.src_path):
        raise CfngenError(
            f"{ANSWERS_FILE} says the template is at {recorded_src!r}, but this cfngen keeps "
            f"it at {synced.src_path!r}",
            f"set CFNGEN_HOME so they match, or set _src_path to {synced.src_path} and commit",
        )
    if current is not None and str(current) not in synced.versions:
        raise CfngenError(
            f"template {current} is unknown on this machine",
            "run `cfngen template sync` once with the cfngen that made the project (or any "
            "cfngen that ships that template), or use `cfngen upgrade --recopy`",
        )
    result = UpgradeResult(
        root, str(current) if current is not None else None, live.tag, recopied=recopy
    )
    if current == live.version and not recopy:
        result.up_to_date = True
        result.ignored = ignore_cfngen_files(root)
        return result

    if tree.personal:
        tree.refuse_in_the_way(set(_render(synced.src_path, answers, live.tag)))
    old = {} if recopy else _render(synced.src_path, answers, str(current))
    edited = _edited(root, old)
    # If this process is killed during the merge, the next upgrade says how to undo it.
    tree.merging()
    try:
        if recopy:  # a fresh rendering on purpose: stubs are stubs again
            (merge or _copier.recopy)(root, live.tag)
        else:
            (merge or _copier.update)(root, live.tag)
            result.not_stubs = _keep_implemented(root, old, tree.changed())
    except BaseException:
        tree.restore()
        raise
    finally:
        tree.merged()
    result.kept_edited = _keep_edited_derived(root, edited)
    result.ignored = ignore_cfngen_files(root)
    result.changed = tree.changed()
    result.conflicts = _conflicted_files(root, result.changed)
    try:
        result.generated = (generate or generate_project)(root)
    except CfngenError as exc:
        result.generate_error = exc.message
    # After generate, which writes again what it derives now (a resource's inputs/).
    result.deleted_edited = sorted(f for f in edited if not (root / f).exists())
    # The editor settings the template brings point at this cfngen's meta-schemas.
    from cfngen._editor import export_schemas, wants_schemas

    if wants_schemas(root):
        export_schemas(root)
    return result


def _template_of(answers: dict[str, Any]) -> str:
    """The template folder of the kind the answers file names (the default kind when the
    file names none)."""
    from cfngen._kind import default_kind, lookup

    recorded = answers.get("artifact_type")
    try:
        kind = default_kind() if recorded is None else lookup(str(recorded))
    except CfngenError:
        kind = None
    if kind is None or kind.init is None:
        raise CfngenError(f"{ANSWERS_FILE}: cfngen has no template for {recorded!r}")
    return kind.init.template


def _recorded_version(answers: dict[str, Any], *, required: bool) -> Version | None:
    commit = answers.get("_commit")
    if commit is None:
        if not required:
            return None
        raise CfngenError(
            f"{ANSWERS_FILE} does not record which template version made the project (no _commit)",
            "restore the file from git history, or use `cfngen upgrade --recopy`",
        )
    try:
        return Version(str(commit))
    except InvalidVersion:
        if not required:
            return None
        raise CfngenError(
            f"{ANSWERS_FILE}: _commit {commit!r} is not a cfngen template version",
            "restore the file from git history, or use `cfngen upgrade --recopy`",
        ) from None


def _expand(path: str) -> str:
    return os.path.normpath(os.path.expanduser(path))


def _render(src: str, answers: dict[str, Any], version: str) -> dict[str, bytes]:
    """What a template version renders with the project's answers, file by file. For the
    project's own version: what the user started from (their edits are the differences)."""
    data = {k: v for k, v in answers.items() if not k.startswith("_")}
    scratch = Path(tempfile.mkdtemp(prefix="cfngen-upgrade-"))
    try:
        old = scratch / "old"
        _copier.render(src, old, data, version)
        return {
            path.relative_to(old).as_posix(): path.read_bytes()
            for path in old.rglob("*")
            if path.is_file() and path.relative_to(old).as_posix() != ANSWERS_FILE
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _edited(root: Path, old: dict[str, bytes]) -> set[str]:
    """The template's files the user changed: neither what the project's template version
    rendered there nor what `cfngen generate` recorded writing there since (it rewrites a
    template 0.1.0 project's inputs/ from the schema)."""
    from cfngen._files import sha256
    from cfngen._files._ownership import load_manifest

    recorded = load_manifest(root, lambda path: True).files
    edited = set()
    for rel, data in old.items():
        path = root / rel
        now = path.read_bytes() if path.is_file() else None
        if now is not None and now != data and sha256(now) != recorded.get(rel):
            edited.add(rel)
    return edited


def _keep_implemented(
    root: Path, old: dict[str, bytes], changed_files: list[str]
) -> dict[str, list[str]]:
    """Drop the stub markers the merge put into functions the user wrote (see _stubs)."""
    from cfngen._files import write_atomic
    from cfngen._init._stubs import MARKER, drop_added_markers

    changed: dict[str, list[str]] = {}
    for rel in changed_files:
        path = root / rel
        if not rel.endswith(".py") or not path.is_file():
            continue
        merged = path.read_text(encoding="utf-8", errors="surrogateescape")
        if MARKER not in merged:
            continue
        shown = git(["show", f"HEAD:./{rel}"], root, check=False)
        before = shown.stdout if shown.returncode == 0 else None
        template = old[rel].decode("utf-8", "surrogateescape") if rel in old else None
        text, names = drop_added_markers(merged, before, template)
        if names:
            write_atomic(path, text.encode("utf-8", "surrogateescape"))
            changed[rel] = names
    return changed


def _keep_edited_derived(root: Path, edited: set[str]) -> list[str]:
    """Put back the files the user edited that the merge deleted because the new template
    leaves them to `cfngen generate` (a resource's inputs/, from template 0.2.0 on): generate
    then finds them unrecorded and leaves them to the user. Their bytes are HEAD's: the tree
    was clean before the merge."""
    from cfngen._files import write_atomic
    from cfngen._project import load_project

    try:
        project = load_project(root)
    except CfngenError:
        return []
    kept: list[str] = []
    for rel in sorted(edited):
        path = root / rel
        if path.exists() or not project.kind.may_derive(project, rel):
            continue
        shown = subprocess.run(
            ["git", "show", f"HEAD:./{rel}"], cwd=root, capture_output=True, check=False
        )
        if shown.returncode != 0:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, shown.stdout)
        kept.append(rel)
    return kept


def _conflicted_files(root: Path, changed: list[str]) -> list[str]:
    unmerged = git(["ls-files", "--unmerged", "--", "."], root).stdout
    found = {line.split("\t", 1)[1] for line in unmerged.splitlines() if "\t" in line}
    for rel in changed:
        path = root / rel
        if path.is_file():
            with path.open("rb") as handle:
                if any(line.rstrip() in CONFLICT_MARKERS for line in handle):
                    found.add(rel)
    return sorted(found)
