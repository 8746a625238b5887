"""`cfngen invoke` for hooks with a full hook request, as CloudFormation sends it (the python
plugin's tests/lib/hook_test.py ENTRYPOINT_PAYLOAD): what the request carries besides the
target must reach the handler when no option overrides it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfngen._cli import main
from cfngen._init._scaffold import init_project
from cfngen._kinds.hook._answers import INIT

#: A bucket encrypted with aws:kms and versioned: compliant unless the configuration asks for
#: another algorithm.
BUCKET = {
    "BucketName": "cfngen-example-bucket",
    "BucketEncryption": {
        "ServerSideEncryptionConfiguration": [
            {"ServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms"}}
        ]
    },
    "VersioningConfiguration": {"Status": "Enabled"},
}


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> Path:
    """cfngen's example hook (its type configuration names the encryption algorithm)."""
    import os

    base = tmp_path_factory.mktemp("invoke")
    saved = dict(os.environ)
    os.environ.update(
        HOME=str(base),
        GIT_CONFIG_NOSYSTEM="1",
        AWS_EC2_METADATA_DISABLED="true",
        AWS_DEFAULT_REGION="us-east-1",
        CFNGEN_HOME=str(base / "cfngen-home"),
    )
    try:
        answers = INIT.resolve(INIT.fold({"example": True}))
        return init_project(base / "example", answers, use_git=False).root
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "cfngen-home"))


def full_request(hook_model: dict | None) -> dict:
    return {
        "awsAccountId": "123456789012",
        "clientRequestToken": "4b90a7e4-b790-456b-a937-0cfdfa211dfe",
        "region": "us-east-1",
        "actionInvocationPoint": "CREATE_PRE_PROVISION",
        "hookTypeName": "Example::S3::ComplianceHook",
        "hookTypeVersion": "00000001",
        "requestContext": {"invocation": 1, "callbackContext": {}},
        "requestData": {
            "targetName": "AWS::S3::Bucket",
            "targetType": "RESOURCE",
            "targetLogicalId": "Data",
            "targetModel": {"resourceProperties": BUCKET},
        },
        "stackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/Demo/e722ae60",
        "hookModel": hook_model,
    }


def invoke(root: Path, request: Path, *extra: str) -> int:
    return main(["invoke", "CREATE_PRE_PROVISION", str(request), "--project", str(root), *extra])


def test_a_full_request_runs_its_target(example, tmp_path, capsys):
    request = tmp_path / "request.json"
    request.write_text(json.dumps(full_request(None)))
    assert invoke(example, request) == 0
    assert "CREATE_PRE_PROVISION AWS::S3::Bucket #1 -> SUCCESS" in capsys.readouterr().out


def test_typeconfig_configures_a_full_request(example, tmp_path, capsys):
    request = tmp_path / "request.json"
    request.write_text(json.dumps(full_request(None)))
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"EncryptionAlgorithm": "AES256"}))
    assert invoke(example, request, "--typeconfig", str(config)) == 1
    assert "must be encrypted with AES256" in capsys.readouterr().err


def test_the_hook_model_of_a_full_request_configures_the_handler(example, tmp_path, capsys):
    request = tmp_path / "request.json"
    request.write_text(json.dumps(full_request({"EncryptionAlgorithm": "AES256"})))
    assert invoke(example, request) == 1
    assert "must be encrypted with AES256" in capsys.readouterr().err


def test_a_type_configuration_the_schema_refuses_is_refused(example, tmp_path, capsys):
    request = tmp_path / "request.json"
    request.write_text(json.dumps(full_request(None)))
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"EncryptionAlgorithm": "rot13", "Nope": 1}))
    assert invoke(example, request, "--typeconfig", str(config)) == 2
    err = capsys.readouterr().err
    assert '/EncryptionAlgorithm: "rot13" is not allowed; use one of' in err
    assert "/Nope: unknown key 'Nope'" in err
