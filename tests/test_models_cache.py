"""The model cache (cfngen/_models/_cache.py): a module rendered once is read back for the same
inputs and code, never for other inputs, never when turned off, and a cache that cannot be
written costs only time."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from cfngen._models import _cache, models_source
from tests.test_models import AWKWARD


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "home"))
    monkeypatch.delenv(_cache.ENV_OFF, raising=False)
    return tmp_path / "home"


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
    assert len(list((home / "cache" / "models").glob("*.py"))) == 1


def test_other_inputs_are_rendered_again(home):
    done, render = renders("first", "second")
    _cache.remembered(["a", {"b": 1}], render)
    assert _cache.remembered(["a", {"b": 2}], render) == "second"
    assert done == ["first", "second"]


def test_turned_off_it_renders_every_time_and_keeps_nothing(home, monkeypatch):
    monkeypatch.setenv(_cache.ENV_OFF, "1")
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


def test_pruning_keeps_what_was_used_last(tmp_path):
    for age, name in enumerate(["d", "c", "b", "a"]):  # a is the oldest
        path = tmp_path / f"{name}.py"
        path.write_text(name)
        os.utime(path, ns=(10**18 - age * 10**9,) * 2)
    _cache.prune(tmp_path, 2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.py", "d.py"]


def test_a_read_entry_counts_as_used(home):
    _cache.remembered(["old"], lambda: "old")
    _cache.remembered(["new"], lambda: "new")
    for path in (home / "cache" / "models").glob("*.py"):  # "old" written long before "new"
        os.utime(path, ns=(10**18 + (path.read_text() == "new") * 10**9,) * 2)
    assert _cache.remembered(["old"], lambda: pytest.fail("read, not rendered")) == "old"
    _cache.prune(home / "cache" / "models", 1)
    assert [p.read_text() for p in (home / "cache" / "models").glob("*.py")] == ["old"]


def test_models_source_reads_back_what_it_rendered(home):
    first = models_source(AWKWARD)
    (entry,) = (home / "cache" / "models").glob("*.py")
    assert entry.read_text() == first
    entry.write_text(first + "# read from the cache\n")
    assert models_source(AWKWARD) == first + "# read from the cache\n"
    # Another target Python is another module.
    assert models_source(AWKWARD, python=(3, 8)) != first
