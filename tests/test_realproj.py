"""Real third-party projects made for the official tool (tests/fixtures/realproj, see its README):
the official validator accepts each schema, so cfngen must too (warnings, never errors); generate
works on each (a python3.7 project after `cfngen runtime set`, which says so); and the models
import and give back what CloudFormation sent, through the Lambda entrypoint, on the Python of
the project's runtime, with handlers in the projects' own style."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cfngen._errors import CfngenError, ExitCode
from cfngen._generate import generate_project
from cfngen._project import load_project
from cfngen._runtime_set import set_runtime
from cfngen._validate import validate_file
from tests._generate_helpers import snapshot_tree
from tests._maximal import maximal, stringify
from tests._pythons import run_json, runtime_python
from tests.test_runtime_support import lambda_event
from tests.test_validate_corpus import official_verdict

FIXTURES = Path(__file__).parent / "fixtures" / "realproj"
TODAY = "2026-11-25"

#: folder -> (runtime to move a python3.7 project to, or None; warnings cfngen must give)
PROJECTS = {
    "nordcloud-variable": (
        "python3.8",
        ["the create handler lists no permissions", "the update handler lists no permissions"],
    ),
    "cidrcalc": ("python3.9", ["array without an explicit insertionOrder"]),
    "cd4automl": ("python3.12", ["an empty permission"]),
    "awx-rds-authenticator": (None, ["does not say whether the resource supports tags"]),
    "mongodb-project": (None, ["the list handler lists no permissions"]),
    "mongodb-databaseuser": (
        None,
        [
            "'/definitions/apiKeyDefinition/properties/PrivateKey' does not point at a property",
            "/properties/UserCNFIdentifier is both readOnly and writeOnly",
            "wildcard permission 'secretsmanager:*'",
        ],
    ),
}


@pytest.fixture
def project(request, tmp_path):
    """A copy of the fixture, with handlers.py in the project's style in its package."""
    root = tmp_path / request.param
    shutil.copytree(FIXTURES / request.param, root)
    loaded = load_project(root)
    schema = json.loads(loaded.schema_path.read_text())
    package = loaded.language.layout(loaded).package_dir
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "handlers.py").write_text(
        HANDLERS.format(
            type_name=schema["typeName"],
            keywords=", ".join(f"{name}=desired.{name}" for name in schema["properties"]),
            identifier=schema["primaryIdentifier"][0].split("/")[-1],
        )
    )
    return root


def parametrize_projects():
    return pytest.mark.parametrize("project", list(PROJECTS), indirect=True)


@parametrize_projects()
def test_the_official_validator_and_cfngen_accept_it_with_warnings(project, official_logging):
    name = project.name
    schema_path = load_project(project).schema_path
    assert official_verdict(schema_path.read_text()) == "ok"
    report = validate_file(schema_path)
    assert report.valid, [d for d in report.diagnostics if d.severity == "error"]
    messages = [d.message for d in report.diagnostics if d.severity == "warning"]
    for fragment in PROJECTS[name][1]:
        assert any(fragment in m for m in messages), (fragment, messages)
    assert not validate_file(schema_path, strict=True).valid


@parametrize_projects()
def test_generate_works_on_the_declared_runtime_or_names_the_fix(project):
    move_to = PROJECTS[project.name][0]
    if move_to is not None:
        before = snapshot_tree(project)
        with pytest.raises(CfngenError) as info:
            generate_project(project)
        assert info.value.exit_code == ExitCode.USAGE
        assert "python3.7" in info.value.message
        assert "cfngen runtime set" in (info.value.hint or "")
        assert snapshot_tree(project) == before
        change = set_runtime(project, move_to, TODAY)
        assert change.generated is not None and change.generated.written
        config = json.loads((project / ".rpdk-config").read_text())
        assert config["runtime"] == move_to
    else:
        generate_project(project)
    loaded = load_project(project)
    package = loaded.language.layout(loaded).package_dir
    assert (package / "models.py").is_file() and (
        package / "cfngen_runtime" / "serialisation.py"
    ).is_file()


HANDLERS = """\
from cloudformation_cli_python_lib import Action, OperationStatus, ProgressEvent, Resource

from .models import ResourceHandlerRequest, ResourceModel

TYPE_NAME = "{type_name}"
resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint


@resource.handler(Action.CREATE)
def create_handler(session, request: ResourceHandlerRequest, callback_context):
    desired = request.desiredResourceState
    # The way handlers written for the official tool build models: every property a keyword.
    model = ResourceModel({keywords})
    setattr(model, "{identifier}", "generated-id")
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.READ)
def read_handler(session, request: ResourceHandlerRequest, callback_context):
    return ProgressEvent(
        status=OperationStatus.SUCCESS, resourceModel=request.desiredResourceState
    )
"""

RUN = r"""
import importlib
handlers = importlib.import_module(job["package"] + ".handlers")
json.dump([handlers.resource(event, None) for event in job["events"]], sys.stdout, default=str)
"""


@pytest.mark.oracle  # the declared runtime's CPython is the judge
@parametrize_projects()
def test_models_run_through_the_lambda_entrypoint_on_the_declared_runtime(project):
    move_to = PROJECTS[project.name][0]
    if move_to is not None:
        set_runtime(project, move_to, TODAY)
    else:
        generate_project(project)
    loaded = load_project(project)
    schema = json.loads(loaded.schema_path.read_text())
    identifier = schema["primaryIdentifier"][0].split("/")[-1]
    typed, expected = maximal(schema)
    events = [
        lambda_event("CREATE", stringify(typed)),
        lambda_event("READ", stringify(typed)),
    ]
    for event in events:
        event["resourceType"] = schema["typeName"]
    layout = loaded.language.layout(loaded)
    version = tuple(int(p) for p in layout.runtime.removeprefix("python").split("."))
    responses = run_json(
        runtime_python(version),
        layout.src_dir,
        RUN,
        {"package": layout.package_name, "events": events},
    )
    created, read = responses
    assert created["status"] == "SUCCESS", created
    assert created["resourceModel"] == {**expected, identifier: "generated-id"}
    assert read["status"] == "SUCCESS", read
    assert read["resourceModel"] == expected


@pytest.fixture
def official_logging():
    import logging

    logging.disable(logging.CRITICAL)
    yield
    logging.disable(logging.NOTSET)
