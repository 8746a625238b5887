"""cfngen validate agrees with the official validator on the 1898 real AWS schemas.

The oracle is `rpdk.core.data_loaders.load_resource_spec` (cloudformation-cli), run in-process
with its 60 KiB whole-schema limit lifted: that limit is its bug, and the big real schemas
(S3::Bucket, RDS::DBInstance, ...) are valid. Every schema it rejects, we reject; every schema it
accepts, we accept. The real mistakes our semantic checks find in schemas it (and the registry,
which holds them) accepts are warnings: DEFECTS lists them with the warning we must give, and
--strict turns them into errors (docs/validate.md explains each kind). A new disagreement in
either direction fails the test.
"""

from __future__ import annotations

import io
import json
import logging

import pytest

from cfngen._validate import validate_text
from tests._corpus import corpus, corpus_text

#: typeName -> a fragment of the warning cfngen reports, for schemas the official tool accepts
#: (and the registry holds): valid, but invalid with --strict.
DEFECTS = {
    # A handler that lists no permissions.
    "AWS::AppSync::GraphQLSchema": "the delete handler lists no permissions",
    "AWS::ApplicationSignals::GroupingConfiguration": "the list handler lists no permissions",
    "AWS::CloudFormation::HookDefaultVersion": "the delete handler lists no permissions",
    "AWS::CloudFormation::ModuleDefaultVersion": "the delete handler lists no permissions",
    "AWS::CloudFormation::PublicTypeVersion": "the delete handler lists no permissions",
    "AWS::CloudFormation::Publisher": "the delete handler lists no permissions",
    "AWS::Connect::AgentStatus": "the delete handler lists no permissions",
    "AWS::Connect::ApprovedOrigin": "the update handler lists no permissions",
    "AWS::Connect::SecurityKey": "the update handler lists no permissions",
    "AWS::Connect::ViewVersion": "the update handler lists no permissions",
    "AWS::Detective::MemberInvitation": "the update handler lists no permissions",
    "AWS::Detective::OrganizationAdmin": "the update handler lists no permissions",
    "AWS::ECS::PrimaryTaskSet": "the read handler lists no permissions",
    "AWS::EMR::Step": "the read handler lists no permissions",
    "AWS::LookoutVision::Project": "the update handler lists no permissions",
    "AWS::S3::MultiRegionAccessPointPolicy": "the list handler lists no permissions",
    "AWS::SDB::Domain": "the update handler lists no permissions",
    # A property both readOnly and createOnly.
    "AWS::CodeArtifact::Domain": "/properties/EncryptionKey is both readOnly and createOnly",
    "AWS::CodeArtifact::Repository": "/properties/DomainOwner is both readOnly and createOnly",
    "AWS::Signer::SigningProfile": "/properties/ProfileName is both readOnly and createOnly",
    # propertyTransform keys that name no property (typos of the real names), or no pointer.
    "AWS::GameLiftStreams::StreamGroup": "'/properties/LocationConfiguration/MaximumCapacity'",
    "AWS::RDS::Integration": "'/properties/KmsKeyId' does not resolve",
    "AWS::Redshift::Integration": "'/properties/KmsKeyId' does not resolve",
    "AWS::SageMaker::EndpointConfig": "'/properties/AsyncInferenceOutputConfig/KmsKeyId'",
    "AWS::SimSpaceWeaver::Simulation": "'properties/MaximumDuration' is not a JSON pointer",
}

#: The big schemas the official tool rejects only for their size.
OVER_60_KIB = (
    "AWS::AutoScaling::AutoScalingGroup",
    "AWS::EC2::LaunchTemplate",
    "AWS::ECS::Service",
    "AWS::ECS::TaskDefinition",
    "AWS::QuickSight::Analysis",
    "AWS::QuickSight::Dashboard",
    "AWS::QuickSight::Template",
    "AWS::RDS::DBInstance",
    "AWS::S3::Bucket",
)

CHUNKS = 24


def official_verdict(text: str) -> str:
    """'ok', or 'rejected: <first line of the official message>'."""
    from rpdk.core import data_loaders
    from rpdk.core.exceptions import SpecValidationError

    stream = io.StringIO(text)
    stream.name = "/nonexistent/schema.json"
    try:
        data_loaders.load_resource_spec(stream)
    except SpecValidationError as exc:
        return "rejected: " + str(exc).splitlines()[0]
    return "ok"


@pytest.fixture
def official(monkeypatch):
    from rpdk.core import data_loaders

    monkeypatch.setattr(data_loaders, "MAX_CONFIGURATION_SCHEMA_LENGTH", 1 << 40)
    logging.disable(logging.CRITICAL)  # its warnings are not its verdict, and slow it down
    yield official_verdict
    logging.disable(logging.NOTSET)


@pytest.mark.corpus
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_verdicts_agree_with_the_official_validator(chunk, official):
    names = list(corpus())[chunk::CHUNKS]
    problems = []
    for name in names:
        text = corpus_text(name)
        theirs = official(text)
        report = validate_text(text, display=name)
        errors = [d.message for d in report.diagnostics if d.severity == "error"]
        warnings = [d.message for d in report.diagnostics if d.severity == "warning"]
        if theirs != "ok":
            if name in DEFECTS:
                problems.append(f"{name}: listed in DEFECTS but the official tool {theirs}")
            elif report.valid:
                problems.append(f"{name}: official {theirs}; cfngen accepts it")
        elif not report.valid:
            problems.append(f"{name}: official accepts it; cfngen reports {errors}")
        elif name in DEFECTS:
            if not any(DEFECTS[name] in message for message in warnings):
                problems.append(f"{name}: expected a warning with {DEFECTS[name]!r}")
            elif validate_text(text, strict=True).valid:
                problems.append(f"{name}: --strict must reject it")
    assert not problems, "\n".join(problems)


def test_defects_table_names_real_corpus_schemas():
    assert set(DEFECTS) <= set(corpus())


@pytest.mark.corpus
@pytest.mark.parametrize("name", OVER_60_KIB)
def test_big_schemas_the_official_tool_rejects_for_size_are_valid(name):
    from rpdk.core import data_loaders
    from rpdk.core.exceptions import SpecValidationError

    text = corpus_text(name)
    assert len(json.dumps(json.loads(text)).encode()) > 60 * 1024
    stream = io.StringIO(text)
    stream.name = "/nonexistent/schema.json"
    with pytest.raises(SpecValidationError, match="60 KiB"):
        data_loaders.load_resource_spec(stream)
    assert validate_text(text).valid
