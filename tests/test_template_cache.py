"""The shipped templates and the local git cache copier renders them from."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml
from packaging.version import Version

import cfngen
from cfngen._init import _template_cache, _template_repo
from tests.test_init_support import cfngen_env, git, run_cfngen


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CFNGEN_HOME", raising=False)
    return home


# --------------------------------------------------------------------------- what ships


def test_live_version_is_a_release_newer_than_every_frozen_one_and_not_from_the_future():
    versions = _template_cache.packaged_versions("resource")
    live = versions[-1]
    assert live.live and not any(v.live for v in versions[:-1])
    assert [v.version for v in versions] == sorted(v.version for v in versions)
    assert len({v.version for v in versions}) == len(versions)
    # A template's version is the cfngen release it first shipped in.
    assert live.version <= Version(Version(cfngen.__version__).base_version)


def test_two_real_template_versions_ship():
    tags = [v.tag for v in _template_cache.packaged_versions("resource")]
    assert tags[:1] == ["0.1.0"]
    assert len(tags) >= 2


def _every_kind() -> list[tuple[str, object]]:
    from cfngen._kind import all_kinds

    return [(k.name, k.init) for k in all_kinds() if k.init is not None]


ALL_TEMPLATES = [
    version
    for _name, spec in _every_kind()
    for version in _template_cache.packaged_versions(spec.template)  # type: ignore[attr-defined]
]


@pytest.mark.parametrize("template", ALL_TEMPLATES, ids=str)
def test_every_template_file_ends_in_jinja(template):
    files = _template_repo.template_files(template.path / "project")
    assert files
    assert [f for f in files if not f.name.endswith(".jinja")] == []


@pytest.mark.parametrize("template", ALL_TEMPLATES, ids=str)
def test_templates_need_no_trust_and_are_strict(template):
    config = yaml.safe_load((template.path / "copier.yml").read_text())
    assert not {"_tasks", "_migrations", "_jinja_extensions", "_external_data"} & set(config)
    assert config["_envops"]["undefined"] == "jinja2.StrictUndefined"
    assert config["_subdirectory"] == "project"
    # Only answers to declared questions are remembered: every key cfngen passes is one
    # (but for questions added later, which an earlier version renders as their default).
    spec = {s.template: s for _name, s in _every_kind()}[template.kind]  # type: ignore[attr-defined]
    keys = ("artifact_type", *(question.key for question in spec.questions))

    added_in = {"example": "0.2.0", "ci": "0.2.0"}
    expected = {k for k in keys if template.version >= Version(added_in.get(k, "0"))}
    assert expected <= set(config)


def test_templates_root_prefers_the_package_folder_then_the_checkout(tmp_path, monkeypatch):
    root = _template_cache.templates_root()
    assert (root / "resource" / "copier.yml").is_file()
    # In a wheel the templates sit inside the package; fake that layout.
    package = tmp_path / "cfngen"
    (package / "_init").mkdir(parents=True)
    (package / "templates" / "resource").mkdir(parents=True)
    (package / "templates" / "resource" / "copier.yml").write_text("{}")
    monkeypatch.setattr(_template_cache, "__file__", str(package / "_init" / "_template_cache.py"))
    assert _template_cache.templates_root() == package / "templates"


# --------------------------------------------------------------------------- the cache


def test_cache_lives_under_home_and_is_recorded_with_a_tilde(home):
    assert _template_cache.cache_path("resource") == home / ".cfngen" / "templates" / "resource"
    assert _template_cache.src_path("resource") == "~/.cfngen/templates/resource"


def test_cfngen_home_moves_the_cache_but_not_the_recorded_path(home, tmp_path, monkeypatch):
    """The recorded path is the answers file's: the same on every machine, whatever
    CFNGEN_HOME says (tests/test_cache_layer.py runs init and upgrade so)."""
    monkeypatch.setenv("CFNGEN_HOME", str(home / "elsewhere"))
    assert _template_cache.src_path("resource") == "~/.cfngen/templates/resource"
    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "outside"))
    result = _template_cache.sync("resource")
    assert result.path == tmp_path / "outside" / "templates" / "resource"
    assert result.src_path == "~/.cfngen/templates/resource"
    assert (result.path / ".git").is_dir()
    assert _template_cache.located()["resource"] == result.path
    # `cfngen template sync` says where the cache is, not the path the answers record.
    from cfngen._render import Rendered

    text = Rendered()
    result.render(text)
    assert text.text("out").startswith(f"{result.path.as_posix()}: 0.1.0")


def test_sync_tags_one_orphan_commit_per_version(home):
    result = _template_cache.sync("resource")
    shipped = [v.tag for v in _template_cache.packaged_versions("resource")]
    assert result.added == shipped
    assert result.versions == shipped
    for template in _template_cache.packaged_versions("resource"):
        tag = template.tag
        parents = git(result.path, "rev-list", "--parents", "-n1", tag).split()
        assert parents[1:] == [], "each version is an orphan commit"
        meta = git(result.path, "log", "-1", "--format=%an <%ae> %at|%cn %ct|%s", tag).strip()
        assert meta == (
            f"cfngen <cfngen@users.noreply.invalid> 946684800|cfngen 946684800|"
            f"cfngen resource template {tag}"
        )
        listed = git(result.path, "ls-tree", "-r", "--name-only", tag).split()
        expected = sorted(
            p.relative_to(template.path).as_posix()
            for p in _template_repo.template_files(template.path)
        )
        assert sorted(listed) == expected


def test_sync_gives_the_same_commits_on_every_machine(tmp_path, monkeypatch):
    ids = []
    for name in ("a", "b"):
        monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / name))
        result = _template_cache.sync("resource")
        ids.append(git(result.path, "show-ref", "--tags"))
    assert ids[0] == ids[1]


def test_sync_is_idempotent(home):
    first = _template_cache.sync("resource")
    second = _template_cache.sync("resource")
    assert second.added == second.replaced == []
    assert second.versions == first.versions


def test_sync_never_deletes_tags_from_other_cfngen_versions(home):
    repo = _template_cache.sync("resource").path
    git(repo, "tag", "9.9.9", "0.1.0")  # left by a newer cfngen
    git(repo, "tag", "not-a-version", "0.1.0")
    result = _template_cache.sync("resource")
    assert "9.9.9" in result.versions
    assert "not-a-version" in git(repo, "tag").split()


def test_sync_repoints_a_live_tag_whose_content_differs(home):
    repo = _template_cache.sync("resource").path
    live = _template_cache.live_version("resource").tag
    git(repo, "tag", "-f", live, "0.1.0")  # a development build of the same version
    result = _template_cache.sync("resource")
    assert result.replaced == [live]
    tree = git(repo, "rev-parse", f"{live}^{{tree}}").strip()
    assert tree != git(repo, "rev-parse", "0.1.0^{tree}").strip()


def test_a_half_built_cache_folder_is_reused(home):
    # A cache folder from an interrupted run that never got its .git: sync must still work.
    (home / ".cfngen" / "templates").mkdir(parents=True)
    result = _template_cache.sync("resource")
    assert result.versions


def test_concurrent_syncs_agree(tmp_path):
    env = cfngen_env(tmp_path)
    code = "from cfngen._init._template_cache import sync; print(sync('resource').versions)"

    def one(_):
        return subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
        )

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(one, range(4)))
    assert [r.returncode for r in results] == [0] * 4, [r.stderr for r in results]
    assert len({r.stdout for r in results}) == 1


def test_template_sync_command(tmp_path):
    result = run_cfngen("template", "sync", cwd=tmp_path, home=tmp_path)
    assert result.returncode == 0, result.stderr
    from cfngen._kind import all_kinds

    lines = []
    for kind in [k for k in all_kinds() if k.init is not None]:
        template = kind.init.template
        versions = ", ".join(v.tag for v in _template_cache.packaged_versions(template))
        assert f"~/.cfngen/templates/{template}: {versions} (added " in result.stdout
        lines.append(f"~/.cfngen/templates/{template}: {versions}")
    again = run_cfngen("template", "sync", cwd=tmp_path, home=tmp_path)
    assert again.stdout.splitlines() == lines


def test_sync_without_git_says_so(home, monkeypatch):
    monkeypatch.setenv("PATH", str(home))
    from cfngen._errors import CfngenError

    with pytest.raises(CfngenError, match="git is not installed"):
        _template_cache.sync("resource")


def test_repository_files_are_byte_identical_in_the_cache(home):
    """No line-ending or mode conversion on the way in: the cache is the package's bytes."""
    repo = _template_cache.sync("resource").path
    live = _template_cache.live_version("resource")
    files = _template_repo.template_files(live.path)
    handlers = next(p for p in files if p.name.startswith("hand"))
    rel = handlers.relative_to(live.path).as_posix()
    blob = subprocess.run(
        ["git", "show", f"{live.tag}:{rel}"], cwd=repo, capture_output=True, check=True
    ).stdout
    assert blob == handlers.read_bytes()
    mode = git(repo, "ls-tree", live.tag, "--", rel).split()[0]
    assert mode == "100644"


