"""Running generated code on the Python versions projects declare (Lambda python3.8 and newer).

The interpreters are pyenv's (`/root/.pyenv/versions/3.X.Y`, or `$CFNGEN_TEST_PYENV`). Each gets
a throwaway virtualenv with cloudformation-cli-python-lib (what models import on Lambda), built
once and cached under `$CFNGEN_TEST_VENVS` (default `~/.cache/cfngen-tests/venvs`). A missing
interpreter fails the test: it is an oracle, and a skipped oracle proves nothing.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cfngen._support import LIBRARY_RANGE

#: The library the models are tested with: the oldest of the runtime library's declared range.
SUPPORT_LIB = "cloudformation-cli-python-lib==" + LIBRARY_RANGE.split(",")[0].removeprefix(">=")
#: The Python versions a project may declare, oldest first (python3.14: see `newest_available`).
VERSIONS = ((3, 8), (3, 9), (3, 10), (3, 11), (3, 12), (3, 13))


def _pyenv() -> Path:
    return Path(os.environ.get("CFNGEN_TEST_PYENV", "/root/.pyenv/versions"))


def interpreter(version: tuple[int, int]) -> Path:
    """The newest installed CPython of that minor version, or the test fails."""
    prefix = f"{version[0]}.{version[1]}."
    found = sorted(
        (p for p in _pyenv().glob(f"{prefix}*") if (p / "bin" / "python").exists()),
        key=lambda p: int(p.name[len(prefix) :]) if p.name[len(prefix) :].isdigit() else -1,
    )
    if not found:
        pytest.fail(
            f"no CPython {version[0]}.{version[1]} under {_pyenv()} (set CFNGEN_TEST_PYENV)"
        )
    return found[-1] / "bin" / "python"


def runtime_python(version: tuple[int, int]) -> Path:
    """A virtualenv's python for that version with the support library installed (cached)."""
    base = interpreter(version)
    cache = Path(os.environ.get("CFNGEN_TEST_VENVS", Path.home() / ".cache/cfngen-tests/venvs"))
    tag = f"{base.parent.parent.name}-{SUPPORT_LIB.replace('==', '-')}"
    venv = cache / tag
    python = venv / "bin" / "python"
    cache.mkdir(parents=True, exist_ok=True)
    # One builder at a time (xdist workers), and never a half-built venv: build, then rename.
    with open(cache / f".{tag}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if python.exists():
            return python
        building = cache / f".{tag}.building"
        shutil.rmtree(building, ignore_errors=True)
        subprocess.run([str(base), "-m", "venv", str(building)], check=True)
        result = subprocess.run(
            [str(building / "bin/python"), "-m", "pip", "install", "-q", SUPPORT_LIB],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            pytest.fail(f"cannot install {SUPPORT_LIB} on {base}:\n{result.stderr[-3000:]}")
        building.rename(venv)
    return python


def write_packages(root: Path, packages: dict[str, dict[str, str]]) -> None:
    """Each package's files (name -> text) as a folder under `root`, with an `__init__.py`."""
    for package, files in packages.items():
        folder = root / package
        folder.mkdir(parents=True)
        (folder / "__init__.py").write_text("")
        for name, text in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text, encoding="utf-8")


def run_json(python: Path, root: Path, code: str, job: Any) -> Any:
    """Run `code` in `python` with `root` on sys.path and `job` (JSON) as the variable `job`;
    it must print one JSON document, which is returned."""
    result = subprocess.run(
        [str(python), "-c", "import json, sys\njob = json.load(sys.stdin)\n" + code],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        check=False,
        cwd=root,
        env={
            **os.environ,
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONPATH": str(root),
            "AWS_EC2_METADATA_DISABLED": "true",
            "AWS_DEFAULT_REGION": "us-east-1",
        },
    )
    assert result.returncode == 0, result.stderr[-5000:]
    return json.loads(result.stdout)


_ROUND_TRIP = r"""
import importlib, traceback
out = {}
for package, inputs in job.items():
    try:
        models = importlib.import_module(package + ".models")
    except BaseException:
        out[package] = {"error": traceback.format_exc(limit=-3)}
        continue
    results = []
    for given in inputs:
        try:
            results.append({"ok": models.ResourceModel._deserialize(given)._serialize()})
        except BaseException:
            results.append({"error": traceback.format_exc(limit=-3)})
    out[package] = {"results": results}
json.dump(out, sys.stdout)
"""


def round_trip(
    python: Path,
    root: Path,
    packages: dict[str, dict[str, str]],
    cases: dict[str, list[Any]],
) -> dict[str, Any]:
    """Write the packages under `root`, then in `python` import each `<package>.models` and give
    back `ResourceModel._deserialize(x)._serialize()` for each of its cases.

    Returns package -> {"results": [{"ok": json} | {"error": traceback}]} or {"error": ...}.
    """
    write_packages(root, packages)
    out: dict[str, Any] = run_json(python, root, _ROUND_TRIP, cases)
    return out
