"""`cfngen build` against `cfn submit --dry-run --no-docker` (cloudformation-cli 0.2.41 with the
Python plugin 2.1.10, the dev extra): the same file set, the same bytes for every file but the
metadata and the handler zip, and the handler zip the official one minus what Lambda provides.

The real dependencies (cloudformation-cli-python-lib and what it needs) are downloaded from the
index once per session into a wheelhouse; every build, ours and the official, then installs
from it alone."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

from cfngen._package import build_package
from cfngen._package._deps import LAMBDA_PROVIDED
from cfngen._package._platform import Platform
from cfngen._project import Project
from cfngen._support import package_files
from tests._package_projects import hook, hook_project, module
from tests._wheelhouse import pyenv_python, write_wheel
from tests.test_init_support import made_once

BIN = Path(sys.executable).parent

pytestmark = pytest.mark.oracle
LIB = "cloudformation-cli-python-lib==2.1.20"
YAML = "PyYAML>=6.0.1,<7"


@pytest.fixture(scope="session")
def real_wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    house = tmp_path_factory.mktemp("real-wheels")
    pip = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "-q",
        "--dest",
        str(house),
        "--only-binary=:all:",
    ]
    # PyYAML: hooks with a STACK or CHANGE_SET target (the example) require it.
    subprocess.run([*pip, LIB, YAML], check=True, timeout=600)  # this machine: the official build
    target = Platform("3.12", "x86_64", "2023")
    cross = ["--implementation", "cp", "--python-version", "3.12"]
    cross += [arg for tag in target.tags for arg in ("--platform", tag)]
    subprocess.run([*pip, *cross, LIB], check=True, timeout=600)
    return house


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, str]:
    """Both tools install from the wheelhouse only; the environment the official tool gets."""
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "home"))
    return {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }


def official_dry_run(root: Path, env: dict[str, str], wheelhouse: Path) -> zipfile.ZipFile:
    work = root.parent / f"{root.name}-official"
    shutil.copytree(root, work)
    result = subprocess.run(
        # A closed local port: any registry call the official tool tries fails at once, offline.
        [BIN / "cfn", "submit", "--dry-run", "--no-docker", "--endpoint-url", "http://127.0.0.1:1"],
        cwd=work,
        env={**env, "PIP_FIND_LINKS": str(wheelhouse)},
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (package,) = work.glob("*.zip")
    return zipfile.ZipFile(io.BytesIO(package.read_bytes()))


def ours(root: Path | Project, wheelhouse: Path) -> zipfile.ZipFile:
    result = build_package(root, pip_options=["--no-index", "--find-links", str(wheelhouse)])
    return zipfile.ZipFile(io.BytesIO(result.data))


def inner(archive: zipfile.ZipFile) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(archive.read("ResourceProvider.zip")))


def without_lambda_provided(official: zipfile.ZipFile) -> set[str]:
    """The official handler zip's files, less Lambda's SDK, console scripts, and pip's marker
    of the requirement named on its command line (cfngen installs the wheels pip downloaded)."""
    names = set(official.namelist())
    dropped = {
        n for n in names if n.startswith("bin/") or re.fullmatch(r"[^/]+\.dist-info/REQUESTED", n)
    }
    for metadata in (n for n in names if n.endswith(".dist-info/METADATA")):
        text = official.read(metadata).decode()
        name = next(
            line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Name:")
        )
        if canonicalize_name(name) in LAMBDA_PROVIDED:
            info = metadata.rsplit("/", 1)[0]
            record = official.read(f"{info}/RECORD").decode()
            dropped |= {row.split(",")[0] for row in record.splitlines() if row}
            dropped |= {n for n in names if n.startswith(f"{info}/")}
    return names - dropped


def assert_same_package(mine: zipfile.ZipFile, official: zipfile.ZipFile) -> None:
    assert sorted(mine.namelist()) == sorted(official.namelist())
    for name in mine.namelist():
        if name not in (".cfn_metadata.json", "ResourceProvider.zip"):
            assert mine.read(name) == official.read(name), name
    assert set(inner(mine).namelist()) == without_lambda_provided(inner(official))


def test_a_resource_package_matches_the_official_dry_run(
    real_wheelhouse, offline, tmp_path_factory, tmp_path
):
    made = made_once(
        tmp_path_factory,
        "widget311",
        "--type-name",
        "Acme::Svc::Widget",
        "--runtime",
        "python3.11",  # this machine's Python, so the official build's native files fit too
        "--type-configuration",
    )
    root = tmp_path / "widget"
    shutil.copytree(made, root)
    (root / "overrides.json").write_text('{"CREATE": {}}\n')
    mine = ours(root, real_wheelhouse)
    official = official_dry_run(root, offline, real_wheelhouse)
    assert "configuration-schema.json" in mine.namelist()
    assert "overrides.json" in mine.namelist()
    # The runtime library is inside the handler package, which is all the official zip takes.
    library = {f"acme_svc_widget/{path}" for path in package_files()}
    assert library <= set(inner(official).namelist())
    assert_same_package(mine, official)
    assert sum(i.file_size for i in inner(mine).infolist()) * 3 < sum(
        i.file_size for i in inner(official).infolist()
    )


def test_a_hook_package_matches_the_official_dry_run(offline, tmp_path):
    house = tmp_path / "wheels"
    write_wheel(house, "hookdep", "1.0", {"hookdep.py": b"X = 1\n"})
    root = hook_project(tmp_path / "hook", "hookdep\n")
    mine = ours(hook(root), house)
    assert {"target-info.json", "target-schemas/aws-s3-bucket.json"} <= set(mine.namelist())
    assert_same_package(mine, official_dry_run(root, offline, house))


def test_the_example_hook_cfngen_makes_packages_as_the_official_dry_run(
    real_wheelhouse, offline, tmp_path_factory, tmp_path
):
    """`cfngen init --artifact-type hook --example`: its targets' schemas come from the bundle
    (cfngen generate put them in target-schemas/, so the official tool finds them offline)."""
    made = made_once(
        tmp_path_factory,
        "hook-example311",
        "--artifact-type",
        "hook",
        "--example",
        "--runtime",
        "python3.11",  # this machine's Python, so the official build's native files fit too
    )
    root = tmp_path / "hook-example"
    shutil.copytree(made, root)
    mine = ours(root, real_wheelhouse)
    assert {"target-info.json", "target-schemas/aws-s3-bucket.json"} <= set(mine.namelist())
    library = {f"example_s3_compliancehook/{path}" for path in package_files()}
    assert library <= set(inner(mine).namelist())
    assert_same_package(mine, official_dry_run(root, offline, real_wheelhouse))


def test_the_handler_imports_on_the_runtimes_cpython_with_lambdas_sdk_beside_it(
    real_wheelhouse, offline, tmp_path_factory, tmp_path
):
    made = made_once(
        tmp_path_factory, "widget312", "--type-name", "Acme::Svc::Widget", "--runtime", "python3.12"
    )
    root = tmp_path / "widget"
    shutil.copytree(made, root)
    options = {"pip_options": ["--no-index", "--find-links", str(real_wheelhouse)], "write": False}
    lean = build_package(root, **options)
    sdk = build_package(root, include_boto3=True, use_cache=False, **options)
    inner(zipfile.ZipFile(io.BytesIO(lean.data))).extractall(tmp_path / "task")
    inner(zipfile.ZipFile(io.BytesIO(sdk.data))).extractall(tmp_path / "runtime")
    so = [n for n in inner(zipfile.ZipFile(io.BytesIO(lean.data))).namelist() if n.endswith(".so")]
    assert so
    assert all(n.endswith(".cpython-312-x86_64-linux-gnu.so") for n in so), so
    code = (
        "import sys; sys.path[:0] = [sys.argv[1]]; sys.path.append(sys.argv[2]);"
        "import acme_svc_widget.handlers as h, charset_normalizer.md as md, boto3;"
        "print(h.resource is not None, md.__file__.endswith('.cpython-312-x86_64-linux-gnu.so'),"
        " boto3.__file__.startswith(sys.argv[2]))"
    )
    result = subprocess.run(
        [pyenv_python("3.12"), "-I", "-c", code, str(tmp_path / "task"), str(tmp_path / "runtime")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.stdout.split() == ["True", "True", "True"], result.stderr


def test_a_module_package_matches_the_official_dry_run(offline, tmp_path):
    root = tmp_path / "stack"
    root.mkdir()
    for command in (
        ["init", "--type-name", "Acme::Svc::Stack::MODULE", "--artifact-type", "MODULE"],
        ["validate"],  # writes schema.json from the fragment, as the module kind's generate does
    ):
        done = subprocess.run(
            [BIN / "cfn", *command],
            cwd=root,
            env=offline,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    (root / "overrides.json").write_text("{}\n")
    result = build_package(module(root))
    assert result.path.name == "acme-svc-stack-module.zip"
    mine = zipfile.ZipFile(io.BytesIO(result.data))
    official = official_dry_run(root, offline, tmp_path)
    assert (
        sorted(mine.namelist())
        == sorted(official.namelist())
        == [
            ".rpdk-config",
            "fragments/sample.json",
            "overrides.json",
            "schema.json",
        ]
    )
    for name in mine.namelist():
        if name != "schema.json":
            assert mine.read(name) == official.read(name), name
    # schema.json is derived from the fragment as the package is built (the module kind's
    # file set, cfngen/_kinds/module/_package.py): the official schema's every key and
    # property, with cfngen's parameter types, defaults and allowed values beside them.
    ours, theirs = (json.loads(z.read("schema.json")) for z in (mine, official))
    assert set(theirs) <= set(ours)
    assert ours["typeName"] == theirs["typeName"]
    assert set(theirs["properties"]) == set(ours["properties"])
