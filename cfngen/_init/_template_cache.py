"""The copier templates cfngen ships, and the local git cache copier renders them from.

copier can only update a project from a *git* template at a path that never changes, and it
remembers that path in the project's answers file. So the package ships the live template plus a
frozen copy of every earlier released version (`templates/released/<kind>/<version>/`), and
cfngen materialises them into a small git repository at `~/.cfngen/templates/<kind>` (override
the folder with CFNGEN_HOME): one orphan commit per version, with a fixed author and date so it
has the same id on every machine, tagged with the bare version. Tags are never deleted, so a
project made by any cfngen can still be upgraded on a machine where that cfngen once ran.

The answers file records `~/.cfngen/templates/<kind>` whatever CFNGEN_HOME says, so it never
holds a machine's path; cfngen's own copier runs find the repository where it is (`located`).

Verified on read (cfngen/_init/_template_repo.py): git checks the repository (`git fsck`), and
every tag this cfngen ships must hold the tree of its packaged files; a damaged repository is
made again, a tag that holds other files is pointed back at them, and both are noted.

Versioning: a template's version is the cfngen release in which it last changed, written in
`templates/<kind>/VERSION`. Before changing a released template, copy it to
`templates/released/<kind>/<VERSION>/` and set VERSION to the cfngen version being prepared.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import InvalidVersion, Version

from cfngen._errors import CfngenError
from cfngen._files import home, note, scratch_folder
from cfngen._files._home import DEFAULT, bypassed, unusable
from cfngen._git import git, require_git
from cfngen._init._template_repo import ensure_repo, tree_id, verified, write_tree
from cfngen._render import Rendered

_COMMIT_ENV = {
    "GIT_AUTHOR_NAME": "cfngen",
    "GIT_AUTHOR_EMAIL": "cfngen@users.noreply.invalid",
    "GIT_AUTHOR_DATE": "946684800 +0000",
    "GIT_COMMITTER_NAME": "cfngen",
    "GIT_COMMITTER_EMAIL": "cfngen@users.noreply.invalid",
    "GIT_COMMITTER_DATE": "946684800 +0000",
}
_EMPTY_ID = "0" * 40


@dataclass(frozen=True)
class TemplateVersion:
    kind: str
    version: Version
    #: The folder holding copier.yml for this version, inside the installed package.
    path: Path
    live: bool

    @property
    def tag(self) -> str:
        return str(self.version)


def template_kinds() -> list[str]:
    """The template folders of every kind `cfngen init` can make, in the kinds' order."""
    from cfngen._kind import all_kinds

    return [kind.init.template for kind in all_kinds() if kind.init is not None]


def templates_root() -> Path:
    """Where the templates are: inside the package of an installed wheel
    (`cfngen/templates`, put there by the build), else at the top of a source checkout
    (which is what an editable install imports from)."""
    package = Path(__file__).resolve().parent.parent
    first = template_kinds()[0]
    for candidate in (package / "templates", package.parent / "templates"):
        if (candidate / first / "copier.yml").is_file():
            return candidate
    raise CfngenError(
        "this cfngen installation has no project templates",
        "reinstall cfngen (`python -m pip install --force-reinstall cfngen`)",
    )


def _parse_version(text: str, where: Path) -> Version:
    try:
        version = Version(text.strip())
    except InvalidVersion:
        raise CfngenError(f"{where}: {text.strip()!r} is not a version", None) from None
    if version.is_prerelease or version.is_devrelease or version.local or version.is_postrelease:
        raise CfngenError(f"{where}: template versions are plain releases, not {version}", None)
    return version


def packaged_versions(kind: str) -> list[TemplateVersion]:
    """Every template version of `kind` this cfngen ships, oldest first; the last is live."""
    root = templates_root()
    live_dir = root / kind
    if not (live_dir / "copier.yml").is_file():
        raise CfngenError(f"no {kind} template in {root}", "reinstall cfngen")
    live = TemplateVersion(
        kind,
        _parse_version((live_dir / "VERSION").read_text(encoding="utf-8"), live_dir / "VERSION"),
        live_dir,
        live=True,
    )
    frozen = []
    released = root / "released" / kind
    if released.is_dir():
        for entry in released.iterdir():
            if (entry / "copier.yml").is_file():
                frozen.append(
                    TemplateVersion(kind, _parse_version(entry.name, entry), entry, False)
                )
    frozen.sort(key=lambda v: v.version)
    if frozen and frozen[-1].version >= live.version:
        raise CfngenError(
            f"{live_dir / 'VERSION'}: {live.version} must be newer than every released "
            f"template (found {frozen[-1].version})",
            None,
        )
    return [*frozen, live]


def live_version(kind: str) -> TemplateVersion:
    return packaged_versions(kind)[-1]


def has_question(folder: Path, key: str) -> bool:
    """Whether the template in `folder` asks `key` (earlier versions lack newer questions)."""
    import yaml

    config = yaml.safe_load((folder / "copier.yml").read_text(encoding="utf-8"))
    return isinstance(config, dict) and key in config


def cache_path(kind: str) -> Path:
    return home() / "templates" / kind


