"""The one set of test tools: a CLI runner, a golden-tree comparator, projects made once per
session, and oracle tools that must be there.

- `cli(*args, cwd=...)` runs the cfngen command line in this process and returns exit code,
  stdout and stderr (`CliResult`); `run_cli` is the same function, for module-scoped fixtures.
- `golden(folder, actual)` compares {relative path: bytes} with a folder under snapshots/: the
  file set first, then a unified diff per file; with CFNGEN_UPDATE_SNAPSHOTS=1 it rewrites the
  folder instead. Every snapshot test carries the `snapshot` marker, so one command refreshes
  them all: REFRESH below (then review the change with `git diff snapshots/`).
- `made_project(name, *init_args)` is the project `cfngen init --no-input --no-git` makes, made
  once for the whole session and shared by every xdist worker: copy it before changing it.
- `oracle_tool(name)` is the path of an external tool an oracle test compares with; a missing
  one fails the test with how to install it (never a skip: CI must not pass without the oracle).

- `synced_home()` is a HOME whose template cache `cfngen template sync` filled (and whose model
  cache an init of Acme::Svc::Widget filled), made once for the session and copied for each
  caller.

Markers (pyproject.toml): `corpus` (the 1898 real schemas), `oracle` (the official toolchain
and other tools as judges), `snapshot` (golden files), `exhaustive` (fault injection at every
step, and every combination of a fault's settings). The inner loop is
`python -m pytest -m "not corpus and not oracle" -n 2`; CI runs everything. A run that selects
with -m leaves the `exhaustive` cases out unless its expression names them
(`pytest_collection_modifyitems` below): the inner loop then injects each kind of fault at a
deterministic sample of steps (their `[sample]` twins), while a run without -m (CI) and
`-m exhaustive` inject at every step.
"""

from __future__ import annotations

import contextlib
import difflib
import fcntl
import functools
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