def test_template_files_skip_interpreter_and_editor_droppings(tmp_path):
    (tmp_path / "project" / "__pycache__").mkdir(parents=True)
    (tmp_path / "project" / "__pycache__" / "x.pyc").write_bytes(b"")
    (tmp_path / "project" / "a.jinja").write_text("")
    (tmp_path / "project" / "a.jinja~").write_text("")
    found = [p.relative_to(tmp_path).as_posix() for p in _template_repo.template_files(tmp_path)]
    assert found == ["project/a.jinja"]


def test_paths_under_home_keep_the_tilde_on_any_platform(home):
    assert not Path(_template_cache.src_path("resource")).is_absolute()


@pytest.mark.parametrize("template", _template_cache.packaged_versions("resource"), ids=str)
def test_init_renders_exactly_what_copier_renders_from_the_cache(home, tmp_path, template):
    """init renders the packaged folder and records the cache's tag: the result must be the
    very bytes copier makes from that tag (answers file included)."""
    from cfngen._init import _copier
    from cfngen._init._answers import check_type_name
    from cfngen._kinds.resource._answers import resolve
    from tests.test_init_support import project_files

    data = resolve({"type_name": check_type_name("Acme::Svc::Widget")}).copier_data()
    synced = _template_cache.sync("resource")
    _copier.render(synced.src_path, tmp_path / "cache", data, template.tag)
    _copier.render(str(template.path), tmp_path / "folder", data, None)
    _copier.pin_template(tmp_path / "folder", synced.src_path, template.tag)
    assert project_files(tmp_path / "folder") == project_files(tmp_path / "cache")
