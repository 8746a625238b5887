"""The base install and the optional dependencies ("extras", cfngen/_extras.py).

`pip install cfngen` is what the pre-commit hooks get: it validates and generates projects of
every kind. `init`/`upgrade`, `invoke`/`test` and `build`/`submit` need the extras of the same
names, and without them say which to install (exit 2), before doing anything.

The environment is real: pre-commit installs this repository (at its HEAD commit, as a user's
`.pre-commit-config.yaml` names a `rev`) into a fresh virtualenv from the package index, exactly
as `pre-commit try-repo` does; the hooks run there, and so do the other commands.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import _locked, shared_tmp
from tests.test_init_support import git

REPO = Path(__file__).resolve().parent.parent
STORE = REPO / "tests" / "fixtures" / "contract" / "store"

#: Distributions only an extra brings: none may be in the hook environment.
EXTRA_ONLY = (
    "moto",
    "copier",
    "questionary",
    "cloudformation-cli-python-lib",
    "installer",
    "boto3",
)


def run(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(args),
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


class HookEnv:
    def __init__(self, home: Path, project: Path) -> None:
        self.home = home
        self.project = project

    def pre_commit(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run(
            sys.executable,
            "-m",
            "pre_commit",
            *args,
            cwd=self.project,
            env={"PRE_COMMIT_HOME": str(self.home)},
        )

    @property
    def bin(self) -> Path:
        (python,) = self.home.glob("repo*/py_env-*/bin/python")
        return python.parent

    def cfngen(self, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return run(str(self.bin / "cfngen"), *args, cwd=cwd)


@pytest.fixture(scope="module")
def hook_env(tmp_path_factory) -> HookEnv:
    head = run("git", "rev-parse", "HEAD", cwd=REPO)
    assert head.returncode == 0, f"{REPO} must be a git checkout: {head.stderr}"
    tmp = tmp_path_factory.mktemp("extras")
    project = tmp / "project"
    shutil.copytree(STORE, project, ignore=shutil.ignore_patterns("__pycache__"))
    made = run(sys.executable, "-m", "cfngen", "generate", cwd=project)
    assert made.returncode == 0, made.stderr
    config = {"repos": [{"repo": str(REPO), "rev": head.stdout.strip(), "hooks": [
        {"id": "cfngen-validate"}, {"id": "cfngen-generate-check"}, {"id": "cfngen-generate"},
    ]}]}  # fmt: skip
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    git(project, "init", "-q")
    git(project, "add", "-A")
    # pre-commit's home (its clone of this repository at HEAD, and the hook environment built
    # from it) is one for the session's xdist workers: each would build the same environment
    # (~26 s); the first builds it while the others wait, and they find it installed.
    home = shared_tmp(tmp_path_factory) / "extras-pre-commit-home"
    env = HookEnv(home, project)
    with _locked(home.parent / "extras-pre-commit-home.lock"):
        installed = env.pre_commit("install-hooks")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return env


@pytest.mark.oracle
def test_the_hook_environment_has_no_extra(hook_env):
    listed = run(
        str(hook_env.bin / "python"), "-m", "pip", "list", "--format=freeze", cwd=hook_env.project
    )
    names = {line.split("==")[0].lower() for line in listed.stdout.splitlines()}
    assert "cfngen" in names and "cfn-lint" in names and "datamodel-code-generator" in names
    assert not names & set(EXTRA_ONLY), sorted(names & set(EXTRA_ONLY))


@pytest.mark.oracle
def test_the_hooks_pass_on_a_clean_project_and_fail_on_drift(hook_env):
    clean = hook_env.pre_commit("run", "--all-files")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    role = hook_env.project / "resource-role.yaml"
    saved = role.read_bytes()
    role.unlink()
    try:
        drift = hook_env.pre_commit("run", "cfngen-generate-check", "--all-files")
        assert drift.returncode == 1 and "out of date: resource-role.yaml" in drift.stdout
    finally:
        role.write_bytes(saved)


@pytest.mark.oracle
@pytest.mark.parametrize(
    "flags",
    [
        ["--artifact-type", "hook", "-t", "Acme::Guard::Check"],
        ["--artifact-type", "module", "-t", "Acme::Net::Vpc::MODULE"],
        ["--artifact-type", "custom-resource"],
    ],
    ids=["hook", "module", "custom-resource"],
)
def test_every_kind_validates_and_generates_in_the_base_install(hook_env, tmp_path, flags):
    project = tmp_path / "project"
    init = [sys.executable, "-m", "cfngen", "init", "--no-input", "--no-git", *flags, str(project)]
    made = run(*init, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    for command in (["validate"], ["generate", "--check"]):
        result = hook_env.cfngen(*command, cwd=project)
        assert result.returncode == 0, f"{command}: {result.stdout}{result.stderr}"


@pytest.mark.oracle
@pytest.mark.parametrize(
    ("command", "extra"),
    [
        (["test"], "test"),
        (["invoke", "CREATE", "inputs/inputs_1_create.json"], "test"),
        (["build"], "build"),
        (["submit", "--region", "us-east-1"], "build"),
        (["upgrade"], "init"),
        (["init", "--no-input", "-t", "Acme::Svc::Thing", "new"], "init"),
    ],
)
def test_a_command_needing_an_extra_names_it(hook_env, command, extra):
    before = sorted(p.name for p in hook_env.project.iterdir())
    result = hook_env.cfngen(*command, cwd=hook_env.project)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f'optional dependencies "{extra}"' in result.stderr
    assert f'pip install "cfngen[{extra}]"' in result.stderr
    assert "Traceback" not in result.stderr
    assert sorted(p.name for p in hook_env.project.iterdir()) == before


def test_the_command_extras_are_read_from_the_metadata_as_pyproject_declares_them():
    """init, test and build, each with exactly pyproject's requirements; all and dev are
    collections of them, never named in a message."""
    import tomllib

    from cfngen import _extras

    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    from packaging.requirements import Requirement

    def shape(requirements) -> set[tuple[str, object]]:
        return {(r.name.lower(), r.specifier) for r in requirements}

    found = {extra: shape(reqs) for extra, reqs in _extras._requirements().items()}
    assert found == {
        extra: shape(Requirement(text) for text in declared[extra])
        for extra in ("build", "init", "test")
    }


@pytest.mark.parametrize(
    ("module", "extra"),
    [("moto", "test"), ("cloudformation_cli_python_lib", "test"), ("time_machine", "test"),
     ("copier", "init"), ("questionary", "init"), ("installer", "build"), ("botocore", "build"),
     ("pytest", None), ("jsonschema", None), ("acme_widget", None)],
)  # fmt: skip
def test_a_missing_module_is_named_by_its_extra_or_left_a_bug(module, extra):
    from cfngen import _extras

    error = _extras.as_missing_extra(ModuleNotFoundError(name=module), "`cfngen x`")
    if extra is None:
        assert error is None
    else:
        assert error is not None and f'"cfngen[{extra}]"' in (error.hint or "")


def test_the_test_extra_brings_what_motos_service_backends_import():
    """moto's CloudFormation backend imports openapi-spec-validator on every call, and Cognito,
    Glue, S3 Select and DynamoDB's PartiQL import a library each: without them a handler calling
    those services fails with `No module named ...`. The test extra asks moto for them through
    moto's own extras (so its pins apply), and not for moto[cloudformation]'s docker."""
    from importlib.metadata import requires

    import tomllib
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]["test"]
    (moto,) = [r for r in map(Requirement, declared) if r.name == "moto"]
    brought = {
        canonicalize_name(requirement.name)
        for requirement in map(Requirement, requires("moto") or [])
        if requirement.marker is not None
        and any(requirement.marker.evaluate({"extra": extra}) for extra in moto.extras)
    }
    assert {"openapi-spec-validator", "joserfc", "pyparsing", "py-partiql-parser"} <= brought
    assert "docker" not in brought


@pytest.mark.parametrize("missing", ["openapi-spec-validator", "py-partiql-parser"])
def test_a_library_motos_extras_bring_that_is_missing_is_named(monkeypatch, missing):
    """moto installed without the extras cfngen asks for passes a version check, yet a handler
    calling CloudFormation (or S3 Select) then fails with `No module named ...`: the extra's
    check names the library instead."""
    from importlib import metadata

    from cfngen import _extras
    from cfngen._errors import CfngenError

    real = metadata.version

    def version(name):
        if name.lower().replace("_", "-") == missing:
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "version", version)
    with pytest.raises(CfngenError) as caught:
        _extras.require("test", "`cfngen test`")
    assert f"{missing} (not installed; moto[" in caught.value.message
    assert 'pip install "cfngen[test]"' in (caught.value.hint or "")
    _extras.require("build", "`cfngen build`")  # nothing of the build extra is missing
