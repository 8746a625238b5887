"""One home-and-cache layer (cfngen/_files/_home.py, cfngen/_files/_cache.py) under every cache.

1. Every cache, damaged every way a power cut, a half-restored CI cache or a stray tool leaves
   one (an empty entry, a truncated one, a byte changed, no digest, a folder, a link or a named
   pipe where the entry should be), read by the command that reads it: the command gives what
   a clean home gives, names the entry it removed, and the entry is whole again afterwards.
2. Every command that uses the home, with a home it cannot use (a file stands there, it is
   read-only, its disk is full): the command works as with a good home and says so once, with
   CFNGEN_NO_CACHE=1 and `--no-cache` in the hint.
3. The layer's own rules: pruning, temporary files of killed writers, what a cached build
   costs.

The commands run as a user runs them (`python -m cfngen`, its own process), offline: the
build's and the run's requirements come from a wheelhouse made here. Entries are found where
the code keeps them, today's layout first and the one before the layer after, so the same
tests can be run against the code before this layer (they fail there, every case).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests._faults import namespace
from tests._official_projects import by_hand
from tests._wheelhouse import write_wheel
from tests.conftest import WIDGET, made_once
from tests.test_init_support import cfngen_env, git

DAMAGES = ["empty", "truncated", "flipped", "no-digest", "other-type", "link", "fifo"]
BUILD_PACKAGE = "acme-svc-widget.zip"
Done = subprocess.CompletedProcess[str]
MODULE = "Acme::Svc::Vpc::MODULE"


def sampled(cases, inner):
    """`cases` (tuples) as parameters; those not in `inner` are `exhaustive` (CI runs every one,
    the inner loop a sample of each class: ones the code before the layer failed worst)."""
    return [
        pytest.param(
            *case,
            id="-".join(map(str, case)),
            marks=() if case in inner else pytest.mark.exhaustive,
        )
        for case in cases
    ]


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    house = tmp_path_factory.mktemp("wheelhouse")
    write_wheel(house, "acme-dep", "1.0", {"acme_dep.py": b"ANSWER = 42\nNAME = 'acme'\n"})
    write_wheel(house, "acme-answer", "1.0", {"acme_answer.py": b"ANSWER = 42\n"})
    return house


def environment(tmp_path: Path, cfngen_home: Path, wheelhouse: Path) -> dict[str, str]:
    return cfngen_env(
        tmp_path / "user",
        CFNGEN_HOME=str(cfngen_home),
        PIP_CONFIG_FILE=os.devnull,
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(wheelhouse),
        AWS_EC2_METADATA_DISABLED="true",
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
    )


def cfngen(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cfngen", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,  # a command that blocks (on a named pipe, say) fails, never hangs
    )


def said_damaged(stderr: str) -> list[str]:
    """The warnings about a damaged entry (a test's folder name may hold the word too)."""
    return [
        line
        for line in stderr.splitlines()
        if line.startswith("cfngen: warning:") and " damaged" in line
    ]


# --------------------------------------------------------------------------- the projects


def widget(factory: pytest.TempPathFactory, where: Path) -> Path:
    root = where / "widget"
    shutil.copytree(made_once(factory, "widget", "--type-name", WIDGET), root)
    return root


def built_widget(factory: pytest.TempPathFactory, where: Path) -> Path:
    root = widget(factory, where)
    (root / "requirements.txt").write_text("acme-dep==1.0\n")
    return root


def module(factory: pytest.TempPathFactory, where: Path) -> Path:
    root = where / "module"
    made = made_once(factory, "cache-module", "--artifact-type", "module", "-t", MODULE)
    shutil.copytree(made, root)
    return root


def needs_requirements(factory: pytest.TempPathFactory, where: Path) -> Path:
    from tests.test_requirements import REQUESTS, RESOURCE

    root = by_hand(where / "resource", "resource", handlers=RESOURCE.format(module="acme_answer"))
    (root / "requirements.txt").write_text("acme-answer==1.0\n")
    (root / "request.json").write_text(json.dumps(REQUESTS["resource"][1]))
    made = cfngen(root, cfngen_env(where / "user", CFNGEN_HOME=str(where / "home")), "generate")
    assert made.returncode == 0, made.stderr
    return root


def no_project(factory: pytest.TempPathFactory, where: Path) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    return where


@dataclass(frozen=True)
class Reader:
    """A cache and the command that reads it."""

    #: Where its entries are under the home (today's layout, then the one before the layer).
    entries: tuple[str, ...]
    #: "file", "folder" or "git": how an entry is kept.
    shape: str
    project: Callable[[pytest.TempPathFactory, Path], Path]
    args: Callable[[Path], list[str]]
    #: What the command gave: must be the same with a damaged entry as with a clean home.
    outcome: Callable[[Path, Done, dict[str, str]], object]
    #: Entries of other caches removed before the damaged run, so that this one is read.
    forget: tuple[str, ...] = ()


def _file(name: str) -> Callable[[Path, Done, dict[str, str]], object]:
    return lambda project, result, env: (project / name).read_bytes()


def _stdout(project: Path, result: Done, env: dict[str, str]) -> object:
    return result.stdout.replace(str(project), "<project>")


def _answer(project: Path, result: Done, env: dict[str, str]) -> object:
    return [line for line in result.stdout.splitlines() if "boto3" in line]


def _templates(project: Path, result: Done, env: dict[str, str]) -> object:
    """The repository's tags (their commit ids are the same on every machine) and whether git
    finds every object of it whole."""
    repo = Path(env["CFNGEN_HOME"]) / "templates" / "resource"
    fsck = subprocess.run(
        ["git", "fsck", "--no-dangling", "--no-reflogs"], cwd=repo, capture_output=True, check=False
    )
    return git(repo, "show-ref", "--tags"), fsck.returncode


READERS = {
    "models": Reader(
        ("cache/models/*",),
        "file",
        widget,
        lambda house: ["generate", "--force"],
        _file("src/acme_svc_widget/models.py"),
    ),
    "module-reports": Reader(
        ("cache/module-reports/*",),
        "file",
        module,
        lambda house: ["validate", "--format", "json"],
        _stdout,
    ),
    "build-handlers": Reader(
        ("cache/build-handlers/*", "build/handlers/*.zip"),
        "file",
        built_widget,
        lambda house: ["build", "--no-index", "--find-links", str(house)],
        _file(BUILD_PACKAGE),
    ),
    "build-deps": Reader(
        ("cache/build-deps/*", "build/deps/*"),
        "folder",
        built_widget,
        lambda house: ["build", "--no-index", "--find-links", str(house)],
        _file(BUILD_PACKAGE),
        forget=("cache/build-handlers/*", "build/handlers/*"),
    ),
    "requirements": Reader(
        ("cache/requirements/*", "requirements/*"),
        "folder",
        needs_requirements,
        lambda house: ["invoke", "READ", "request.json"],
        _answer,
    ),
    "templates": Reader(
        ("templates/resource",), "git", no_project, lambda house: ["template", "sync"], _templates
    ),
}


# --------------------------------------------------------------------------- the damages


def _found(home: Path, patterns: tuple[str, ...]) -> list[Path]:
    for pattern in patterns:
        found = sorted(p for p in home.glob(pattern) if not p.name.startswith("."))
        if found:
            return found
    return []


def _flip_case(data: bytes) -> bytes:
    """A letter's case changed (the first one past the middle, else the first): the bytes
    still read as text (and JSON, and Python), only wrong."""
    for i in [*range(len(data) // 2, len(data)), *range(len(data) // 2)]:
        if chr(data[i]).isascii() and chr(data[i]).isalpha():
            return data[:i] + bytes([data[i] ^ 0x20]) + data[i + 1 :]
    raise AssertionError("no letter to change")


def _without_digest(data: bytes) -> bytes:
    """The content as a cache without digests keeps it (the first line is the digest now)."""
    return data.split(b"\n", 1)[1] if data.startswith(b"cfngen-cache") else data


def _replace(entry: Path, how: str, elsewhere: Path) -> None:
    """The three damages where something else stands in the entry's place (`elsewhere`: a
    damaged copy, for a link to lead to)."""
    was_folder = entry.is_dir()
    if entry.is_dir() and not entry.is_symlink():
        shutil.rmtree(entry)
    else:
        entry.unlink()
    if how == "other-type":  # a file where a folder was, a folder where a file was
        if was_folder:
            entry.write_text("not a folder")
        else:
            entry.mkdir()
            (entry / "x").write_text("not a file")
    elif how == "link":  # to a damaged copy somewhere else
        entry.symlink_to(elsewhere)
    else:
        os.mkfifo(entry)


def _file_damage(entry: Path, how: str) -> None:
    data = entry.read_bytes()
    elsewhere = entry.parent.parent / f"elsewhere-{entry.name}"
    if how == "empty":
        entry.write_bytes(b"")
    elif how == "truncated":
        entry.write_bytes(data[: len(data) // 2])
    elif how == "flipped":
        entry.write_bytes(_flip_case(data))
    elif how == "no-digest":
        entry.write_bytes(_without_digest(data))
    else:
        elsewhere.write_bytes(data[: len(data) // 2])
        _replace(entry, how, elsewhere)


def _module_file(folder: Path) -> Path:
    (found,) = [p for p in folder.rglob("acme_*.py") if "__pycache__" not in p.parts]
    return found


def _folder_damage(entry: Path, how: str) -> None:
    target = _module_file(entry)
    data = target.read_bytes()
    elsewhere = entry.parent.parent / f"elsewhere-{entry.name}"
    if how == "empty":
        for child in entry.iterdir():
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    elif how == "truncated":
        target.write_bytes(data[: len(data) // 2])
    elif how == "flipped":
        target.write_bytes(_flip_case(data))
    elif how == "no-digest":
        for listing in (entry / ".cfngen-cache", entry / ".complete"):
            if listing.exists():
                listing.unlink()
    else:
        shutil.copytree(entry, elsewhere)
        _module_file(elsewhere).write_bytes(data[: len(data) // 2])
        _replace(entry, how, elsewhere)


def _object_file(repo: Path) -> Path:
    """The loose object file of a file of template 0.1.0."""
    first = git(repo, "ls-tree", "-r", "0.1.0").splitlines()[0].split()[2]
    return repo / ".git" / "objects" / first[:2] / first[2:]


def _git_damage(entry: Path, how: str) -> None:
    elsewhere = entry.parent.parent / "elsewhere-repo"
    if how == "empty":
        shutil.rmtree(entry)
        entry.mkdir()
    elif how in ("truncated", "flipped", "no-digest"):
        obj = _object_file(entry)
        data = obj.read_bytes()
        obj.chmod(0o644)
        if how == "truncated":
            obj.write_bytes(data[: len(data) // 2])
        elif how == "flipped":
            middle = len(data) // 2
            obj.write_bytes(data[:middle] + bytes([data[middle] ^ 0x01]) + data[middle + 1 :])
        else:
            obj.unlink()
    elif how == "retagged":  # a released tag pointing at other files
        git(entry, "tag", "-f", "0.1.0", git(entry, "tag").split()[-1])
    else:
        shutil.copytree(entry, elsewhere, symlinks=True)
        _object_file(elsewhere).write_bytes(b"")
        _replace(entry, how, elsewhere)


SHAPES = {"file": _file_damage, "folder": _folder_damage, "git": _git_damage}

FAST = ("models", "module-reports", "templates")
SLOW = ("build-handlers", "build-deps", "requirements")
CASES = [
    *[(cache, damage) for cache in FAST for damage in DAMAGES],
    ("templates", "retagged"),
    *[(cache, damage) for cache in SLOW for damage in DAMAGES],
]
#: What the inner loop runs (CI runs every case): the headline (a truncated models entry), a
#: pipe (a hang before), and one of each other cache.
INNER = {
    ("models", "truncated"),
    ("module-reports", "fifo"),
    ("templates", "retagged"),
    ("build-handlers", "truncated"),
    ("requirements", "flipped"),
}


@pytest.mark.parametrize(("cache", "damage"), sampled(CASES, INNER))
def test_a_damaged_entry_is_discarded_named_and_made_again(
    cache, damage, tmp_path, tmp_path_factory, wheelhouse
):
    reader = READERS[cache]
    home = tmp_path / "cfngen-home"
    env = environment(tmp_path, home, wheelhouse)
    project = reader.project(tmp_path_factory, tmp_path / "work")
    args = reader.args(wheelhouse)

    first = cfngen(project, env, *args)
    assert first.returncode == 0, first.stdout + first.stderr
    clean = reader.outcome(project, first, env)
    entries = _found(home, reader.entries)
    assert len(entries) == 1, entries
    (entry,) = entries
    SHAPES[reader.shape](entry, damage)
    for pattern in reader.forget:
        for other in home.glob(pattern):
            shutil.rmtree(other) if other.is_dir() else other.unlink()

    damaged = cfngen(project, env, *args)
    assert damaged.returncode == 0, damaged.stdout + damaged.stderr
    assert "Traceback" not in damaged.stderr
    assert reader.outcome(project, damaged, env) == clean
    assert [line for line in said_damaged(damaged.stderr) if f"{entry}: " in line], damaged.stderr

    again = cfngen(project, env, *args)
    assert again.returncode == 0, again.stdout + again.stderr
    assert reader.outcome(project, again, env) == clean
    assert said_damaged(again.stderr) == [], again.stderr


# --------------------------------------------------------------------------- a home it cannot use


def old_widget(factory: pytest.TempPathFactory, where: Path) -> Path:
    """A project of template 0.1.0 in git, as tests/test_upgrade.py makes it (shared)."""
    root = where / "old-widget"
    made = made_once(
        factory, "upgrade-0.1.0", "-t", WIDGET, "--template-version", "0.1.0", git=True
    )
    shutil.copytree(made, root, symlinks=True)
    return root


def _project_files(project: Path, result: Done, env: dict[str, str]) -> object:
    from tests.test_init_support import project_files

    return project_files(project)


def _made(project: Path, result: Done, env: dict[str, str]) -> object:
    return _project_files(project / "widget", result, env)


#: Every command that uses the home, with a project of its own and what it gives.
COMMANDS = {
    "generate": READERS["models"],
    "validate": READERS["module-reports"],
    "build": READERS["build-handlers"],
    "invoke": READERS["requirements"],
    "init": Reader(
        ("templates/resource",),
        "git",
        no_project,
        lambda house: ["init", "--no-input", "--no-git", "-t", WIDGET, "widget"],
        _made,
    ),
    "upgrade": Reader(
        ("templates/resource",), "git", old_widget, lambda house: ["upgrade"], _project_files
    ),
}
HOMES = ["file", "read-only", "full"]
BYPASSED = "cfngen's caches in "


def run_with_home(
    how: str, project: Path, env: dict[str, str], args: list[str], home: Path
) -> tuple[Done, int]:
    """The command with a home it cannot use; and how many files the home holds afterwards
    (a full disk's filler aside)."""
    import shlex

    if how == "file":
        home.parent.mkdir(parents=True, exist_ok=True)
        home.write_text("a file where the home folder would be")
        result = cfngen(project, env, *args)
        assert home.read_text() == "a file where the home folder would be"
        return result, 0
    home.mkdir(parents=True)
    mount = (
        f"mount --bind {home} {home} && mount -o remount,bind,ro {home}"
        if how == "read-only"
        else f"mount -t tmpfs -o size=64k tmpfs {home} && "
        f"(head -c 1M /dev/zero > {home}/filler 2> /dev/null || true)"
    )
    out, err = home.parent / "out", home.parent / "err"
    script = (
        f"{mount}\n"
        f"cd {shlex.quote(str(project))}\n"
        f"code=0; {shlex.join([sys.executable, '-m', 'cfngen', *args])} > {out} 2> {err}"
        " || code=$?\n"
        f"find {home} -type f ! -name filler | wc -l\n"
        "exit $code\n"
    )
    done = namespace(script, env=env)
    result = subprocess.CompletedProcess(args, done.returncode, out.read_text(), err.read_text())
    assert done.stderr == "", done.stderr
    return result, int(done.stdout.split()[-1])


@pytest.mark.parametrize(
    ("command", "how"),
    sampled(
        [(command, how) for command in COMMANDS for how in HOMES],
        {
            ("build", "file"),  # exit 70 before
            ("validate", "full"),
            ("upgrade", "read-only"),
        },
    ),
)
def test_a_home_that_cannot_be_used_costs_time_and_one_warning(
    command, how, tmp_path, tmp_path_factory, wheelhouse
):
    reader = COMMANDS[command]
    args = reader.args(wheelhouse)
    good = environment(tmp_path / "good", tmp_path / "good" / "cfngen-home", wheelhouse)
    expected_at = reader.project(tmp_path_factory, tmp_path / "good")
    expected = cfngen(expected_at, good, *args)
    assert expected.returncode == 0, expected.stdout + expected.stderr

    home = tmp_path / "bad" / "cfngen-home"
    env = environment(tmp_path / "bad", home, wheelhouse)
    project = reader.project(tmp_path_factory, tmp_path / "bad")
    result, files_left = run_with_home(how, project, env, args, home)
    assert result.returncode == expected.returncode, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert reader.outcome(project, result, env) == reader.outcome(expected_at, expected, good)
    warnings = [line for line in result.stderr.splitlines() if BYPASSED in line]
    assert len(warnings) == 1, result.stderr
    assert "CFNGEN_NO_CACHE=1" in warnings[0] and "--no-cache" in warnings[0]
    assert str(home) in warnings[0]
    assert files_left == 0  # nothing written, nothing half-written


# --------------------------------------------------------------------------- the answers file

KIND_ARGS = {
    "resource": ["-t", WIDGET],
    "hook": ["--artifact-type", "hook", "-t", "Acme::Svc::Hook"],
    "module": ["--artifact-type", "module", "-t", MODULE],
    "custom_resource": ["--artifact-type", "custom-resource"],
}


@pytest.mark.parametrize(
    ("kind", "where"),
    sampled(
        [(kind, where) for kind in KIND_ARGS for where in ("outside-home", "under-home")],
        {("resource", "outside-home")},
    ),
)
def test_the_answers_file_records_no_machine_path_whatever_cfngen_home_says(kind, where, tmp_path):
    """copier records the template path verbatim and the file is committed: with CFNGEN_HOME
    set, it must still read `~/.cfngen/templates/<kind>`, the same on every machine."""
    import yaml

    user = tmp_path / "user"
    user.mkdir()
    home = tmp_path / "caches" if where == "outside-home" else user / "elsewhere"
    env = cfngen_env(user, CFNGEN_HOME=str(home))
    made = cfngen(tmp_path, env, "init", "--no-input", "--no-git", *KIND_ARGS[kind], "x")
    assert made.returncode == 0, made.stderr
    answers = yaml.safe_load((tmp_path / "x" / ".copier-answers.yml").read_text())
    assert answers["_src_path"] == f"~/.cfngen/templates/{kind}"
    assert (home / "templates" / kind / ".git").is_dir()


def test_upgrade_with_cfngen_home_set_reads_the_templates_there_and_keeps_the_record(
    tmp_path, tmp_path_factory
):
    import yaml

    env = cfngen_env(tmp_path / "user", CFNGEN_HOME=str(tmp_path / "caches"))
    project = old_widget(tmp_path_factory, tmp_path)
    upgraded = cfngen(project, env, "upgrade")
    assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr
    answers = yaml.safe_load((project / ".copier-answers.yml").read_text())
    assert answers["_src_path"] == "~/.cfngen/templates/resource"
    assert answers["_commit"] != "0.1.0"
    assert not (tmp_path / "user" / ".cfngen").exists()  # the user's own home is never used


# --------------------------------------------------------------------------- the layer's own rules


@pytest.fixture
def layer_home(tmp_path, monkeypatch):
    from cfngen._files import take_notes

    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CFNGEN_NO_CACHE", raising=False)
    take_notes()  # as a command starts: nothing said yet
    yield tmp_path / "home"
    take_notes()


def test_a_file_entry_reads_back_what_was_put_and_nothing_else(layer_home):
    from cfngen._files import Cache, take_notes

    cache = Cache("t", keep=8, what="the test cache")
    assert cache.get("k1") is None
    cache.put("k1", b"first")
    cache.put("k2", b"")
    assert (cache.get("k1"), cache.get("k2"), cache.get("k3")) == (b"first", b"", None)
    cache.put("k1", b"second")  # replaced
    assert cache.get("k1") == b"second"
    assert take_notes() == []


@pytest.mark.parametrize("damage", DAMAGES)
@pytest.mark.parametrize("shape", ["file", "folder"])
def test_every_damage_reads_as_missing_and_is_removed(layer_home, shape, damage):
    from cfngen._files import Cache, take_notes

    cache = Cache("t", keep=8, what="the test cache")
    if shape == "file":
        cache.put("key", b"ANSWER = 42\n" * 10)
        read: Callable[[], object] = lambda: cache.get("key")  # noqa: E731
    else:
        filled = cache.new_folder()
        (filled / "pkg").mkdir()
        (filled / "pkg" / "acme_mod.py").write_text("ANSWER = 42\n" * 10)
        assert cache.put_folder("key", filled) == layer_home / "cache" / "t" / "key"
        read = lambda: cache.get_folder("key")  # noqa: E731
    assert read() is not None
    SHAPES[shape](layer_home / "cache" / "t" / "key", damage)
    assert read() is None
    (said,) = take_notes()
    assert said.startswith(
        f"{layer_home / 'cache' / 't' / 'key'}: a damaged entry of the test cache"
    )
    assert not os.path.lexists(layer_home / "cache" / "t" / "key")
    assert [
        p.name for p in (layer_home / "cache" / "t").iterdir() if p.name.startswith("elsewhere")
    ] == []


def test_files_python_writes_into_a_folder_entry_are_not_part_of_it(layer_home):
    from cfngen._files import Cache

    cache = Cache("t", keep=8, what="the test cache")
    filled = cache.new_folder()
    (filled / "acme_mod.py").write_text("ANSWER = 42\n")
    entry = cache.put_folder("key", filled)
    assert entry is not None
    (entry / "__pycache__").mkdir()
    (entry / "__pycache__" / "acme_mod.cpython-311.pyc").write_bytes(b"bytecode")
    assert cache.get_folder("key") == entry
    (entry / "stray.py").write_text("import os\n")  # anything else is not what was put
    assert cache.get_folder("key") is None


def test_the_entries_used_last_are_kept(layer_home):
    from cfngen._files import Cache

    cache = Cache("t", keep=2, what="the test cache")
    folder = layer_home / "cache" / "t"
    for age, key in enumerate(["d", "c", "b", "a"]):  # a is the oldest
        cache.put(key, key.encode())
        os.utime(folder / key, ns=(10**18 - age * 10**9,) * 2)
    assert cache.get("a") == b"a"  # read now: used last
    cache.put("e", b"e")
    assert sorted(p.name for p in folder.iterdir()) == ["a", "e"]


def test_what_a_killed_writer_left_is_removed_and_a_live_one_is_left_alone(layer_home):
    """A put killed before its rename leaves a temporary file; the next put removes it once no
    process holds it (and it is older than the minute between making and locking it)."""
    from cfngen._files import Cache
    from tests._faults import strace

    folder = layer_home / "cache" / "t"
    code = (
        "from cfngen._files import Cache; Cache('t', keep=8, what='t').put('killed', b'x' * 100000)"
    )
    killed = strace(
        [sys.executable, "-c", code], syscall="rename", when=1, signal="KILL",
        env={**os.environ, "CFNGEN_HOME": str(layer_home), "PYTHONDONTWRITEBYTECODE": "1"},
    )  # fmt: skip
    assert killed.returncode != 0
    (left,) = [p for p in folder.iterdir()]
    assert left.name.startswith(".tmp-")
    cache = Cache("t", keep=8, what="the test cache")
    assert cache.get("killed") is None
    alive = cache.new_folder()  # held by this process
    for path in (left, alive):
        os.utime(path, ns=(10**18,) * 2)
    cache.put("other", b"y")
    assert not left.exists()
    assert alive.exists()
    cache.drop(alive)


def test_a_put_is_flushed_before_its_rename_and_the_folder_after(layer_home, tmp_path):
    """fsync(file) -> rename -> fsync(folder), as strace sees the calls: a power cut leaves
    the old entry or the whole new one."""
    from tests._faults import require

    trace = tmp_path / "trace"
    code = "from cfngen._files import Cache; Cache('t', keep=8, what='t').put('key', b'x')"
    subprocess.run(
        [require("strace"), "-f", "-o", str(trace), "-e", "trace=fsync,rename,renameat,renameat2",
         sys.executable, "-c", code],
        env={**os.environ, "CFNGEN_HOME": str(layer_home)},
        check=True,
        capture_output=True,
    )  # fmt: skip
    calls = [
        line.split("(", 1)[0].split()[-1]
        for line in trace.read_text().splitlines()
        if "fsync(" in line or ("rename" in line and "/cache/t/key" in line)
    ]
    assert calls[-3:][0] == "fsync" and calls[-3:][1].startswith("rename")
    assert calls[-1] == "fsync"
