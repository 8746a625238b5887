"""template.yml: a SAM template that aws-sam-translator accepts and `sam build` can build."""

from __future__ import annotations

import copy
import os
import shutil
import subprocess

import pytest
import yaml

from cfngen._kinds._shared._sam import render_requirements, render_template
from cfngen._languages._python_runtimes import RUNTIMES
from tests._wheelhouse import pyenv_python, write_wheel

ENTRYPOINT = "acme_test_widget.handlers.resource"
TEST_ENTRYPOINT = "acme_test_widget.handlers.test_entrypoint"


def template(runtime: str = "python3.12") -> dict:
    return yaml.safe_load(
        render_template("Acme::Test::Widget", runtime, ENTRYPOINT, TEST_ENTRYPOINT)
    )


def translate(sam: dict) -> dict:
    """Plain CloudFormation from the SAM template, as `sam deploy` would send it.

    A local CodeUri is only valid before `sam package` uploads it, so it is replaced by the S3
    location packaging would produce.
    """
    from samtranslator.translator.transform import transform

    class NoManagedPolicies:
        def load(self) -> dict:
            return {}

    packaged = copy.deepcopy(sam)
    for resource in packaged["Resources"].values():
        resource["Properties"]["CodeUri"] = "s3://bucket/code.zip"
    return transform(packaged, {}, NoManagedPolicies())


@pytest.mark.parametrize("runtime", [r.name for r in RUNTIMES])
def test_translates_to_two_lambda_functions(runtime, monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    cfn = translate(template(runtime))
    functions = {
        name: res["Properties"]
        for name, res in cfn["Resources"].items()
        if res["Type"] == "AWS::Lambda::Function"
    }
    assert set(functions) == {"TypeFunction", "TestEntrypoint"}
    assert functions["TypeFunction"]["Handler"] == ENTRYPOINT
    assert functions["TestEntrypoint"]["Handler"] == TEST_ENTRYPOINT
    for props in functions.values():
        assert props["Runtime"] == runtime
        assert props["Timeout"] == 180
        assert props["MemorySize"] == 256


def test_code_uri_is_the_source_folder_not_build():
    for resource in template()["Resources"].values():
        assert resource["Properties"]["CodeUri"] == "src/"


@pytest.mark.parametrize(
    ("has_requirements", "expected"),
    [(True, "-r ../requirements.txt\n"), (False, "cloudformation-cli-python-lib>=2.1.20,<2.2\n")],
)
def test_src_requirements(has_requirements, expected):
    assert render_requirements(has_requirements) == expected


@pytest.mark.oracle
def test_sam_builds_and_lints_a_generated_project(made_project, oracle_tool, tmp_path):
    """The SAM CLI (its own virtualenv: it pins boto3, click and cfn-lint) builds a project
    `cfngen init` made, offline, with the runtime's own CPython on PATH as `sam build` demands,
    and `sam validate --lint` accepts its template.yml."""
    sam = oracle_tool("sam")
    made = made_project("widget-py313", "-t", "Acme::Svc::Widget", "--runtime", "python3.13")
    root = tmp_path / "widget"
    shutil.copytree(made, root)
    # A local index instead of PyPI: the lib the project's requirements.txt names.
    write_wheel(
        tmp_path / "wheels",
        "cloudformation-cli-python-lib",
        "2.1.20",
        {"cloudformation_cli_python_lib/__init__.py": b"PLANTED = True\n"},
    )
    env = {
        **os.environ,
        "PATH": f"{pyenv_python('3.13').parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "SAM_CLI_TELEMETRY": "0",
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(tmp_path / "wheels"),
    }
    built = subprocess.run(
        [sam, "build"], cwd=root, env=env, capture_output=True, text=True, check=False
    )
    assert built.returncode == 0, built.stdout + built.stderr
    for function in ("TypeFunction", "TestEntrypoint"):
        artifact = root / ".aws-sam" / "build" / function
        assert (artifact / "acme_svc_widget" / "handlers.py").is_file()
        assert (artifact / "acme_svc_widget" / "models.py").is_file()
        assert (artifact / "cloudformation_cli_python_lib" / "__init__.py").read_bytes() == (
            b"PLANTED = True\n"
        )
    linted = subprocess.run(
        [sam, "validate", "--lint"], cwd=root, env=env, capture_output=True, text=True, check=False
    )
    assert linted.returncode == 0, linted.stdout + linted.stderr
    assert "is a valid SAM Template" in linted.stdout + linted.stderr
