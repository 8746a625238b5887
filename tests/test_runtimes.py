"""The runtime table: consistent with Lambda's dates and usable by the official toolchain."""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from cfngen._errors import CfngenError
from cfngen._languages._python_runtimes import (
    AS_OF,
    DEFAULT_RUNTIME,
    OLDEST_RUNTIME,
    RUNTIMES,
    declared_python,
    find_runtime,
    get_runtime,
    python_of,
)


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
        ("python3.9", "python3.9"),
        ("python39", "python3.9"),
        ("python3.8", "python3.8"),
        ("python3.7", None),
        ("python37", None),
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
    assert OLDEST_RUNTIME.version_info == (3, 8)
    assert all(r.version_info >= (3, 8) for r in RUNTIMES)


def test_dates_are_cfn_lints_copy_of_lambdas():
    """cfn-lint ships Lambda's runtime dates; the table must say the same for every row."""
    import cfnlint

    lifecycle = json.loads(
        (
            Path(cfnlint.__file__).parent / "data/AdditionalSpecs/LmbdRuntimeLifecycle.json"
        ).read_text()
    )
    for runtime in RUNTIMES:
        dates = lifecycle[runtime.name]
        assert (runtime.deprecated_on, runtime.create_blocked_on, runtime.update_blocked_on) == (
            dates["deprecated"],
            dates["create-block"],
            dates["update-block"],
        ), runtime.name
    # Every Python runtime Lambda lists that the table leaves out is older than the oldest row.
    left_out = {n for n in lifecycle if n.startswith("python")} - {r.name for r in RUNTIMES}
    assert all(python_of(n) < OLDEST_RUNTIME.version_info for n in left_out), left_out


@pytest.mark.parametrize(
    ("today", "phase"),
    [
        ("2024-10-13", "supported"),
        ("2024-10-14", "deprecated"),
        ("2027-01-31", "deprecated"),
        ("2027-02-01", "create-blocked"),
        ("2027-03-02", "create-blocked"),
        ("2027-03-03", "blocked"),
    ],
)
def test_phase_on_a_date(today, phase):
    assert get_runtime("python3.8").phase(today) == phase


@pytest.mark.parametrize(
    ("name", "version"),
    [
        ("python3.8", (3, 8)),
        ("python39", (3, 9)),
        ("python3.14", (3, 14)),
        ("python3.15", (3, 15)),
        ("python3", None),
        ("nodejs22.x", None),
        ("python3.x", None),
    ],
)
def test_python_of(name, version):
    assert python_of(name) == version


@pytest.mark.parametrize(
    ("runtime", "language", "version"),
    [
        ("python3.9", "python39", (3, 9)),
        ("python3.13", "python312", (3, 13)),
        (None, "python38", (3, 8)),
        (None, None, DEFAULT_RUNTIME.version_info),
        ("nodejs22.x", None, DEFAULT_RUNTIME.version_info),
    ],
)
def test_declared_python(runtime, language, version):
    assert declared_python(runtime, language, ".rpdk-config") == version


@pytest.mark.parametrize(
    ("runtime", "language"),
    [("python3.7", "python37"), ("python3.6", "python36"), (None, "python37"), ("python2.7", None)],
)
def test_python37_and_older_are_refused_with_the_fix(runtime, language):
    with pytest.raises(CfngenError) as info:
        declared_python(runtime, language, ".rpdk-config")
    assert "older than python3.8" in info.value.message
    assert f"cfngen runtime set {DEFAULT_RUNTIME.name}" in (info.value.hint or "")


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
