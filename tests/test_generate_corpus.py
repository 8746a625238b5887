"""`cfngen generate` over the 1898 real AWS resource schemas that cfn-lint bundles.

Generate validates first and refuses an invalid schema, so the schemas it refuses must be
exactly those `cfngen validate` finds invalid: the ones the official validator rejects as well
(OFFICIALLY_INVALID). Every other schema renders every derived file: the big ones the official
tool rejects only for their size, and the real defects it (and the registry) accepts, about
which cfngen only warns (test_validate_corpus.DEFECTS). models.py is rendered, imported and
round-tripped for all 1898 in test_models_corpus.py; here it is left out so the models are not
rendered twice.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from cfngen._kind import named
from cfngen._kinds.resource._derive import render_project
from cfngen._project import Project
from cfngen._typename import TypeName
from cfngen._validate import validate_text
from tests._corpus import corpus, corpus_text
from tests.test_validate_corpus import DEFECTS

pytestmark = pytest.mark.corpus

#: typeName -> why the official validator rejects it too (first words of its message).
OFFICIALLY_INVALID = {
    "AWS::ApplicationAutoScaling::ScalingPolicy": "dependentRequired is not allowed",
    "AWS::Backup::BackupPlan": "'if' is not allowed",
    "AWS::CloudFormation::CustomResource": "patternProperties at the top level",
    "AWS::CloudFront::Distribution": "dependentRequired is not allowed",
    "AWS::Cognito::UserPoolDomain": "'if'/'then' are not allowed",
    "AWS::DevOpsAgent::Service": "an enum without a type",
    "AWS::DynamoDB::GlobalTable": "'if' is not allowed",
    "AWS::DynamoDB::Table": "'if' is not allowed",
    "AWS::EC2::SecurityGroup": "dependentRequired is not allowed",
    "AWS::EC2::Subnet": "dependentRequired is not allowed",
    "AWS::EC2::VPC": "dependentRequired is not allowed",
    "AWS::OpsWorks::Stack": "dependentRequired is not allowed",
    "AWS::QuickSight::ApprovalPolicy": "an enum without a type",
    "AWS::RDS::DBCluster": "'not' is not allowed",
    # cfn-lint's own schemas of the SAM transform's types: no description, SAM-only shapes.
    "AWS::Serverless::Api": "no description",
    "AWS::Serverless::Application": "no description",
    "AWS::Serverless::CapacityProvider": "no description",
    "AWS::Serverless::Connector": "no description",
    "AWS::Serverless::Function": "no description",
    "AWS::Serverless::GraphQLApi": "no description",
    "AWS::Serverless::HttpApi": "no description",
    "AWS::Serverless::LayerVersion": "no description",
    "AWS::Serverless::MicrovmImage": "no description",
    "AWS::Serverless::NetworkConnector": "no description",
    "AWS::Serverless::SimpleTable": "no description",
    "AWS::Serverless::StateMachine": "no description",
    "AWS::Serverless::WebFunction": "no description",
    "AWS::Serverless::WebSocketApi": "no description",
}

CHUNKS = 16


def _models_left_out() -> dict[str, str]:
    return {"models.py": ""}


def _derived_file_problems(name: str, schema: dict) -> list[str]:
    type_name = TypeName(name)
    project = Project(
        root=Path("/nonexistent"),
        kind=named("resource"),
        config={
            "typeName": name,
            "runtime": "python3.12",
            "entrypoint": f"{type_name.package_name}.handlers.resource",
        },
    )
    files = render_project(project, schema, None, models=_models_left_out)
    problems = []
    role = yaml.safe_load(files["resource-role.yaml"])
    if "ExecutionRole" not in role["Resources"]:
        problems.append("resource-role.yaml has no ExecutionRole")
    template = yaml.safe_load(files["template.yml"])
    if set(template["Resources"]) != {"TypeFunction", "TestEntrypoint"}:
        problems.append(f"template.yml has {sorted(template['Resources'])}")
    if "docs/README.md" not in files:
        problems.append("no docs/README.md")
    for kind in ("create", "update", "invalid"):
        if not isinstance(json.loads(files[f"example_inputs/inputs_1_{kind}.json"]), dict):
            problems.append(f"inputs_1_{kind}.json is not an object")
    return problems


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_generate_refuses_only_invalid_schemas_and_renders_the_rest(chunk):
    problems = []
    for name in list(corpus())[chunk::CHUNKS]:
        refused = not validate_text(corpus_text(name), display=name).valid
        expected = name in OFFICIALLY_INVALID
        if refused != expected:
            problems.append(f"{name}: refused={refused}, expected {expected}")
        if not refused:
            try:
                problems += [f"{name}: {p}" for p in _derived_file_problems(name, corpus()[name])]
            except Exception as error:  # the failure to report, whatever it is
                problems.append(f"{name}: {type(error).__name__}: {error}")
    assert not problems, "\n".join(problems)


def test_the_tables_name_corpus_schemas_once():
    assert set(OFFICIALLY_INVALID) <= set(corpus())
    assert not set(OFFICIALLY_INVALID) & set(DEFECTS)
    # 1898 schemas; generate renders everything for the rest, the DEFECTS included.
    assert len(corpus()) - len(OFFICIALLY_INVALID) == 1870