def src_path(kind: str) -> str:
    """The template path copier records in the answers file: `~/.cfngen/templates/<kind>`,
    whatever CFNGEN_HOME says, so the file reads the same on every machine and plain `copier
    update` works for anyone who ran cfngen there (copier expands the `~` itself)."""
    return f"{DEFAULT}/templates/{kind}"


#: kind -> the repository this process synced for it, where it is not at cache_path (the home
#: could not be used: a temporary one).
_elsewhere: dict[str, Path] = {}


def located() -> dict[str, Path]:
    """Every kind's repository that is not where its recorded path (`src_path`) leads on this
    machine: CFNGEN_HOME moved it, or this process had to use a temporary one."""
    moved = {}
    for kind in template_kinds():
        try:
            actual = _elsewhere.get(kind) or cache_path(kind)
        except CfngenError:
            continue
        if os.path.normpath(os.path.expanduser(src_path(kind))) != os.path.normpath(actual):
            moved[kind] = actual
    return moved


@dataclass
class SyncResult:
    kind: str
    path: Path
    src_path: str
    #: Tags added to the cache by this call.
    added: list[str] = field(default_factory=list)
    #: Tags that pointed at other content (a development build of the same version): re-pointed.
    replaced: list[str] = field(default_factory=list)
    #: Every version tag in the cache afterwards, oldest first (including ones this cfngen
    #: does not ship: they came from other cfngen versions and are kept).
    versions: list[str] = field(default_factory=list)

    def render(self, text: Rendered) -> None:
        added = f" (added {', '.join(self.added)})" if self.added else ""
        replaced = (
            f" (replaced {', '.join(self.replaced)}: a development build of that version)"
            if self.replaced
            else ""
        )
        text.out(f"{_shown(self.path)}: {', '.join(self.versions)}{added}{replaced}")


def _shown(path: Path) -> str:
    """Where a repository is, with `~` for the home folder."""
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except (ValueError, RuntimeError):
        return path.as_posix()


def sync(kind: str, *, anywhere: bool = False) -> SyncResult:
    """Make the cache hold every template version this cfngen ships, verified (see above).
    Idempotent, cheap when nothing changed, and safe when several processes run it at once.

    With `anywhere`, a home that cannot be used (or a repository there that cannot be
    written) gives this process a temporary repository, said once as every cache bypassed,
    instead of an error: for commands that only need the templates for their own run."""
    require_git("cfngen keeps its project templates in a local git repository")
    where = "the home folder"
    try:
        path = cache_path(kind)
        where = str(path)
        return _synced(kind, verified(path, [t.tag for t in packaged_versions(kind)]))
    except OSError as exc:
        problem = unusable(exc)
        if not anywhere:
            raise CfngenError(
                f"cannot create the template cache at {where}: {problem}",
                "set CFNGEN_HOME to a folder you can write to",
            ) from None
    except CfngenError as exc:
        if not anywhere:
            raise
        problem = exc.message
    bypassed(problem)
    repo = scratch_folder("cfngen-templates-") / kind
    ensure_repo(repo)
    _elsewhere[kind] = repo
    return _synced(kind, repo)


def _synced(kind: str, repo: Path) -> SyncResult:
    """Every tag this cfngen ships made or pointed at its packaged files, in `repo`."""
    result = SyncResult(kind, repo, src_path(kind))
    existing = _tags(repo)
    for template in packaged_versions(kind):
        known = existing.get(template.tag)
        if known is not None and known[1] == tree_id(template.path):
            continue
        # Written by git too: the authority where the two differ (a repository git made
        # with SHA-256 object names, say).
        tree = write_tree(repo, template.path)
        if known is not None and known[1] == tree:
            continue
        commit = git(
            ["commit-tree", "--no-gpg-sign", tree, "-m", f"cfngen {kind} template {template.tag}"],
            repo,
            env=_COMMIT_ENV,
        ).stdout.strip()
        ref = f"refs/tags/{template.tag}"
        old = known[0] if known is not None else _EMPTY_ID
        if git(["update-ref", ref, commit, old], repo, check=False).returncode == 0:
            (result.added if known is None else result.replaced).append(template.tag)
            if known is not None and not template.live:
                note(
                    f"{repo}: template {template.tag} in the cache was damaged (it held other "
                    "files than the ones this cfngen ships, and a released template never "
                    "changes); cfngen put them back"
                )
        elif _tags(repo).get(template.tag, ("", ""))[1] != tree:
            # Another process moved the tag between our read and our write, to other content.
            raise CfngenError(
                f"could not update template {template.tag} in {repo}",
                "retry; if it keeps failing, delete that folder and run `cfngen template sync`",
            )
    result.versions = sorted(_tags(repo), key=Version)
    return result


def cached_versions(kind: str) -> list[str]:
    repo = cache_path(kind)
    if not (repo / ".git").is_dir():
        return []
    return sorted(_tags(repo), key=Version)


def _tags(repo: Path) -> dict[str, tuple[str, str]]:
    """Version tags -> (commit, tree)."""
    out = git(
        ["for-each-ref", "--format=%(refname:strip=2) %(objectname) %(tree)", "refs/tags"], repo
    ).stdout
    tags = {}
    for line in out.splitlines():
        name, commit, tree = [*line.split(" "), "", ""][:3]
        try:
            Version(name)
        except InvalidVersion:
            continue
        tags[name] = (commit, tree)
    return tags
