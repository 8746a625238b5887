"""The copier templates cfngen ships, and the local git cache copier renders them from.

copier can only update a project from a *git* template at a path that never changes, and it
remembers that path in the project's answers file. So the package ships the live template plus a
frozen copy of every earlier released version (`templates/released/<kind>/<version>/`), and
cfngen materialises them into a small git repository at `~/.cfngen/templates/<kind>` (override
the folder with CFNGEN_HOME): one orphan commit per version, with a fixed author and date so it
has the same id on every machine, tagged with the bare version. Tags are never deleted, so a
project made by any cfngen can still be upgraded on a machine where that cfngen once ran.

Versioning: a template's version is the cfngen release in which it last changed, written in
`templates/<kind>/VERSION`. Before changing a released template, copy it to
`templates/released/<kind>/<VERSION>/` and set VERSION to the cfngen version being prepared.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import InvalidVersion, Version

from cfngen._errors import CfngenError
from cfngen._init._git import git, require_git
from cfngen._render import Rendered

_COMMIT_ENV = {
    "GIT_AUTHOR_NAME": "cfngen",
    "GIT_AUTHOR_EMAIL": "cfngen@users.noreply.invalid",
    "GIT_AUTHOR_DATE": "946684800 +0000",
    "GIT_COMMITTER_NAME": "cfngen",
    "GIT_COMMITTER_EMAIL": "cfngen@users.noreply.invalid",
    "GIT_COMMITTER_DATE": "946684800 +0000",
}
_JUNK_DIRS = frozenset({"__pycache__", ".git", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
_JUNK_SUFFIXES = (".pyc", ".pyo", "~", ".swp")
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
    from cfngen._kinds import all_kinds

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


def cfngen_home() -> Path:
    configured = os.environ.get("CFNGEN_HOME")
    return Path(configured).expanduser().absolute() if configured else Path.home() / ".cfngen"


def cache_path(kind: str) -> Path:
    return cfngen_home() / "templates" / kind


def src_path(kind: str) -> str:
    """The template path copier records in the answers file: with `~` when it is under the
    home folder, so the file reads the same on every machine and plain `copier update` works
    for anyone who ran cfngen there."""
    path = cache_path(kind)
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return path.as_posix()


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
        text.out(f"{self.src_path}: {', '.join(self.versions)}{added}{replaced}")


def sync(kind: str) -> SyncResult:
    """Make the cache hold every template version this cfngen ships. Idempotent, cheap when
    nothing changed, and safe when several processes run it at once."""
    require_git("cfngen keeps its project templates in a local git repository")
    try:
        repo = _ensure_repo(cache_path(kind))
    except OSError as exc:
        raise CfngenError(
            f"cannot create the template cache at {cache_path(kind)}: {exc.strerror or exc}",
            "set CFNGEN_HOME to a folder you can write to",
        ) from None
    result = SyncResult(kind, repo, src_path(kind))
    existing = _tags(repo)
    for template in packaged_versions(kind):
        known = existing.get(template.tag)
        if known is not None and not template.live:
            continue  # a released version never changes
        tree = _write_tree(repo, template.path)
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


def _ensure_repo(path: Path) -> Path:
    if (path / ".git").is_dir():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    # Build it beside its final place and rename it in, so a concurrent cfngen never sees a
    # half-made repository; whoever renames second uses the winner's.
    staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        git(["init", "--quiet"], staging)
        try:
            staging.rename(path)
        except OSError:
            if not (path / ".git").is_dir():
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return path


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


def template_files(folder: Path) -> list[Path]:
    """The files of one template version, sorted, without editor and interpreter droppings."""
    found = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d not in _JUNK_DIRS)
        for name in sorted(filenames):
            if not name.endswith(_JUNK_SUFFIXES):
                found.append(Path(dirpath, name))
    return found


def _write_tree(repo: Path, folder: Path) -> str:
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
