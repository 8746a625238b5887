"""The runtime library on the Pythons a project may run on (Lambda python3.8 and newer).

Every module of cfngen/_support/cfngen_runtime/ compiles on CPython 3.8 to 3.13; its clients,
waiters and steps are imported (through the shim that stands for cfngen_aws.py of earlier
versions) and exercised (tests/fixtures/support/exercise_aws.py) on the oldest and the newest, with
cloudformation-cli-python-lib installed into a virtualenv per interpreter that pytest's cache
keeps between runs. The interpreters come from pyenv; a missing one fails the test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cfngen._support import LIBRARY_RANGE, shim, vendored

ROOT = Path(__file__).resolve().parent.parent
SUPPORT = ROOT / "cfngen" / "_support"
EXERCISE = Path(__file__).parent / "fixtures" / "support" / "exercise_aws.py"
PYTHONS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13")
#: The library the generated requirements allow, at the oldest version of its declared range.
LIBRARY = "cloudformation-cli-python-lib==" + LIBRARY_RANGE.split(",")[0].removeprefix(">=")


def interpreter(version: str) -> Path:
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = sorted(
        root.glob(f"{version}.*/bin/python"),
        key=lambda p: [int(n) for n in re.findall(r"\d+", p.parent.parent.name)],
    )
    if not found:
        pytest.fail(f"no CPython {version} under {root}: install it with pyenv")
    return found[-1]


def venv_python(version: str, cache: Path) -> Path:
    """A virtualenv with the runtime library, made once and kept in pytest's cache."""
    folder = cache / f"py{version}"
    python = folder / "bin" / "python"
    done = folder / "installed.txt"
    if done.is_file() and done.read_text() == LIBRARY and python.exists():
        return python
    shutil.rmtree(folder, ignore_errors=True)
    subprocess.run([str(interpreter(version)), "-m", "venv", str(folder)], check=True)
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", LIBRARY],
        check=True,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    done.write_text(LIBRARY)
    return python


@pytest.fixture(scope="session")
def venv_cache(request: pytest.FixtureRequest) -> Path:
    return Path(request.config.cache.mkdir("cfngen-runtime-venvs"))


@pytest.fixture(scope="module")
def project_src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A src/ folder as generate leaves it: the package `project` with the support module."""
    src = tmp_path_factory.mktemp("src")
    package = src / "project"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for relpath, text in vendored("project").items():
        (src / relpath).parent.mkdir(parents=True, exist_ok=True)
        (src / relpath).write_text(text)
    # exercise_aws.py imports the single file of earlier versions: through its shim.
    (package / "cfngen_aws.py").write_text(shim("cfngen_aws.py"))
    return src


def exercise(python: Path | str, src: Path) -> dict[str, object]:
    env = {
        **os.environ,
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    result = subprocess.run(
        [str(python), str(EXERCISE), str(src)], capture_output=True, text=True, env=env, check=False
    )
    assert result.returncode == 0, result.stderr
    out: dict[str, object] = json.loads(result.stdout)
    return out


@pytest.mark.parametrize("version", PYTHONS)
def test_the_support_modules_compile(version):
    """Every module of the runtime library compiles on every CPython a runtime runs (fast: the
    inner loop's check; importing and running them there is the oracle tests' job)."""
    modules = sorted((SUPPORT / "cfngen_runtime").glob("*.py"))
    assert len(modules) >= 8
    # compile() rather than py_compile: nothing is written next to the sources
    check = "import sys\nfor f in sys.argv[1:]: compile(open(f).read(), f, 'exec')"
    result = subprocess.run(
        [str(interpreter(version)), "-c", check, *map(str, modules)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.oracle  # the oldest and newest CPython judge against this one
@pytest.mark.parametrize("version", [PYTHONS[0], PYTHONS[-1]])
def test_cfngen_aws_behaves_the_same_on_the_oldest_and_newest_python(
    version, venv_cache, project_src
):
    here = exercise(sys.executable, project_src)
    there = exercise(venv_python(version, venv_cache), project_src)
    assert there.pop("python") == version
    here.pop("python")
    assert there == here
    # and what it did is what the module promises, not merely the same twice
    events = here["events"]
    assert isinstance(events, list)
    assert [e["status"] for e in events][-1] == "SUCCESS"
    assert here["retries"] == {"mode": "standard", "total_max_attempts": 3}
    assert here["never"]["errorCode"] == "NotStabilized"  # type: ignore[index]
