"""pip reads a project's local requirements, never writes them (cfngen/_pip_input.py).

A requirements.txt naming a local project (`-e .`, `./lib`, ...) had pip build it where it lies:
setuptools then left `<name>.egg-info` and `build/` in the user's project after `cfngen test`,
`invoke` or `build`. The local project here has an in-tree build backend that does what
setuptools does, writing both into the folder it builds in, so the tests run offline (pip
would fetch setuptools for an isolated build).
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from cfngen._errors import ExitCode
from tests._official_projects import by_hand
from tests.conftest import sampled
from tests.test_init_support import project_files as all_files
from tests.test_requirements import RESOURCE

#: Like setuptools' build_meta: metadata and build files in the source folder, then a wheel.
BACKEND = """\
import base64, hashlib, os, zipfile

NAME, VERSION = "acme-local", "1.0"


def _leave_droppings():
    os.makedirs("acme_local.egg-info", exist_ok=True)
    with open("acme_local.egg-info/PKG-INFO", "w") as handle:
        handle.write("Metadata-Version: 2.1\\nName: acme-local\\nVersion: 1.0\\n")
    os.makedirs("build/lib", exist_ok=True)


def _wheel(wheel_directory, extra):
    _leave_droppings()
    info = "acme_local-1.0.dist-info"
    entries = dict(extra)
    entries[info + "/METADATA"] = b"Metadata-Version: 2.1\\nName: acme-local\\nVersion: 1.0\\n"
    entries[info + "/WHEEL"] = b"Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    record = []
    for name, data in entries.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(name + ",sha256=" + digest + "," + str(len(data)))
    entries[info + "/RECORD"] = ("\\n".join(record + [info + "/RECORD,,"]) + "\\n").encode()
    filename = "acme_local-1.0-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return filename


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with open("acme_local.py", "rb") as handle:
        return _wheel(wheel_directory, {"acme_local.py": handle.read()})


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, {"acme_local.pth": os.getcwd().encode() + b"\\n"})


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []
"""


def local_project(folder: Path, answer: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(
        '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n'
        '[project]\nname = "acme-local"\nversion = "1.0"\n'
    )
    (folder / "backend.py").write_text(BACKEND)
    (folder / "acme_local.py").write_text(f"ANSWER = {answer}\n")


def project_files(root: Path) -> dict[str, bytes]:
    """The project's files but the bytecode Python writes beside modules it imports (where
    PYTHONDONTWRITEBYTECODE is unset, as in CI): what pip could leave is the question."""
    return {k: v for k, v in all_files(root).items() if "__pycache__" not in k.split("/")}


#: case -> requirements.txt (and the files it includes) naming the local project in lib/.
CASES = {
    "editable": {"requirements.txt": "-e ./lib\n"},
    "editable-equals": {"requirements.txt": "--editable=./lib\n"},
    "path": {"requirements.txt": "./lib  # our helpers\n"},
    "included": {"requirements.txt": "-r reqs/more.txt\n", "reqs/more.txt": "-e ./lib\n"},
    "file-url": {"requirements.txt": "acme-local @ {lib}\n"},
}


def project(tmp_path: Path, case: str) -> Path:
    root = by_hand(tmp_path / "widget", "resource", handlers=RESOURCE.format(module="acme_local"))
    local_project(root / "lib", 42)
    for name, text in CASES[case].items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text.format(lib=(root / "lib").as_uri()))
    return root


@pytest.fixture
def offline_pip(monkeypatch, tmp_path):
    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")


def invoke(cli, root: Path):
    request = root.parent / "request.json"
    request.write_text(json.dumps({"desiredResourceState": {"Id": "w"}}))
    return cli("invoke", "READ", request, "--project", root)


@pytest.mark.parametrize("case", sampled(CASES, {"editable", "file-url"}))
def test_a_local_requirement_is_installed_for_the_run_and_the_project_is_left_as_it_was(
    case, tmp_path, offline_pip, cli
):
    root = project(tmp_path, case)
    assert cli("generate", root).exit_code == ExitCode.OK
    before = project_files(root)
    result = invoke(cli, root)
    assert result.exit_code == ExitCode.OK, result.stdout + result.stderr
    assert "42 boto3" in result.stdout
    assert project_files(root) == before, sorted(set(project_files(root)) - set(before))
    assert not (root / "lib" / "build").exists()


def test_a_change_to_the_local_project_is_installed_anew(tmp_path, offline_pip, cli):
    """The install is kept per content: the local project's content is part of it."""
    root = project(tmp_path, "editable")
    assert cli("generate", root).exit_code == ExitCode.OK
    assert "42 boto3" in invoke(cli, root).stdout
    (root / "lib" / "acme_local.py").write_text("ANSWER = 43\n")
    result = invoke(cli, root)
    assert "43 boto3" in result.stdout, result.stdout + result.stderr


@pytest.mark.parametrize("case", sampled(["editable", "path"], {"path"}))
def test_build_leaves_the_local_project_as_it_was(case, tmp_path, offline_pip):
    from cfngen._package import build_package

    root = project(tmp_path, case)
    before = project_files(root)
    with contextlib.suppress(Exception):  # what the build makes of it is not this test's
        build_package(root, pip_options=["--no-index"])
    added = sorted(set(project_files(root)) - set(before))
    assert not [name for name in added if name.startswith("lib/")], added


@pytest.mark.parametrize("case", sampled(CASES, {"path", "included"}))
def test_build_packs_the_local_project_the_requirements_name(case, tmp_path, offline_pip):
    """pip downloads a local project as an archive of its source, not a wheel: the build
    skipped it, and the deployed handler could not import what the tests had run with."""
    import io
    import zipfile

    from cfngen._package import build_package

    root = project(tmp_path, case)
    result = build_package(root, pip_options=["--no-index"])
    with zipfile.ZipFile(result.path) as package:
        handler = zipfile.ZipFile(io.BytesIO(package.read("ResourceProvider.zip")))
    assert handler.read("acme_local.py") == b"ANSWER = 42\n"