# No test may reach AWS or the instance-metadata address botocore falls back to without
# credentials: fake keys and a region for this process and every subprocess it starts.
os.environ.update(
    AWS_EC2_METADATA_DISABLED="true",
    AWS_ACCESS_KEY_ID="testing",
    AWS_SECRET_ACCESS_KEY="testing",
    AWS_DEFAULT_REGION="us-east-1",
)
for _name in ("AWS_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
    os.environ.pop(_name, None)


def _temporary_folders_in_memory(shm: Path = Path("/dev/shm")) -> None:
    """Put tmp_path, and every temporary folder a subprocess makes, in memory where Linux
    offers its tmpfs. A run writes about 45,000 files (projects, git repositories, wheels);
    on a virtual disk writing them and deleting them at the end took over 10 s of the inner
    loop. A TMPDIR the caller set wins; so does the disk when memory is short."""
    if "TMPDIR" in os.environ:
        return
    try:
        free = os.statvfs(shm)
        if free.f_bavail * free.f_frsize < 2 << 30:
            return
        root = shm / f"cfngen-tests-{os.getuid()}"
        root.mkdir(mode=0o700, exist_ok=True)
        status = root.lstat()  # /dev/shm is shared: only a folder of ours, never a symlink
    except OSError:
        return
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.getuid():
        return
    os.environ["TMPDIR"] = str(root)
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again


_temporary_folders_in_memory()

REPO = Path(__file__).resolve().parent.parent
SNAPSHOTS = REPO / "snapshots"
UPDATE_ENV = "CFNGEN_UPDATE_SNAPSHOTS"
#: The one command that refreshes every snapshot (init, generate, validate, ...).
REFRESH = f"{UPDATE_ENV}=1 python -m pytest -m snapshot"


def pytest_configure(config: pytest.Config) -> None:
    """Keep bytecode even where PYTHONDONTWRITEBYTECODE is set: this process's in
    .pytest_cache/ (without it each xdist worker recompiles, and re-rewrites the asserts of,
    every test module on every run), cfngen's own where Python looks for it. Subprocesses
    still write none (the environment is left as it is)."""
    cache = getattr(config, "cache", None)  # None under -p no:cacheprovider
    if not sys.dont_write_bytecode or sys.pycache_prefix or cache is None:
        return
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        # The hundreds of `python -m cfngen` the tests start read cfngen's bytecode from
        # cfngen/__pycache__ (as from an installed package, which pip compiles) instead of
        # each compiling cfngen again; only files changed since the last run are compiled.
        import compileall

        compileall.compile_dir(REPO / "cfngen", quiet=1)
    try:
        prefix = str(cache.mkdir("pycache"))
    except OSError:  # a read-only checkout: compile as before
        return
    sys.pycache_prefix = prefix
    sys.dont_write_bytecode = False


EXHAUSTIVE = "exhaustive"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave the `exhaustive` cases out of runs that select with -m but do not name them."""
    markexpr = config.option.markexpr
    if not markexpr or EXHAUSTIVE in markexpr:
        return
    left_out = [item for item in items if item.get_closest_marker(EXHAUSTIVE)]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if not item.get_closest_marker(EXHAUSTIVE)]


#: Parametrize a fault sweep with this: the `sample` case injects at a deterministic sample
#: of the steps (the inner loop), the `every-step` case (marked exhaustive) at every step.
SWEEPS = [
    pytest.param(3, id="sample"),
    pytest.param(1, id="every-step", marks=pytest.mark.exhaustive),
]


def sampled(values: Iterable[Any], inner: Iterable[Any]) -> list[Any]:
    """`values` as parameters; those not in `inner` are `exhaustive`: CI runs every variant,
    the inner loop a sample (at least one of each class, the ones the code before failed)."""
    keep = set(inner)
    return [
        pytest.param(
            *(v if isinstance(v, tuple) else (v,)),  # a tuple: one value per argument name
            marks=() if v in keep else pytest.mark.exhaustive,
            id="-".join(map(str, v)) if isinstance(v, tuple) else str(v) or None,
        )
        for v in values
    ]


def other_hash_seed() -> str:
    """A PYTHONHASHSEED for a subprocess that differs from this process's (random unless the
    environment fixed it): output compared across the two must not depend on it."""
    return "3" if os.environ.get("PYTHONHASHSEED") == "2" else "2"


def fault_steps(first: int, last: int, stride: int) -> range:
    """The steps a sweep injects at: every `stride`th of first..last (all of them for 1)."""
    return range(first, last + 1, stride)


@functools.cache
def black_formatted(text: str) -> str:
    """What black makes of `text` with its defaults (as `black --check` in a made project).
    Remembered: every made project carries the same support modules."""
    import black

    return black.format_str(text, mode=black.Mode())


# --------------------------------------------------------------------------- golden trees


def updating_snapshots() -> bool:
    return os.environ.get(UPDATE_ENV) == "1"


def tree_files(root: Path) -> dict[str, bytes]:
    """Every file under `root` by relative POSIX path (no .git/, no __pycache__/)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not {".git", "__pycache__"} & set(p.relative_to(root).parts)
    }


def _diff(expected: bytes, actual: bytes, name: str) -> str:
    return "".join(
        difflib.unified_diff(
            expected.decode("utf-8", "replace").splitlines(keepends=True),
            actual.decode("utf-8", "replace").splitlines(keepends=True),
            f"snapshots/{name} (expected)",
            f"{name} (actual)",
        )
    )


def compare_tree(
    folder: str | Path,
    actual: Mapping[str, bytes],
    *,
    only: Callable[[str], bool] | None = None,
) -> None:
    """Assert that `actual` equals the golden folder (relative to snapshots/): the file set
    first, then each file with a unified diff. `only` limits both sides to the paths it
    accepts. With CFNGEN_UPDATE_SNAPSHOTS=1 the folder is rewritten (stale files removed)."""
    expected_dir = SNAPSHOTS / folder
    keep = only or (lambda _relpath: True)
    actual = {rel: _shipped(folder, rel, data) for rel, data in actual.items() if keep(rel)}
    if updating_snapshots():
        stale = tree_files(expected_dir) if expected_dir.is_dir() else {}
        for rel in stale:
            if keep(rel) and rel not in actual:
                (expected_dir / rel).unlink()
        for rel, data in actual.items():
            (expected_dir / rel).parent.mkdir(parents=True, exist_ok=True)
            (expected_dir / rel).write_bytes(data)
    if not expected_dir.is_dir():
        pytest.fail(f"snapshots/{folder} does not exist; create it with:\n  {REFRESH}")
    expected = {rel: data for rel, data in tree_files(expected_dir).items() if keep(rel)}
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    if missing or extra:
        pytest.fail(
            f"snapshots/{folder}: the file set differs: missing {missing}, unexpected {extra}\n"
            f"if the change is intended, refresh with:\n  {REFRESH}"
        )
    diffs = [
        _diff(expected[rel], actual[rel], f"{folder}/{rel}")
        for rel in sorted(expected)
        if expected[rel] != actual[rel]
    ]
    if diffs:
        pytest.fail(
            "".join(diffs) + f"\nif the change is intended, refresh with:\n  {REFRESH}",
            pytrace=False,
        )


