"""What `cfngen build` installs for: the runtime, Amazon Linux and architecture of a project, and
which requirement files its cache may key on their text. Tables of cases, one row each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfngen._errors import CfngenError
from cfngen._package._cache import requirements_text
from cfngen._package._platform import architecture, handler_platform
from cfngen._project import load_project

HANDLER = "acme_svc_widget.handlers.resource"


def template(body: str) -> str:
    return "AWSTemplateFormatVersion: '2010-09-09'\nTransform: AWS::Serverless-2016-10-31\n" + body


FUNCTION = """
Resources:
  TypeFunction:
    Type: AWS::Serverless::Function
    Properties:
      Handler: {handler}
      Runtime: python3.12
      CodeUri: !Sub "src/"
{extra}
  TestEntrypoint:
    Type: AWS::Serverless::Function
    Properties:
      Handler: acme_svc_widget.handlers.test_entrypoint
{other}
"""


@pytest.mark.parametrize(
    ("body", "arch"),
    [
        (FUNCTION.format(handler=HANDLER, extra="", other=""), "x86_64"),
        (
            FUNCTION.format(handler=HANDLER, extra="      Architectures: [arm64]", other=""),
            "aarch64",
        ),
        (
            FUNCTION.format(handler=HANDLER, extra="      Architectures: [x86_64]", other=""),
            "x86_64",
        ),
        # Only the test entrypoint's function is arm64: the handler's is what Lambda runs.
        (
            FUNCTION.format(handler=HANDLER, extra="", other="      Architectures: [arm64]"),
            "x86_64",
        ),
        (
            "Globals:\n  Function:\n    Architectures: [arm64]\n"
            + FUNCTION.format(handler=HANDLER, extra="", other=""),
            "aarch64",
        ),
        (
            "Globals:\n  Function:\n    Architectures: [arm64]\n"
            + FUNCTION.format(handler=HANDLER, extra="      Architectures: [x86_64]", other=""),
            "x86_64",
        ),
    ],
)
def test_the_architecture_is_the_entrypoint_functions(tmp_path, body, arch):
    path = tmp_path / "template.yml"
    path.write_text(template(body))
    assert architecture(path, HANDLER) == arch


def test_no_template_means_x86_64_and_a_broken_one_is_named(tmp_path):
    assert architecture(tmp_path / "template.yml", HANDLER) == "x86_64"
    broken = tmp_path / "broken.yml"
    broken.write_text("Resources: [arm64\n")
    with pytest.raises(CfngenError) as caught:
        architecture(broken, HANDLER)
    assert caught.value.message.startswith(f"{broken}: cannot read it")


def project(tmp_path: Path, **config: str) -> Path:
    settings = {"artifact_type": "RESOURCE", "typeName": "Acme::Svc::Widget", **config}
    (tmp_path / ".rpdk-config").write_text(json.dumps(settings))
    return tmp_path


@pytest.mark.parametrize(
    ("config", "python", "amazon_linux", "warning"),
    [
        ({"runtime": "python3.14"}, "3.14", "2023", None),
        ({"runtime": "python3.12"}, "3.12", "2023", None),
        ({"runtime": "python3.11"}, "3.11", "2", None),
        ({"runtime": "python3.10"}, "3.10", "2", "Lambda deprecated python3.10 on"),
        # Deprecated runtimes of projects the official tool made still build, with a warning.
        ({"runtime": "python3.9"}, "3.9", "2", "Lambda deprecated python3.9 on"),
        ({"runtime": "python3.8"}, "3.8", "2", "Lambda deprecated python3.8 on"),
        # No runtime: the official plugin's language names it.
        ({"language": "python311"}, "3.11", "2", None),
        ({}, "3.14", "2023", 'has no "runtime": building for python3.14'),
    ],
)
def test_the_runtime_decides_python_and_amazon_linux(
    tmp_path, config, python, amazon_linux, warning
):
    platform, warnings = handler_platform(load_project(project(tmp_path, **config)))
    assert (platform.python_version, platform.amazon_linux, platform.arch) == (
        python,
        amazon_linux,
        "x86_64",
    )
    if warning is None:
        assert warnings == []
    else:
        assert any(warning in w for w in warnings), warnings


@pytest.mark.parametrize("runtime", ["python3.7", "python2.7", "nodejs20.x"])
def test_a_runtime_lambda_does_not_run_python_on_is_refused(tmp_path, runtime):
    with pytest.raises(CfngenError) as caught:
        handler_platform(load_project(project(tmp_path, runtime=runtime)))
    assert f'runtime "{runtime}" is not a Python runtime Lambda runs' in caught.value.message


@pytest.mark.parametrize(
    ("lines", "cacheable"),
    [
        ("cloudformation-cli-python-lib>=2.1.20,<2.2\n", True),
        ("requests==2.32.0  # pinned\n-r more.txt\n", True),
        ("-e ./libs/helper\n", False),
        ("./libs/helper\n", False),
        ("/abs/path/pkg\n", False),
        ("helper @ file:///tmp/helper\n", False),
        ("helper-1.0-py3-none-any.whl\n", False),
        ("-r local.txt\n", False),  # local.txt names a folder
    ],
)
def test_requirements_naming_local_paths_are_never_keyed_on_their_text(tmp_path, lines, cacheable):
    (tmp_path / "more.txt").write_text("six\n")
    (tmp_path / "local.txt").write_text("./vendor/thing\n")
    path = tmp_path / "requirements.txt"
    path.write_text(lines)
    text = requirements_text(path)
    assert (text is not None) == cacheable
    if cacheable and "more.txt" in lines:
        assert "six" in text  # an included file is part of the key
