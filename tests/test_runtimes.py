"""The runtime table: consistent with Lambda's dates and usable by the official toolchain."""

from __future__ import annotations

import json
from importlib.metadata import entry_points

import pytest

from cfngen._errors import CfngenError
from cfngen._runtimes import AS_OF, DEFAULT_RUNTIME, RUNTIMES, find_runtime, get_runtime


def official_languages() -> set[str]:
    """The language names the installed official Python plugin registers."""
    return {ep.name for ep in entry_points(group="rpdk.v1.languages")}


def test_names_are_unique_and_newest_first():
    names = [r.name for r in RUNTIMES]
    assert len(set(names)) == len(names)
    versions = [tuple(int(p) for p in r.python_version.split(".")) for r in RUNTIMES]
    assert versions == sorted(versions, reverse=True)


@pytest.mark.parametrize("runtime", RUNTIMES, ids=lambda r: r.name)
def test_status_matches_the_dates(runtime):
    assert runtime.deprecated_on < runtime.create_blocked_on <= runtime.update_blocked_on
    expected = "deprecated" if runtime.deprecated_on <= AS_OF else "supported"
    assert runtime.status == expected
    # Nothing in the table is already blocked for new functions.
    assert runtime.create_blocked_on > AS_OF


@pytest.mark.parametrize("runtime", RUNTIMES, ids=lambda r: r.name)
def test_language_is_one_the_official_plugin_knows(runtime):
    languages = official_languages()
    assert runtime.language in languages
    own = runtime.name.replace(".", "")
    # Its own name where the plugin has it, else the newest the plugin knows.
    assert runtime.language == (own if own in languages else "python312")


def test_default_is_the_newest_supported():
    assert next(r for r in RUNTIMES if r.status == "supported") == DEFAULT_RUNTIME
    assert DEFAULT_RUNTIME.status == "supported"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("python3.14", "python3.14"),
        ("python3.12", "python3.12"),
        ("python312", "python3.12"),
        ("python313", "python3.13"),
        ("python3.9", None),
        ("python39", None),
        ("nodejs22.x", None),
        ("", None),
    ],
)
def test_find_runtime(name, expected):
    found = find_runtime(name)
    assert (found.name if found else None) == expected


def test_get_runtime_unknown_is_an_error_with_the_choices():
    with pytest.raises(CfngenError) as info:
        get_runtime("python2.7")
    assert "python3.14" in (info.value.hint or "")


def test_every_runtime_is_one_the_support_library_installs_on():
    from importlib.metadata import metadata

    requires = metadata("cloudformation-cli-python-lib")["Requires-Python"]
    assert requires == ">=3.8"
    assert all(tuple(map(int, r.python_version.split("."))) >= (3, 10) for r in RUNTIMES)


@pytest.mark.parametrize("runtime", RUNTIMES, ids=lambda r: r.name)
def test_official_toolchain_loads_a_project_with_each_runtime(runtime, tmp_path):
    """What `cfn validate` does: read .rpdk-config, load the language plugin, check the schema."""
    from rpdk.core.project import Project

    from tests._generate_helpers import make_project

    root = make_project(tmp_path / "p", runtime=runtime.name)
    config = json.loads((root / ".rpdk-config").read_text())
    config["language"] = runtime.language
    (root / ".rpdk-config").write_text(json.dumps(config))
    project = Project(root=root)
    project.load()
    assert project.runtime == runtime.name
