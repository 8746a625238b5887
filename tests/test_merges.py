"""After `git merge`: nothing conflicted passes silently.

Two branches each add a property (and a permission) to the schema, run `cfngen generate` and
commit; `git merge` then conflicts on the schema and on the files generate derives from it.
The user resolves the schema only. While a file cfngen derives holds git's conflict markers,
`generate --check`, `cfngen test` and `cfngen build` fail naming it; `cfngen generate` derives
such files again (an unreadable manifest is rebuilt from git's two sides of it during the merge,
from the files' own headers after it), and the project is then what a fresh generate makes.

The merges are real: a project `cfngen init` made (a git repository), real branches, a real
`git merge`, once per kind for the module; each case copies the merged tree, resolves by
taking ours every conflicted derived file but those of its variant, and runs generate during
the merge (git's index holds both sides) or after `git add -A` and a commit (markers and all).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

import cfngen._instances
import cfngen._models
from cfngen._files._ownership import MANIFEST_PATH
from tests._generate_helpers import FakeRenderers, make_project
from tests.conftest import made_once, run_command

GIT_IDENTITY = ("-c", "user.name=Test", "-c", "user.email=test@example.com")
#: A line git writes around a conflict, by a check of the test's own (not cfngen's detector).
_MARKER_LINE = re.compile(rb"^(<{7}|>{7}|\|{7})( |$)|^={7}$", re.MULTILINE)


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *GIT_IDENTITY, *args], cwd=cwd, capture_output=True, text=True, check=check
    )


def holds_markers(data: bytes) -> bool:
    return _MARKER_LINE.search(data) is not None


# --------------------------------------------------------------------------- the two kinds


def _resource_change(doc: dict, name: str, permission: str) -> None:
    # writeOnly: the example's handlers ignore the property, and the contract still holds.
    doc["properties"][name] = {"description": f"The {name}.", "type": "string", "maxLength": 64}
    doc.setdefault("writeOnlyProperties", []).append(f"/properties/{name}")
    doc["handlers"]["create"]["permissions"].append(permission)


def _hook_change(doc: dict, name: str, permission: str) -> None:
    doc["typeConfiguration"]["properties"][name] = {"description": f"The {name}.", "type": "string"}
    doc["handlers"]["preCreate"]["permissions"].append(permission)


@dataclass(frozen=True)
class Shape:
    #: made_once's name and `cfngen init` arguments.
    init: tuple[str, ...]
    schema: str
    change: Callable[[dict, str, str], None]
    #: Variant -> the prefixes of the conflicted derived files it leaves conflicted.
    variants: dict[str, tuple[str, ...]]


SHAPES = {
    "resource": Shape(
        ("demo", "--example"),
        "example-ssm-parameter.json",
        _resource_change,
        {
            "manifest": (MANIFEST_PATH,),
            "models.py": ("src/example_ssm_parameter/models.py",),
            "docs": ("docs/",),
            "inputs": ("inputs/",),
            "example_inputs": ("example_inputs/",),
            "role": ("resource-role.yaml",),
            "all": ("",),
        },
    ),
    "hook": Shape(
        ("merge-hook", "--artifact-type", "hook", "-t", "Acme::Svc::Hook"),
        "acme-svc-hook.json",
        _hook_change,
        {
            "manifest": (MANIFEST_PATH,),
            "models.py": ("src/acme_svc_hook/models.py",),
            "docs": ("docs/",),
            "configuration": ("acme-svc-hook-configuration.json",),
            "role": ("hook-role.yaml",),
            "all": ("",),
        },
    ),
}
#: Both branches add their permission at the end of the sorted list: the role conflicts.
OURS, THEIRS = ("Colour", "xray:PutTelemetryRecords"), ("Size", "xray:PutTraceSegments")


@dataclass(frozen=True)
class Merge:
    #: The project in the middle of `git merge`, its schema resolved by hand and added.
    tree: Path
    shape: Shape
    home: Path
    #: The derived files git left conflicted (the schema is resolved).
    conflicted: frozenset[str]
    #: What a fresh generate derives from the resolved schema, by path.
    expected: dict[str, bytes]

    def copy(self, to: Path) -> Path:
        shutil.copytree(self.tree, to, symlinks=True)
        return to

    def run(self, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
        env = {"CFNGEN_HOME": str(self.home), "PIP_CONFIG_FILE": os.devnull}
        return run_command(*args, cwd=root, env=env)


def _edit_schema(path: Path, change: Callable[[dict], None]) -> None:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc, indent=4) + "\n")


def _make_merge(kind: str, factory: pytest.TempPathFactory) -> Merge:
    shape = SHAPES[kind]
    base = factory.mktemp(f"merge-{kind}")
    home, root = base / "home", base / "project"
    shutil.copytree(made_once(factory, *shape.init, git=True), root, symlinks=True)
    merge = Merge(root, shape, home, frozenset(), {})
    (root / "requirements.txt").write_text("")  # nothing for build's pip to fetch
    git(root, "commit", "-qam", "no dependencies")
    git(root, "branch", "theirs")
    for branch, (name, permission) in (("theirs", THEIRS), ("-", OURS)):
        git(root, "checkout", "-q", branch)
        _edit_schema(root / shape.schema, lambda d, n=name, p=permission: shape.change(d, n, p))
        generated = merge.run(root, "generate")
        assert generated.returncode == 0, generated.stderr
        git(root, "add", "-A")
        git(root, "commit", "-qm", f"Add {name}")
    assert git(root, "merge", "theirs", check=False).returncode != 0
    unmerged = set(git(root, "diff", "--name-only", "--diff-filter=U").stdout.split())
    assert shape.schema in unmerged
    git(root, "show", f":1:{shape.schema}")  # the base, resolved by hand below
    resolved = json.loads(git(root, "show", f":1:{shape.schema}").stdout)
    for name, permission in (OURS, THEIRS):
        shape.change(resolved, name, permission)
    (root / shape.schema).write_text(json.dumps(resolved, indent=4) + "\n")
    git(root, "add", shape.schema)

    # What a fresh generate makes of the resolved schema: nothing derived left, no manifest.
    fresh = merge.copy(base / "fresh")
    for side in (":2:", ":3:"):
        recorded = json.loads(git(fresh, "show", side + MANIFEST_PATH).stdout)["files"]
        for relpath in recorded:
            (fresh / relpath).unlink(missing_ok=True)
    (fresh / MANIFEST_PATH).unlink()
    assert merge.run(fresh, "generate").returncode == 0
    files = json.loads((fresh / MANIFEST_PATH).read_text())["files"]
    expected = {relpath: (fresh / relpath).read_bytes() for relpath in files}
    return Merge(root, shape, home, frozenset(unmerged - {shape.schema}), expected)


@pytest.fixture(scope="module")
def merges(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Merge]:
    made: dict[str, Merge] = {}

    def get(kind: str) -> Merge:
        if kind not in made:
            made[kind] = _make_merge(kind, tmp_path_factory)
        return made[kind]

    return get


def _prepare(merge: Merge, root: Path, variant: str, when: str) -> list[str]:
    """The merged tree at `root` with only the variant's files conflicted; with `when`
    "committed", everything added and committed as it is. The files left conflicted."""
    merge.copy(root)
    prefixes = merge.shape.variants[variant]
    left = sorted(p for p in merge.conflicted if p.startswith(prefixes))
    assert left, f"the merge left none of {prefixes} conflicted: {sorted(merge.conflicted)}"
    for relpath in sorted(merge.conflicted - set(left)):
        git(root, "checkout", "--ours", "--", relpath)
    if when == "committed":
        git(root, "add", "-A")
        git(root, "commit", "-q", "--no-edit", "--no-verify")
    for relpath in left:
        assert holds_markers((root / relpath).read_bytes()), relpath
    return left


CASES = [(kind, variant) for kind, shape in SHAPES.items() for variant in shape.variants]


@pytest.mark.parametrize("when", ["merging", "committed"])
@pytest.mark.parametrize(("kind", "variant"), CASES)
def test_a_merge_that_left_derived_files_conflicted_ends_in_a_correct_project(
    merges, tmp_path, kind, variant, when
):
    merge = merges(kind)
    root = tmp_path / "project"
    left = _prepare(merge, root, variant, when)

    # Nothing passes while the markers are there, and each names every conflicted file.
    check = merge.run(root, "generate", "--check")
    assert check.returncode == 1, check.stdout + check.stderr
    for relpath in left:
        line = rf"^holds git conflict markers \(line \d+\): {re.escape(relpath)}$"
        assert re.search(line, check.stdout, re.MULTILINE), check.stdout
    invoke = ("invoke", "CREATE" if kind == "resource" else "preCreate", "request.json")
    for command in [("test",), ("build",), invoke]:
        refused = merge.run(root, *command)
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert "git conflict markers" in refused.stderr
        assert "then run `cfngen generate`" in refused.stderr
        assert all(relpath in refused.stderr for relpath in left), refused.stderr
    assert not list(root.glob("*.zip"))

    generated = merge.run(root, "generate")
    assert generated.returncode == 0, generated.stdout + generated.stderr
    if MANIFEST_PATH in left:
        assert f"{MANIFEST_PATH} cannot be read (it holds git conflict markers" in generated.stderr
    on_disk = {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }
    assert [p for p, data in on_disk.items() if holds_markers(data)] == []

    # Every derived file is what a fresh generate makes, but a JSON file that held no marker
    # and that no record shows cfngen wrote (the manifest was committed with its markers):
    # that one is the user's, and generate says so.
    differ = sorted(p for p, data in merge.expected.items() if on_disk.get(p) != data)
    no_record = when == "committed" and MANIFEST_PATH in left
    for relpath in differ:
        assert no_record and relpath.endswith(".json") and relpath not in left, relpath
        assert f"left {relpath} alone: {MANIFEST_PATH} could not be read" in generated.stderr
    checked = merge.run(root, "generate", "--check")
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("when", ["merging", "committed"])
@pytest.mark.parametrize("kind", sorted(SHAPES))
def test_test_and_build_pass_once_generate_derived_the_merge_again(merges, tmp_path, kind, when):
    merge = merges(kind)
    root = tmp_path / "project"
    _prepare(merge, root, "all", when)
    assert merge.run(root, "generate").returncode == 0
    tested = merge.run(root, "test")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    built = merge.run(root, "build")
    assert built.returncode == 0, built.stdout + built.stderr
    assert len(list(root.glob("*.zip"))) == 1


# --------------------------------------------------------------------------- one detector


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> FakeRenderers:
    fake = FakeRenderers()
    monkeypatch.setattr(cfngen._models, "render_models", fake.render_models)
    monkeypatch.setattr(cfngen._instances, "example_inputs", fake.example_inputs)
    return fake


@pytest.fixture
def project(tmp_path: Path, fakes: FakeRenderers) -> Path:
    root = make_project(tmp_path / "widget", requirements=False)
    assert run_command("generate", root).returncode == 0
    return root


def _merged_by_git(
    tmp_path: Path, base: bytes, ours: bytes, theirs: bytes, *, style: str, size: int | None
) -> bytes:
    """What `git merge` leaves in a file both sides changed, in a conflict style."""
    repo = tmp_path / f"styles-{style}-{size}"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    if size is not None:
        (repo / ".gitattributes").write_text(f"page.md conflict-marker-size={size}\n")
    (repo / "page.md").write_bytes(base)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "theirs")
    (repo / "page.md").write_bytes(theirs)
    git(repo, "commit", "-qam", "theirs")
    git(repo, "checkout", "-q", "main")
    (repo / "page.md").write_bytes(ours)
    git(repo, "commit", "-qam", "ours")
    assert git(
        repo, "-c", f"merge.conflictStyle={style}", "merge", "theirs", check=False
    ).returncode
    return (repo / "page.md").read_bytes()


#: (conflict style, marker size, line endings): each way git writes a conflict.
STYLES = {
    "merge": ("merge", None, b"\n"),
    "diff3": ("diff3", None, b"\n"),
    "zdiff3": ("zdiff3", None, b"\n"),
    "merge-size-10": ("merge", 10, b"\n"),
    "diff3-size-9": ("diff3", 9, b"\n"),
    "merge-crlf": ("merge", None, b"\r\n"),
}


@pytest.mark.parametrize(("style", "size", "newline"), STYLES.values(), ids=STYLES)
def test_every_style_of_conflict_git_writes_is_found_and_derived_again(
    project, tmp_path, style, size, newline
):
    page = project / "docs/README.md"
    base = page.read_bytes().replace(b"\n", newline)
    lines = base.split(newline)
    at = len(lines) // 2
    ours = newline.join([*lines[:at], b"Ours.", *lines[at:]])
    theirs = newline.join([*lines[:at], b"Theirs.", *lines[at:]])
    page.write_bytes(_merged_by_git(tmp_path, base, ours, theirs, style=style, size=size))
    opened = page.read_bytes().split(newline).index(b"<" * (size or 7) + b" HEAD") + 1

    check = run_command("generate", "--check", project)
    assert check.returncode == 1
    assert f"holds git conflict markers (line {opened}): docs/README.md\n" in check.stdout
    assert run_command("generate", project).returncode == 0
    assert not holds_markers(page.read_bytes())


#: Lines that look like git's markers in a file no merge touched: a hand edit, not a conflict.
LOOK_ALIKES = {
    "a heading underlined": b"Notes\n=======\n",
    "an opening line alone": b"<<<<<<< not a conflict\n",
    "no opening line": b"=======\n>>>>>>> theirs\n",
    "out of order": b">>>>>>> theirs\n=======\n<<<<<<< ours\n",
    "markers inside a line": b"x <<<<<<< a\n=======\n>>>>>>> b\n",
}


@pytest.mark.parametrize("added", LOOK_ALIKES.values(), ids=LOOK_ALIKES)
def test_lines_that_only_look_like_markers_are_a_hand_edit(project, added):
    page = project / "docs/README.md"
    page.write_bytes(page.read_bytes() + added)
    check = run_command("generate", "--check", project)
    assert check.returncode == 1
    assert "edited by hand: docs/README.md" in check.stdout
    assert "conflict" not in check.stdout + check.stderr
    assert run_command("test", project).stderr.count("conflict markers") == 0


# --------------------------------------------------------------------------- the records


CONFLICT = b'{\n<<<<<<< HEAD\n    "Name": "ours"\n=======\n    "Name": "theirs"\n>>>>>>> b\n}\n'


def test_a_file_the_record_makes_the_users_keeps_its_markers_and_nothing_passes(project):
    """An input the user took over is theirs even with markers in it: generate leaves it,
    naming the markers; --check, test and build fail until the user resolves them."""
    create = project / "inputs/inputs_1_create.json"
    create.write_text('{"Name": "mine"}\n')
    assert run_command("generate", project).returncode == 0  # now the user's for good
    create.write_bytes(CONFLICT)

    generated = run_command("generate", "--force", project)
    assert generated.returncode == 0
    assert create.read_bytes() == CONFLICT
    assert (
        f"left inputs/inputs_1_create.json alone: {MANIFEST_PATH} records it as yours "
        "(and it holds git conflict markers from line 2: resolve them)"
    ) in generated.stderr
    check = run_command("generate", "--check", project)
    assert check.returncode == 1
    assert "holds git conflict markers (line 2): inputs/inputs_1_create.json" in check.stdout
    for command in ("test", "build"):
        refused = run_command(command, project)
        assert refused.returncode == 1
        assert "inputs/inputs_1_create.json (line 2) holds git conflict markers" in (refused.stderr)


@pytest.mark.parametrize(
    "manifest",
    [b"", b'{"files": {"docs/README.md": ', b"[]\n", b"\xff\xfe{}"],
    ids=["empty", "truncated", "not-an-object", "not-utf-8"],
)
def test_an_unreadable_manifest_is_named_and_never_taken_as_no_record(project, manifest):
    """Outside a merge, what the files show is all there is: headers make files cfngen's;
    a JSON file is the user's, with a warning, unless it holds conflict markers."""
    create = project / "inputs/inputs_1_create.json"
    create.write_text('{"Name": "from an older schema, or yours: nothing tells"}\n')
    update = project / "example_inputs/inputs_1_update.json"
    update.write_bytes(CONFLICT)
    (project / MANIFEST_PATH).write_bytes(manifest)
    schema = json.loads((project / "acme-test-widget.json").read_text())
    schema["properties"]["Colour"] = {"type": "string"}
    (project / "acme-test-widget.json").write_text(json.dumps(schema, indent=4) + "\n")

    generated = run_command("generate", project)
    assert generated.returncode == 0
    assert f"{MANIFEST_PATH} cannot be read (it is not a JSON object): rebuilt" in (
        generated.stderr
    )
    assert "Colour" in (project / "src/acme_test_widget/models.py").read_text()
    assert not holds_markers(update.read_bytes())
    assert f"left inputs/inputs_1_create.json alone: {MANIFEST_PATH} could not be read" in (
        generated.stderr
    )
    assert json.loads((project / MANIFEST_PATH).read_text())["files"]
