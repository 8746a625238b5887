"""template.yml: a SAM template that aws-sam-translator accepts and `sam build` can build."""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
import sys

import pytest
import yaml

from cfngen._kinds.resource._sam import render_requirements, render_template
from cfngen._runtimes import RUNTIMES

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
    [(True, "-r ../requirements.txt\n"), (False, "cloudformation-cli-python-lib>=2.1.20\n")],
)
def test_src_requirements(has_requirements, expected):
    assert render_requirements(has_requirements) == expected


@pytest.mark.skipif(shutil.which("sam") is None, reason="the SAM CLI is not installed")
def test_sam_build_installs_the_support_library(tmp_path):
    """`sam build` with the generated template: the artifact holds the package and the lib."""
    runtime = f"python{sys.version_info.major}.{sys.version_info.minor}"
    pkg = tmp_path / "src" / "acme_test_widget"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "handlers.py").write_text("def resource(event, context):\n    return event\n")
    (tmp_path / "requirements.txt").write_text("cloudformation-cli-python-lib==2.1.20\n")
    (tmp_path / "src" / "requirements.txt").write_text(render_requirements(True))
    (tmp_path / "template.yml").write_text(
        render_template("Acme::Test::Widget", runtime, ENTRYPOINT, TEST_ENTRYPOINT)
    )
    env = {**os.environ, "SAM_CLI_TELEMETRY": "0"}
    subprocess.run(["sam", "build"], cwd=tmp_path, env=env, check=True, capture_output=True)
    built = tmp_path / ".aws-sam" / "build" / "TypeFunction"
    assert (built / "acme_test_widget" / "handlers.py").is_file()
    assert (built / "cloudformation_cli_python_lib").is_dir()