def _shipped(folder: str | Path, rel: str, data: bytes) -> bytes:
    """A copy of the runtime library (cfngen/_support/cfngen_runtime/, which a custom resource
    gets one module of as cfngen_custom_resource.py) is compared with the package here, and
    pinned as one line naming its source: snapshots do not hold copies of the library."""
    from cfngen._files._ownership import MANIFEST_PATH, with_header
    from cfngen._support import PACKAGE, module_source

    path = PurePosixPath(rel)
    if rel.endswith(MANIFEST_PATH):
        return _manifest_without_library(folder, rel, data)
    module = _library_module(path)
    if module is None:
        return data
    try:
        source = module_source(module)
    except KeyError:
        pytest.fail(f"snapshots/{folder}/{rel}: the runtime library has no module {module}")
    if data != with_header(rel, source).encode("utf-8"):
        pytest.fail(
            f"snapshots/{folder}/{rel} is not the runtime library's {module}.py with cfngen's "
            "header (cfngen/_support/cfngen_runtime/)",
            pytrace=False,
        )
    return f"= cfngen/_support/{PACKAGE}/{module}.py, with cfngen's header\n".encode()


def _library_module(path: PurePosixPath) -> str | None:
    """The runtime library's module a project's file at `path` is a copy of, if it is one."""
    from cfngen._support import HELPER_FILE, PACKAGE

    if path.suffix != ".py" or not (path.parent.name == PACKAGE or path.name == HELPER_FILE):
        return None
    return "custom_resource" if path.name == HELPER_FILE else path.stem


def _manifest_without_library(folder: str | Path, rel: str, data: bytes) -> bytes:
    """generate's manifest with the digests of the runtime library's copies checked here and
    pinned as the module they are: a change to the library changes no snapshot."""
    import hashlib

    from cfngen._files._ownership import with_header
    from cfngen._support import module_source

    doc = json.loads(data)
    for path, digest in doc.get("files", {}).items():
        module = _library_module(PurePosixPath(path))
        if module is None:
            continue
        text = with_header(path, module_source(module)).encode("utf-8")
        if digest != hashlib.sha256(text).hexdigest():
            pytest.fail(f"snapshots/{folder}/{rel}: {path} is recorded with another digest")
        doc["files"][path] = f"= the sha256 of the runtime library's {module}.py"
    return (json.dumps(doc, indent=2) + "\n").encode()


@pytest.fixture
def golden() -> Callable[..., None]:
    """compare_tree(folder, actual, only=None): see the module docstring."""
    return compare_tree


# --------------------------------------------------------------------------- the CLI


@dataclass(frozen=True)
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def _chdir(path: Path) -> Iterator[None]:
    # contextlib.chdir is Python 3.11+; cfngen supports 3.10.
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def run_cli(*args: str | os.PathLike[str], cwd: Path | None = None) -> CliResult:
    """Run `cfngen ARGS...` in this process (in `cwd` when given), without colour, capturing
    its output: what the `cli` fixture gives, for module-scoped fixtures too."""
    from cfngen._cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(_colourless())
        if cwd is not None:
            stack.enter_context(_chdir(cwd))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        try:
            code = main([os.fspath(arg) for arg in args])
        except SystemExit as exc:  # argparse: --help, --version and usage errors
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    return CliResult(code, out.getvalue(), err.getvalue())


