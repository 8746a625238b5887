"""Secrets a run resolves or seeds appear in no output: a planted leak (the seeded secret
printed and logged by a handler, raised in an exception, returned in a message) run through
every output format of `cfngen test`, through `cfngen invoke`, and through `pytest --cfngen`."""

from __future__ import annotations

import json

import pytest

from cfngen import _redact
from tests.conftest import run_cli
from tests.test_pytest_plugin import pytest_run
from tests.test_type_configuration import CONFIG, RESOURCE_HANDLERS, SECRET, write_project

#: A second secret, seeded into Secrets Manager and read by the handler itself.
STORED = "st0red-cr3dential-xyz"
#: Shorter than _redact.SHORT: masked where it stands as a word of its own.
SHORT = "pw7"

LEAKY = RESOURCE_HANDLERS.replace(
    '    return {"key": request.typeConfiguration.ApiKey}',
    """    import boto3
    key = request.typeConfiguration.ApiKey
    stored = boto3.client("secretsmanager").get_secret_value(SecretId="acme/stored")
    print("calling the API with", key, stored["SecretString"], "pin", PIN)
    LOG.warning("key=%s", key)
    return {"key": key}""",
).replace(
    "WIDGETS = {}",
    f"WIDGETS = {{}}\nPIN = {SHORT!r}",
)
# READ raises with the key in its message; UPDATE returns it in a FAILED message.
LEAKY = LEAKY.replace(
    '    _seen("READ", request.typeConfiguration)\n',
    '    _seen("READ", request.typeConfiguration)\n'
    '    print("reading with", request.typeConfiguration.ApiKey, PIN)\n'
    '    LOG.warning("key=%s", request.typeConfiguration.ApiKey)\n'
    '    raise RuntimeError(f"the API refused key {request.typeConfiguration.ApiKey}")\n',
).replace(
    '    _seen("UPDATE", request.typeConfiguration)\n',
    '    _seen("UPDATE", request.typeConfiguration)\n'
    "    return ProgressEvent.failed(\n"
    "        HandlerErrorCode.AccessDenied,\n"
    '        f"key {request.typeConfiguration.ApiKey} was refused",\n'
    "    )\n",
)
SEEDS = (
    "--ssm", f"/acme/api-key={SECRET}",
    "--secret", f"acme/stored={STORED}",
    "--secret", f"acme/pin={SHORT}",
)  # fmt: skip


@pytest.fixture
def leaky(tmp_path, monkeypatch):
    monkeypatch.setenv("WIDGET_SEEN", str(tmp_path / "seen.jsonl"))
    root = write_project(tmp_path / "p", "resource", handlers=LEAKY)
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    yield root, tmp_path / "config.json"
    _redact.forget_all()


def assert_no_secret(text: str) -> None:
    assert SECRET not in text
    assert STORED not in text
    # JSON, XML and GitHub spell it the same here (no characters they escape).
    assert f" {SHORT}" not in text and f"{SHORT}\n" not in text


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "sarif", "github"])
def test_a_planted_leak_reaches_no_output_format(leaky, fmt):
    root, config = leaky
    result = run_cli("test", root, "--typeconfig", config, *SEEDS, "--format", fmt)
    assert result.exit_code == 1, result.stdout + result.stderr  # READ and UPDATE fail
    output = result.stdout + result.stderr
    assert_no_secret(output)
    # The leak was there and is masked, not lost: the exception, the handler's printed and
    # logged lines, and the message it returned.
    assert "the API refused key ****" in output
    assert "reading with **** ****" in output
    assert "key=****" in output
    assert "key **** was refused" in output
    assert "1 secret value(s) shorter than 8 characters" in result.stderr


def test_the_handlers_own_output_is_masked_in_invoke(leaky, tmp_path):
    root, config = leaky
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"desiredResourceState": {"Title": "a"}}))
    for fmt in ("text", "json"):
        result = run_cli(
            "invoke", "CREATE", request, "--project", root, "--typeconfig", config, *SEEDS,
            "--format", fmt,
        )  # fmt: skip
        assert result.exit_code == 0, result.stdout + result.stderr
        output = result.stdout + result.stderr
        assert_no_secret(output)
        assert "calling the API with **** ****" in output
        # The configuration is shown as given: its reference, never its value.
        assert "{{resolve:ssm-secure:/acme/api-key}}" in output


def test_a_planted_leak_reaches_no_pytest_report(leaky, tmp_path):
    root, config = leaky
    report = tmp_path / "report.xml"
    seeds = [f"--cfngen-ssm=/acme/api-key={SECRET}", f"--cfngen-secret=acme/stored={STORED}",
             f"--cfngen-secret=acme/pin={SHORT}"]  # fmt: skip
    result = pytest_run(
        "--cfngen", f"--cfngen-typeconfig={config}", *seeds, "-rA", f"--junit-xml={report}",
        str(root), cwd=tmp_path,
    )  # fmt: skip
    assert report.is_file(), result.stdout + result.stderr
    output = result.stdout + result.stderr + report.read_text()
    assert "the API refused key ****" in output, output
    assert "reading with **** ****" in output
    assert_no_secret(output)


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        (f"the pin is {SHORT}.", "the pin is ****."),
        (f"{SHORT}x stays", f"{SHORT}x stays"),  # inside a longer word: not the secret
        (f"json: {json.dumps(SECRET)}", 'json: "****"'),
        (f"repr: {SECRET!r}", "repr: '****'"),
    ],
)
def test_scrubbing_masks_each_spelling_and_short_secrets_only_as_words(text, masked):
    _redact.register(SHORT)
    _redact.register(SECRET)
    try:
        assert _redact.scrub(text) == masked
        assert _redact.short_secrets() == [SHORT]
    finally:
        _redact.forget_all()
