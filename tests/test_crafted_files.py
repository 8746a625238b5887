"""A repository can ship a journal (`.cfngen-journal.json`) and a manifest
(`.cfngen/generated.json`), and every command acts on them: validate and the pre-commit hooks'
commands too. Crafted ones must change nothing outside the project, nor a user's file in it.

Each way out is a variant of one table (`..`, an absolute path, a folder linked to outside, a
file linked to outside), crossed with every path a journal names (an entry's path, its staged
file, its backup, a folder in dirs) and with a manifest entry; plus the names of a user's own
files where a journal names cfngen's staged and backup files, and a user's files at paths cfngen
could derive that a manifest lists with their hash (docs/design.md).

The outside files look exactly like what the crafted file claims (the journal's hash, cfngen's
header), so only containment protects them. A journal cfngen did not write is refused (exit 2)
naming it and the command that removes it, and nothing of it is applied; a journal a killed
cfngen left is still recovered.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import cfngen._instances
import cfngen._models
from cfngen._files import JOURNAL, sha256
from cfngen._files._ownership import HEADER, MANIFEST_PATH
from cfngen._generate import generate_project
from tests._faults import strace
from tests._generate_helpers import FakeRenderers, make_project, schema_path, widget_schema
from tests.conftest import run_cli

PACKAGE = "acme_test_widget"
HANDLERS = f"src/{PACKAGE}/handlers.py"
TXID = "0123abcd"
#: The commands a journal must stop: validate (a folder, and a schema file as the pre-commit
#: hook passes it), and the pre-commit hooks' generate --check and generate.
COMMANDS: dict[str, Callable[[Path], list[str]]] = {
    "validate": lambda root: ["validate", str(root)],
    "validate-file": lambda root: ["validate", str(schema_path(root))],
    "generate-check": lambda root: ["generate", "--check", str(root)],
    "generate": lambda root: ["generate", str(root)],
}


@pytest.fixture(autouse=True)
def fakes(monkeypatch: pytest.MonkeyPatch) -> FakeRenderers:
    fake = FakeRenderers()
    monkeypatch.setattr(cfngen._models, "render_models", fake.render_models)
    monkeypatch.setattr(cfngen._instances, "example_inputs", fake.example_inputs)
    monkeypatch.setenv("NO_COLOR", "1")
    return fake


def tree(root: Path) -> dict[str, object]:
    """Everything under `root`, links as links (never followed), folders included."""
    found: dict[str, object] = {}
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if "__pycache__" in rel:
                continue
            if path.is_symlink():
                found[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                found[rel] = ("folder",)
            else:
                found[rel] = path.read_bytes()
    return found


class World:
    """outside/ (files named as the variants name them, an empty folder) and the project
    widget/ (generated), with links to outside: a folder `linked`, and one link per file."""

    def __init__(self, tmp_path: Path) -> None:
        self.outside = tmp_path / "outside"
        self.outside.mkdir()
        self.root = make_project(tmp_path / "widget")
        generate_project(self.root)
        (self.root / "notes.txt").write_text("the user's notes\n")
        os.symlink(self.outside, self.root / "linked")

    def escape(self, variant: str, name: str, *, folder: bool = False) -> str:
        """A path the journal may name that reaches outside/NAME, made to exist there (with
        bytes of its own) so that acting on it would show."""
        target = self.outside / name
        if folder:
            target.mkdir(exist_ok=True)
        else:
            target.write_bytes(f"<!-- {HEADER} -->\noutside: {name}\n".encode())
        if variant == "dotdot":
            return f"../outside/{name}"
        if variant == "absolute":
            return str(target)
        if variant == "linked-folder":
            return f"linked/{name}"
        assert variant == "linked-file"
        link = f"{name}-link"
        os.symlink(target, self.root / link)
        return link


ESCAPES = ["dotdot", "absolute", "linked-folder", "linked-file"]


# --------------------------------------------------------------------------- the journal


def entry(path: str, number: int = 0, **fields: object) -> dict[str, object]:
    folder = os.path.dirname(path)
    stem = f"{folder}/.cfngen-{TXID}-{number}" if folder else f".cfngen-{TXID}-{number}"
    return {
        "path": path,
        "op": "write",
        "staged": stem + ".new",
        "backup": stem + ".old",
        "had_original": True,
        "sha256": "0" * 64,
        **fields,
    }


def journal(state: str, entries: list[dict[str, object]], dirs: list[str] = ()) -> str:
    return json.dumps(
        {
            "format": 1,
            "comment": "cfngen was writing these files",
            "id": TXID,
            "pid": 99999,
            "state": state,
            "dirs": list(dirs),
            "entries": entries,
        }
    )


def crafted(world: World, field: str, variant: str) -> str:
    """A journal whose `field` takes the `variant` way out, shaped so that the code before
    this change acted on it: it removed, moved or overwrote what the field names."""
    if field == "path":
        # "Created" by the transaction, with its hash: the undo removes it.
        path = world.escape(variant, "victim.txt")
        data = (world.outside / "victim.txt").read_bytes()
        return journal(
            "committing", [entry(path, op="create", had_original=False, sha256=sha256(data))]
        )
    if field == "staged":
        # A transaction still staging: the undo removes its staged files.
        staged = _named(world, variant, f".cfngen-{TXID}-0.new")
        return journal("staging", [{**entry("notes.txt"), "staged": staged}])
    if field == "backup":
        # A transaction that swapped notes.txt: the undo moves the backup over it.
        backup = _named(world, variant, f".cfngen-{TXID}-0.old")
        notes = sha256((world.root / "notes.txt").read_bytes())
        return journal("committing", [{**entry("notes.txt", sha256=notes), "backup": backup}])
    assert field == "dirs"
    # A folder the transaction made: the undo removes it when it is empty.
    return journal("staging", [], [world.escape(variant, "empty", folder=True)])


def _named(world: World, variant: str, name: str) -> str:
    if variant == "user-file":  # cfngen's staged or backup name is a file of the user's
        return HANDLERS
    return world.escape(variant, name)


JOURNAL_CASES = [
    *[(field, variant) for field in ("path", "staged", "backup", "dirs") for variant in ESCAPES],
    ("staged", "user-file"),
    ("backup", "user-file"),
]


@pytest.mark.parametrize("command", COMMANDS.keys())
@pytest.mark.parametrize(
    ("field", "variant"), JOURNAL_CASES, ids=[f"{f}-{v}" for f, v in JOURNAL_CASES]
)
def test_a_crafted_journal_is_refused_and_nothing_of_it_applied(tmp_path, command, field, variant):
    world = World(tmp_path)
    (world.root / JOURNAL).write_text(crafted(world, field, variant))
    outside, inside = tree(world.outside), tree(world.root)
    result = run_cli(*COMMANDS[command](world.root))
    assert result.exit_code == 2, result.stdout + result.stderr
    assert f"{world.root / JOURNAL}: not a journal this cfngen writes" in result.stderr
    assert "nothing of it was applied" in result.stderr
    assert f"rm -- {world.root / JOURNAL}" in result.stderr
    assert tree(world.outside) == outside
    assert tree(world.root) == inside


def test_a_journal_a_killed_cfngen_left_is_still_recovered_by_validate(tmp_path):
    """The same check passes every journal a Transaction writes: killed at its third link
    (two files swapped, the third not yet), it is undone by the next `cfngen validate`."""
    world = World(tmp_path)
    before = tree(world.root)
    script = tmp_path / "write.py"
    script.write_text(
        "import sys\nfrom pathlib import Path\nfrom cfngen._files import Transaction\n"
        "tx = Transaction(Path(sys.argv[1]))\n"
        "tx.write('notes.txt', b'new notes')\ntx.write('docs/README.md', b'x')\n"
        "tx.create('docs/new/page.md', b'page')\ntx.delete('resource-role.yaml')\n"
        "tx.commit()\n"
    )
    killed = strace(
        [sys.executable, str(script), str(world.root)], syscall="link", when=3, signal="KILL"
    )
    assert killed.returncode in (-9, 137), killed.stderr
    assert (world.root / JOURNAL).exists()
    result = run_cli("validate", str(world.root))
    assert result.exit_code == 0, result.stderr
    assert tree(world.root) == before


# --------------------------------------------------------------------------- the manifest


def listed(world: World, variant: str) -> tuple[str, bytes]:
    """A manifest entry, and the bytes its hash records, that names a file cfngen must not
    touch. The schema no longer derives it (docs/config.md goes too), except docs/README.md."""
    if variant in ESCAPES:
        victim = world.outside / "victim.md"
        victim.write_bytes(f"<!-- {HEADER} -->\nnot the project's\n".encode())
        os.symlink(world.outside, world.root / "docs" / "linked")
        os.symlink(victim, world.root / "docs" / "victim.md")
        path = {
            "dotdot": "docs/../../outside/victim.md",
            "absolute": str(victim),
            "linked-folder": "docs/linked/victim.md",
            "linked-file": "docs/victim.md",
        }[variant]
        return path, victim.read_bytes()
    relpath = {"user-file": "docs/design.md", "user-file-derived": "docs/README.md"}[variant]
    data = b"# Design\n\nOur own notes: no cfngen header.\n"
    (world.root / relpath).write_bytes(data)
    return relpath, data


MANIFEST_CASES = [*ESCAPES, "user-file", "user-file-derived"]


@pytest.mark.parametrize("command", ["generate", "generate-check"])
@pytest.mark.parametrize("variant", MANIFEST_CASES)
def test_a_manifest_entry_alone_never_writes_or_removes_a_file(tmp_path, command, variant):
    world = World(tmp_path)
    relpath, data = listed(world, variant)
    manifest = json.loads((world.root / MANIFEST_PATH).read_text())
    manifest["files"][relpath] = sha256(data)
    (world.root / MANIFEST_PATH).write_text(json.dumps(manifest))
    schema = widget_schema()
    del schema["properties"]["Config"], schema["definitions"]
    schema_path(world.root).write_text(json.dumps(schema, indent=4) + "\n")
    outside = tree(world.outside)
    result = run_cli(*COMMANDS[command](world.root))
    assert result.exit_code == (0 if command == "generate" else 1), result.stderr
    assert tree(world.outside) == outside
    assert (world.root / HANDLERS).is_file() and (world.root / "notes.txt").is_file()
    if variant in ESCAPES:
        assert "ignored, never written or removed" in result.stderr, result.stderr
        assert os.readlink(world.root / "docs" / "victim.md") == str(world.outside / "victim.md")
    else:
        assert (world.root / relpath).read_bytes() == data
        assert "no cfngen header" in result.stderr
    if command == "generate":
        assert not (world.root / "docs/config.md").exists()  # cfngen's own stale file goes