def _colourless() -> contextlib.AbstractContextManager[None]:
    from cfngen._contract._environ import patched_environ

    return patched_environ({"FORCE_COLOR": None, "NO_COLOR": "1"})


def run_command(
    *args: str | os.PathLike[str],
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    process: bool = False,
) -> subprocess.CompletedProcess[str]:
    """`cfngen ARGS...` without colour, as a CompletedProcess: through the CLI in this process
    (handlers still run in the worker it forks), or with `process` as `python -m cfngen` of its
    own, for tests about the process itself (its streams, its exit, its environment, state that
    must not outlive it)."""
    argv = [os.fspath(arg) for arg in args]
    if process:
        return subprocess.run(
            [sys.executable, "-m", "cfngen", *argv],
            capture_output=True,
            text=True,
            cwd=cwd,
            check=False,
            env={**os.environ, "NO_COLOR": "1", **(env or {})},
        )
    from cfngen._contract._environ import patched_environ

    with patched_environ(dict(env or {})):
        result = run_cli(*argv, cwd=cwd)
    return subprocess.CompletedProcess(argv, result.exit_code, result.stdout, result.stderr)


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> Callable[..., CliResult]:
    """Run `cfngen ARGS...` in this process (in `cwd` when given), capturing its output."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    return run_cli


# --------------------------------------------------------------------------- shared projects


def shared_tmp(factory: pytest.TempPathFactory) -> Path:
    """The session's temporary folder that every xdist worker shares."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def made_once(
    factory: pytest.TempPathFactory, name: str, *init_args: str, git: bool = False
) -> Path:
    """The project `cfngen init --no-input [--no-git] *init_args NAME` makes, made once per
    test session for all xdist workers: copy it before changing it. `name` must identify the
    arguments (the first caller's arguments win). It is made in a copy of the synced home:
    templates and models come from its caches instead of each init filling its own."""
    from tests.test_init_support import run_cfngen

    base = shared_tmp(factory) / f"made-{name}"
    root = base / name
    base.parent.mkdir(parents=True, exist_ok=True)
    with _locked(base.parent / f"made-{name}.lock"):
        if not (base / ".done").is_file():
            shutil.rmtree(base, ignore_errors=True)
            base.mkdir()
            no_git = () if git else ("--no-git",)
            home = base / "home"
            shutil.copytree(_synced_home(factory), home, symlinks=True)
            result = run_cfngen(
                "init", "--no-input", *no_git, *init_args, name, cwd=base, home=home
            )
            assert result.returncode == 0, result.stdout + result.stderr
            (base / ".done").write_text("")
    return root


