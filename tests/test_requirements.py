"""A resource type's or hook's requirements.txt (at the root, where `cfn init` puts it) is
installed for `cfngen test` and `cfngen invoke` when the handlers import something cfngen's
Python lacks, as a custom resource's is (cfngen/_contract/_requirements.py): once per content,
from a local wheelhouse here (PIP_NO_INDEX, PIP_FIND_LINKS). What cfngen runs handlers with
(cloudformation-cli-python-lib, boto3, botocore, moto) is never installed and never shadowed,
whatever the file pins or another requirement pulls in. What cannot be installed is named."""

from __future__ import annotations

import json
from pathlib import Path

import boto3
import pytest

from cfngen._errors import ExitCode
from tests._official_projects import by_hand
from tests._wheelhouse import write_wheel
from tests.conftest import sampled

RESOURCE = """\
import boto3
from cloudformation_cli_python_lib import Action, OperationStatus, ProgressEvent, Resource

import {module}

from .models import ResourceHandlerRequest, ResourceModel

resource = Resource("Acme::Test::Widget", ResourceModel)
test_entrypoint = resource.test_entrypoint


@resource.handler(Action.READ)
def read_handler(session, request: ResourceHandlerRequest, callback_context):
    buckets = boto3.client("s3").list_buckets()["Buckets"]  # moto answers
    title = f"{{{module}.ANSWER}} boto3 {{boto3.__version__}} buckets {{len(buckets)}}"
    return ProgressEvent(
        status=OperationStatus.SUCCESS, resourceModel=ResourceModel(Id="w", Title=title)
    )
"""
HOOK = """\
import boto3
from cloudformation_cli_python_lib import (
    Hook,
    HookInvocationPoint,
    OperationStatus,
    ProgressEvent,
)

import {module}

from .models import HookHandlerRequest, TypeConfigurationModel

hook = Hook("Acme::Test::Hook", TypeConfigurationModel)
test_entrypoint = hook.test_entrypoint


@hook.handler(HookInvocationPoint.CREATE_PRE_PROVISION)
def pre_create_handler(session, request: HookHandlerRequest, callback_context, configuration):
    buckets = boto3.client("s3").list_buckets()["Buckets"]  # moto answers
    message = f"{{{module}.ANSWER}} boto3 {{boto3.__version__}} buckets {{len(buckets)}}"
    return ProgressEvent(status=OperationStatus.SUCCESS, message=message)
"""
REQUESTS = {
    "resource": ("READ", {"desiredResourceState": {"Id": "w"}}),
    "hook": ("preCreate", {"AWS::S3::Bucket": {"resourceProperties": {"BucketName": "b"}}}),
}


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory) -> Path:
    """acme-answer; acme-pins-boto, which pulls in a boto3 0.0.1 and a botocore 0.0.1 that must
    never be imported. No cloudformation-cli-python-lib: pip must never be asked for it."""
    house = tmp_path_factory.mktemp("wheelhouse")
    write_wheel(house, "acme-answer", "1.0", {"acme_answer.py": b"ANSWER = 42\n"})
    write_wheel(
        house,
        "acme-pins-boto",
        "1.0",
        {"acme_pins_boto.py": b"ANSWER = 7\n"},
        requires=("boto3==0.0.1", "botocore==0.0.1"),
    )
    for name in ("boto3", "botocore"):
        fake = f'__version__ = "0.0.1"\nraise ImportError("the fake {name} was imported")\n'
        write_wheel(house, name, "0.0.1", {f"{name}/__init__.py": fake.encode()})
    return house


@pytest.fixture
def offline_pip(monkeypatch, tmp_path, wheelhouse):
    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheelhouse))
    return tmp_path / "home"


def project(tmp_path: Path, kind: str, module: str, requirements: str) -> Path:
    template = RESOURCE if kind == "resource" else HOOK
    root = by_hand(tmp_path / kind, kind, handlers=template.format(module=module))
    (root / "requirements.txt").write_text(requirements)
    # A file requirements.txt may include (`-r`), relative to its own folder.
    (root / "requirements-handlers.txt").write_text("acme-answer==1.0\n")
    return root


def invoke(cli, root: Path, kind: str):
    action, request = REQUESTS[kind]
    path = root / "request.json"
    path.write_text(json.dumps(request))
    return cli("invoke", action, path, "--project", root)


#: case -> (module the handlers import, requirements.txt, what the handler answers or None)
CASES = {
    "listed": ("acme_answer", "cloudformation-cli-python-lib>=2.1.9\nacme-answer==1.0\n", "42"),
    "included-with-r": (
        "acme_answer",
        "cloudformation-cli-python-lib\n-r requirements-handlers.txt\n",
        "42",
    ),
    # Pins of what cfngen provides are left out (pip never sees them: the wheelhouse has no
    # such lib), and what a requirement pulls in comes after cfngen's own boto3 and botocore.
    "pins-what-cfngen-runs-with": (
        "acme_pins_boto",
        "cloudformation-cli-python-lib==2.1.9\nboto3==0.0.1  # old\nMoto\nacme-pins-boto\n",
        "7",
    ),
}


@pytest.mark.parametrize(
    ("case", "kind"),
    sampled(
        [(case, kind) for case in CASES for kind in ("resource", "hook")],
        {("listed", "resource"), ("included-with-r", "hook")},
    ),
)
def test_requirements_are_installed_for_the_run_without_shadowing_cfngen(
    kind, case, tmp_path, offline_pip, cli
):
    module, requirements, answer = CASES[case]
    root = project(tmp_path, kind, module, requirements)
    assert cli("generate", root).exit_code == ExitCode.OK
    result = invoke(cli, root, kind)
    assert result.exit_code == ExitCode.OK, result.stdout + result.stderr
    assert f"{answer} boto3 {boto3.__version__} buckets 0" in result.stdout
    note = f"No module named '{module}': installed requirements.txt for the run"
    assert note in result.stderr
    # Installed once: the next run (cfngen test here) reads the same folder.
    tested = cli("test", root)
    assert "cannot import" not in tested.stdout + tested.stderr
    assert tested.exit_code in (ExitCode.OK, ExitCode.FAILED), tested.stdout + tested.stderr
    assert len(list((offline_pip / "cache" / "requirements").iterdir())) == 1


#: case -> (requirements.txt, what the message and its hint must name)
REFUSALS = {
    "not-listed": (
        "cloudformation-cli-python-lib>=2.1.9\n",
        ["No module named 'acme_unlisted'", "list the distribution that provides acme_unlisted"],
    ),
    "listed-but-not-that": (
        "acme-answer\n",
        ["(after installing requirements.txt for the run)", "provides acme_unlisted"],
    ),
    "pip-cannot-install-it": (
        "acme-unlisted==9\n",
        ["pip could not install it for the run", "-m pip install -r", "requirements.txt"],
    ),
}


@pytest.mark.parametrize(
    ("case", "kind"),
    sampled(
        [(case, kind) for case in REFUSALS for kind in ("resource", "hook")],
        {("not-listed", "hook"), ("listed-but-not-that", "resource")},
    ),
)
def test_what_cannot_be_installed_is_named(kind, case, tmp_path, offline_pip, cli):
    requirements, words = REFUSALS[case]
    root = project(tmp_path, kind, "acme_unlisted", requirements)
    assert cli("generate", root).exit_code == ExitCode.OK
    for result in (invoke(cli, root, kind), cli("test", root)):
        assert result.exit_code == ExitCode.USAGE, result.stdout + result.stderr
        for word in words:
            assert word in result.stderr, (word, result.stderr)
        assert "Traceback" not in result.stderr
