"""`cfngen invoke --profile`: dynamic references resolve in the profile's account, as
CloudFormation resolves them there. The account is a fake AWS on loopback that the profile's
endpoint_url leads to: STS for --profile's own check, SSM GetParameter and Secrets Manager
GetSecretValue, each request noted."""

from __future__ import annotations

import http.server
import json
import threading
from typing import ClassVar

import pytest

from cfngen import _redact
from tests.conftest import run_cli
from tests.test_type_configuration import schema_of, write_project

IDENTITY = (
    "<GetCallerIdentityResponse><GetCallerIdentityResult><Arn>arn:aws:iam::111122223333:user/u"
    "</Arn><UserId>AIDAFAKE</UserId><Account>111122223333</Account></GetCallerIdentityResult>"
    "</GetCallerIdentityResponse>"
)
PARAMETER = "acct-s3cret-from-ssm"
SECRET = "acct-s3cret-from-secrets-manager"


class FakeAws(http.server.BaseHTTPRequestHandler):
    asked: ClassVar[list[tuple[str, dict]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        target = self.headers.get("X-Amz-Target") or "sts"
        request = json.loads(body) if target != "sts" else {}
        FakeAws.asked.append((target, request))
        status = 200
        answer: dict | None
        if target == "AmazonSSM.GetParameter" and "missing" in request["Name"]:
            status, answer = 400, {"__type": "ParameterNotFound", "message": "not there"}
        elif target == "AmazonSSM.GetParameter":
            answer = {"Parameter": {"Name": request["Name"], "Value": PARAMETER, "Version": 1}}
        elif target == "secretsmanager.GetSecretValue":
            answer = {"Name": request["SecretId"], "SecretString": json.dumps({"key": SECRET})}
        else:
            answer = None
        data = IDENTITY.encode() if answer is None else json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/xml" if answer is None else "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def account(tmp_path, monkeypatch):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeAws)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    config = tmp_path / "aws-config"
    config.write_text(
        "[profile elsewhere]\nregion = us-east-1\naws_access_key_id = AKIDCFNGENPROFILE000\n"
        f"aws_secret_access_key = not-a-secret\nendpoint_url = http://127.0.0.1:{server.server_port}\n"
    )
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    FakeAws.asked = []
    yield FakeAws.asked
    server.shutdown()
    _redact.forget_all()


def test_invoke_with_a_profile_resolves_references_in_that_account(tmp_path, account, monkeypatch):
    monkeypatch.setenv("WIDGET_SEEN", str(tmp_path / "seen.jsonl"))
    schema_config = {
        "properties": {"ApiKey": {"type": "string"}, "Token": {"type": "string"}},
        "required": ["ApiKey"],
        "additionalProperties": False,
    }
    root = write_project(tmp_path / "p", "resource", schema=schema_of("resource", schema_config))
    config = {
        "ApiKey": "{{resolve:ssm-secure:/acme/api-key:2}}",
        "Token": "{{resolve:secretsmanager:acme/token:SecretString:key:AWSPREVIOUS}}",
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"desiredResourceState": {"Title": "a"}}))
    result = run_cli(
        "invoke", "CREATE", request, "--project", root, "--typeconfig", tmp_path / "config.json",
        "--profile", "elsewhere",
    )  # fmt: skip
    assert result.exit_code == 0, result.stdout + result.stderr
    (seen,) = [json.loads(line) for line in (tmp_path / "seen.jsonl").read_text().splitlines()]
    assert seen["config"] == {"ApiKey": PARAMETER, "Token": SECRET}
    asked = dict(account)
    assert asked["AmazonSSM.GetParameter"] == {"Name": "/acme/api-key:2", "WithDecryption": True}
    assert asked["secretsmanager.GetSecretValue"] == {
        "SecretId": "acme/token",
        "VersionStage": "AWSPREVIOUS",
    }
    assert PARAMETER not in result.stdout + result.stderr
    assert SECRET not in result.stdout + result.stderr


def test_a_reference_the_profiles_account_lacks_is_one_message(tmp_path, account):
    schema = {"properties": {"ApiKey": {"type": "string"}}, "additionalProperties": False}
    root = write_project(tmp_path / "p", "resource", schema=schema_of("resource", schema))
    (tmp_path / "config.json").write_text(json.dumps({"ApiKey": "{{resolve:ssm:/missing}}"}))
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"desiredResourceState": {"Title": "a"}}))
    result = run_cli(
        "invoke", "CREATE", request, "--project", root, "--typeconfig", tmp_path / "config.json",
        "--profile", "elsewhere",
    )  # fmt: skip
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "{{resolve:ssm:/missing}} could not be resolved" in result.stderr
    assert "ParameterNotFound" in result.stderr