@pytest.fixture(scope="session")
def made_project(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """made_once(name, *init_args) for this session."""

    def make(name: str, *init_args: str, git: bool = False) -> Path:
        return made_once(tmp_path_factory, name, *init_args, git=git)

    return make


#: The type most tests make.
WIDGET = "Acme::Svc::Widget"


def _synced_home(factory: pytest.TempPathFactory) -> Path:
    from tests.test_init_support import run_cfngen

    home = shared_tmp(factory) / "synced-home"
    with _locked(home.parent / "synced-home.lock"):
        if not (home / ".done").is_file():
            shutil.rmtree(home, ignore_errors=True)
            home.mkdir(parents=True)
            result = run_cfngen("template", "sync", cwd=home, home=home)
            assert result.returncode == 0, result.stdout + result.stderr
            # One init fills the model cache, as a user's first init does: the tests' inits
            # of the same type then only render the template.
            result = run_cfngen(
                "init", "--no-input", "--no-git", "-t", WIDGET, "warm", cwd=home, home=home
            )
            assert result.returncode == 0, result.stdout + result.stderr
            shutil.rmtree(home / "warm")
            (home / ".done").write_text("")
    return home


@pytest.fixture
def synced_home(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    """A HOME of this test's own whose template cache `cfngen template sync` filled and whose
    model cache holds the models of an init of WIDGET (both made once per session; each test
    gets a copy), so a command there only renders."""
    home = tmp_path / "home"
    shutil.copytree(_synced_home(tmp_path_factory), home, symlinks=True)
    (home / ".done").unlink()
    return home


# --------------------------------------------------------------------------- oracle tools

#: How to get each external tool the oracle tests run (scripts/test-machine does all of this).
INSTALL = {
    "java": "install a JDK 11 or newer (apt-get install default-jdk-headless)",
    "mvn": "apt-get install maven (the Java plugin's projects build with it)",
    "sam": "scripts/test-machine (it installs aws-sam-cli into ~/.cache/cfngen-test-tools/sam-"
    "VERSION); or set CFNGEN_SAM to a sam executable, or make the clone's own .venv-sam",
    "guard-rail": "scripts/test-machine (it installs resource-schema-guard-rail on CPython 3.10 "
    "into ~/.cache/cfngen-test-tools/guard-rail-VERSION); or set CFNGEN_GUARD_RAIL, or make "
    "the clone's own .venv-guard-rail",
    "go": "apt-get install golang-go (scripts/test-machine does it), or Go's own distribution "
    "in /usr/local/go",
    "cfn": 'pip install -e ".[dev]" (cloudformation-cli is a dev dependency)',
    "cfn-lint": 'pip install -e ".[dev]"',
    "zsh": "apt-get install zsh (scripts/test-machine does it)",
    "fish": "apt-get install fish (scripts/test-machine does it)",
    "node": "install Node.js 18 or newer (apt-get install nodejs npm)",
    "npm": "install Node.js 18 or newer with npm (apt-get install nodejs npm)",
}


def find_tool(name: str) -> str | None:
    override = os.environ.get(f"CFNGEN_{name.upper().replace('-', '_')}")
    if override:
        return override if Path(override).is_file() else None
    beside = Path(sys.executable).parent / name  # the dev extra's console scripts
    if beside.is_file():
        return str(beside)
    if name == "go" and Path("/usr/local/go/bin/go").is_file():  # Go's own installer's place
        return "/usr/local/go/bin/go"
    for venv in (".venv-sam", ".venv-guard-rail"):  # a clone's own virtualenvs come first
        if (REPO / venv / "bin" / name).is_file():
            return str(REPO / venv / "bin" / name)
    for venv in tool_venvs():
        if (venv / ".complete").is_file() and (venv / "bin" / name).is_file():
            return str(venv / "bin" / name)
    return shutil.which(name)


def tool_venvs() -> list[Path]:
    """The oracles' virtualenvs that scripts/test-machine makes outside the clone, one per
    pinned version (read from the script, which pins them): ~/.cache/cfngen-test-tools, or
    CFNGEN_TEST_TOOLS. A virtualenv is marked `.complete` once it is whole."""
    base = Path(os.environ.get("CFNGEN_TEST_TOOLS") or Path.home() / ".cache" / "cfngen-test-tools")
    script = (REPO / "scripts" / "test-machine").read_text()
    pins = dict(re.findall(r'^(sam|guard_rail)_version="([^"]+)"$', script, re.MULTILINE))
    return [base / f"sam-{pins['sam']}", base / f"guard-rail-{pins['guard_rail']}"]


def build_cache(name: str) -> Path:
    """Where the real builds of other languages' projects (npm install and build, mvn package,
    go builds) are kept between runs: each entry is keyed by its sources and tools, and the home
    folder outlives a checkout, so a fresh clone on the same machine (CI) reuses them and the
    suite stays within CI's time. CFNGEN_TEST_BUILDS names another folder."""
    base = os.environ.get("CFNGEN_TEST_BUILDS") or Path.home() / ".cache" / "cfngen-test-builds"
    path = Path(base) / name
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def oracle_tool() -> Callable[[str], str]:
    """The path of an oracle tool; a missing one is a failure (with how to install it)."""

    def require(name: str) -> str:
        path = find_tool(name)
        if path is None:
            pytest.fail(
                f"the oracle tool `{name}` is missing: {INSTALL.get(name, 'install it')}. "
                'Without it, run the inner loop: python -m pytest -m "not corpus and not oracle"',
                pytrace=False,
            )
        return path

    return require
