"""`cfngen init --force` into a folder that already holds the file a kind derives from (its
schema, fragment or template): the project keeps the user's file, so generate runs on it, never
on the template's version the project does not get. A valid one is derived from; an invalid one
is named in a warning and nothing is derived. Before, every derived file (models, docs, inputs,
the SAM template, the manifest) came from the template's own schema while the project kept the
user's invalid one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfngen._cli import main
from cfngen._errors import ExitCode
from tests.test_init_support import git


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("CFNGEN_NO_CACHE", "1")
    for name in ("CFNGEN_HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    return home


#: kind -> (init flags, the file the kind derives from, an invalid version of it, words of the
#: problem the warning names).
INVALID = {
    "resource-syntax": (
        ["-t", "Acme::Svc::Widget"],
        "acme-svc-widget.json",
        '{"typeName": "Acme::Svc::Widget", "properties": ',
        "invalid JSON",
    ),
    "resource-schema": (
        ["-t", "Acme::Svc::Widget"],
        "acme-svc-widget.json",
        json.dumps({"typeName": "Acme::Svc::Widget", "description": "mine"}),
        "properties",
    ),
    "hook": (
        ["--artifact-type", "hook", "-t", "Acme::Svc::Guard"],
        "acme-svc-guard.json",
        json.dumps({"typeName": "Acme::Svc::Guard", "handlers": 5}),
        "description",
    ),
    "module": (
        ["--artifact-type", "module", "-t", "Acme::Svc::Shelf::MODULE"],
        "fragments/module.yaml",
        "Resources: {}\n",
        "Resources is empty",
    ),
}


@pytest.mark.parametrize("case", list(INVALID))
def test_an_invalid_kept_file_is_named_and_nothing_is_derived(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    flags, kept, text, problem = INVALID[case]
    dest = tmp_path / "project"
    (dest / kept).parent.mkdir(parents=True, exist_ok=True)
    (dest / kept).write_text(text)
    assert main(["init", "--no-input", *flags, "--force", str(dest)]) == ExitCode.OK
    err = capsys.readouterr().err
    (warning,) = [line for line in err.splitlines() if "nothing was derived" in line]
    assert kept in warning and problem in warning, warning
    assert "`cfngen generate`" in warning
    assert (dest / kept).read_text() == text
    # Nothing derived: no manifest, no models, no docs, no inputs made from a schema.
    assert not (dest / ".cfngen" / "generated.json").exists()
    assert not list(dest.rglob("models.py"))
    assert not (dest / "docs").exists()
    assert not (dest / "schema.json").exists() or kept == "schema.json"
    # The commit holds what init added, and the kept file stays the user's.
    assert kept not in git(dest, "ls-files").split()


def test_a_valid_kept_schema_is_the_one_derived_from(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cfngen._kinds.resource import EXAMPLE_SCHEMA

    schema = json.loads(EXAMPLE_SCHEMA.read_text())
    schema.update(typeName="Acme::Svc::Widget", description="The user's own widget")
    dest = tmp_path / "project"
    dest.mkdir()
    (dest / "acme-svc-widget.json").write_text(json.dumps(schema, indent=2))
    assert main(["init", "--no-input", "-t", "Acme::Svc::Widget", "--force", str(dest)]) == 0
    assert "nothing was derived" not in capsys.readouterr().err
    assert "The user's own widget" in (dest / "docs" / "README.md").read_text()
    models = (dest / "src" / "acme_svc_widget" / "models.py").read_text()
    assert all(name in models for name in schema["properties"])
    # What init derived is what generate derives from the project as it is: nothing to do.
    assert main(["generate", "--check", str(dest)]) == 0
