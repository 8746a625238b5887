"""The model cache (cfngen/_models/_cache.py, on the home's cache layer): a module rendered once
is read back for the same inputs and code, never for other inputs, never when turned off, and
a cache that cannot be written costs only time. Damaged entries, pruning and temporary files
are the layer's, tested in tests/test_cache_layer.py for every cache."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cfngen._models import _cache, models_source
from tests.test_models import AWKWARD


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CFNGEN_NO_CACHE", raising=False)
    return tmp_path / "home"


def entries(home: Path) -> list[Path]:
    return [p for p in (home / "cache" / "models").iterdir() if not p.name.startswith(".")]


def renders(*texts: str) -> tuple[list[str], object]:
    """A renderer that returns `texts` in turn, and the list of what it returned."""
    done: list[str] = []

    def render() -> str:
        done.append(texts[len(done)])
        return done[-1]

    return done, render


def test_the_same_inputs_are_rendered_once(home):
    done, render = renders("first", "second")
    assert _cache.remembered(["a", {"b": 1}], render) == "first"
    assert _cache.remembered(["a", {"b": 1}], render) == "first"
    assert done == ["first"]
    assert len(entries(home)) == 1


def test_other_inputs_are_rendered_again(home):
    done, render = renders("first", "second")
    _cache.remembered(["a", {"b": 1}], render)
    assert _cache.remembered(["a", {"b": 2}], render) == "second"
    assert done == ["first", "second"]


def test_turned_off_it_renders_every_time_and_keeps_nothing(home, monkeypatch):
    monkeypatch.setenv("CFNGEN_NO_CACHE", "1")
    _, render = renders("first", "second")
    _cache.remembered(["a"], render)
    assert _cache.remembered(["a"], render) == "second"
    assert not (home / "cache").exists()


def test_a_cache_that_cannot_be_written_only_costs_time(home):
    home.parent.mkdir(exist_ok=True)
    home.write_text("a file where the folder would be")
    _, render = renders("first", "second")
    assert _cache.remembered(["a"], render) == "first"
    assert _cache.remembered(["a"], render) == "second"


def test_inputs_no_json_can_hold_are_rendered_without_a_key(home):
    deep: dict = {}
    node = deep
    for _ in range(5000):
        node["x"] = {}
        node = node["x"]
    _, render = renders("first", "second")
    assert _cache.remembered([deep], render) == "first"
    assert _cache.remembered([{1, 2}], render) == "second"


def test_without_a_home_folder_it_renders(monkeypatch):
    def no_home(cls):
        raise RuntimeError("Could not determine home directory.")  # as pathlib says it

    monkeypatch.delenv("CFNGEN_HOME", raising=False)
    monkeypatch.setattr(Path, "home", classmethod(no_home))
    _, render = renders("first", "second")
    assert _cache.remembered(["a"], render) == "first"
    assert _cache.remembered(["a"], render) == "second"


def test_an_edit_anywhere_in_the_code_is_another_key(tmp_path):
    package = tmp_path / "pkg"
    shutil.copytree(Path(_cache.__file__).parent, package / "_models")
    (package / "_other.py").write_text("X = 1\n")
    before = _cache.code_digest(package)
    (package / "_other.py").write_text("X = 2\n")
    _cache.code_digest.cache_clear()
    assert _cache.code_digest(package) != before


def test_models_source_reads_back_what_it_rendered(home):
    first = models_source(AWKWARD)
    (entry,) = entries(home)
    assert _cache.CACHE.get(entry.name) == first.encode()
    _cache.CACHE.put(entry.name, (first + "# read from the cache\n").encode())
    assert models_source(AWKWARD) == first + "# read from the cache\n"
    # Another target Python is another module.
    assert models_source(AWKWARD, python=(3, 8)) != first


@pytest.mark.parametrize("fault", ["read-only", "full"])
def test_generate_with_a_home_it_cannot_write_writes_the_same_project(tmp_path, fault):
    """The cache's one write path, faulted for real (root ignores chmod): a read-only mount and
    a full disk as the cfngen home. generate renders, writes the whole project as with a
    writable home, and leaves no partial entry behind."""
    from tests._faults import ENV, namespace
    from tests._generate_helpers import make_project, snapshot_tree, widget_schema

    schema = widget_schema(description="Only this test's schema: never in any cache.")
    expected = make_project(tmp_path / "expected", schema)
    env = {**ENV, "CFNGEN_HOME": str(tmp_path / "writable-home")}
    subprocess.run([sys.executable, "-m", "cfngen", "generate", str(expected)], env=env, check=True)
    root = make_project(tmp_path / "project", schema)
    home = tmp_path / "home"
    (home / "cache" / "models").mkdir(parents=True)
    mount = (
        f"mount --bind {home} {home} && mount -o remount,bind,ro {home}"
        if fault == "read-only"
        else f"mount -t tmpfs -o size=64k tmpfs {home} && mkdir -p {home}/cache/models && "
        f"(head -c 1M /dev/zero > {home}/filler || true)"
    )
    result = namespace(
        f"{mount}\n"
        f"{sys.executable} -m cfngen generate {root}\n"
        f"find {home}/cache -type f ! -name filler | wc -l\n",
        env={**env, "CFNGEN_HOME": str(home)},
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout.strip().splitlines()[-1] == "0"  # nothing written, nothing half-written
    assert snapshot_tree(root) == snapshot_tree(expected)
