"""`cfngen init --artifact-type hook`: every variant renders a project the official toolchain
accepts, whose code is black-clean, whose schema is clean, and whose unit tests pass."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from cfngen._cli import main
from cfngen._init import _answers
from cfngen._init._scaffold import init_project
from cfngen._kinds.hook._answers import INIT
from cfngen._validate import validate_paths
from tests.conftest import black_formatted

#: The official CLI of this interpreter's environment (the dev extra installs it), found
#: whether or not the venv is activated.

OFFLINE_ENV = {
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}

VARIANTS = {
    "default": {},
    "wildcards-stack-change-set": {
        "targets": ["AWS::S3::Bucket", "AWS::SQS::*", "STACK", "CHANGE_SET"],
        "config_properties": ["Mode", "Limit:integer", "Strict:boolean"],
    },
    "stack-only-pre-create": {"targets": ["STACK"], "invocation_points": "preCreate"},
    "example": {"example": True},
}


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("CFNGEN_HOME", raising=False)
    for name, value in OFFLINE_ENV.items():
        monkeypatch.setenv(name, value)
    return home


def resolve(flags: dict) -> object:
    given = _answers.collect(INIT.questions, flags, {})
    return INIT.resolve(INIT.fold(given))


def make(tmp_path: Path, name: str) -> Path:
    flags = dict(VARIANTS[name])
    if not flags.get("example"):
        flags["type_name"] = "Acme::Guard::BucketHook"
    return init_project(tmp_path / name, resolve(flags), use_git=False).root


@pytest.fixture(scope="module")
def projects(tmp_path_factory) -> dict[str, Path]:
    """Every variant, made once (a private HOME for the template cache)."""
    base = tmp_path_factory.mktemp("hooks")
    saved = dict(os.environ)
    os.environ.update(HOME=str(base), GIT_CONFIG_NOSYSTEM="1", **OFFLINE_ENV)
    os.environ.pop("CFNGEN_HOME", None)
    try:
        return {name: make(base, name) for name in VARIANTS}
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.mark.parametrize("name", VARIANTS)
def test_the_project_has_the_official_layout(projects, name):
    root = projects[name]
    config = json.loads((root / ".rpdk-config").read_text())
    package = config["entrypoint"].split(".")[0]
    assert config["artifact_type"] == "HOOK"
    assert config["entrypoint"] == f"{package}.handlers.hook"
    assert config["testEntrypoint"] == f"{package}.handlers.test_entrypoint"
    schema_file = "-".join(config["typeName"].split("::")).lower() + ".json"
    for relpath in (
        schema_file,
        "hook-role.yaml",
        "template.yml",
        f"src/{package}/handlers.py",
        f"src/{package}/models.py",
        f"src/{package}/cfngen_runtime/hooks.py",
        schema_file.replace(".json", "-configuration.json"),
        "docs/README.md",
    ):
        assert (root / relpath).is_file(), relpath
    assert any((root / "inputs").glob("inputs_1_pre_*.json"))


@pytest.mark.parametrize("name", VARIANTS)
def test_pyyaml_is_packaged_when_a_template_may_arrive_as_yaml(projects, name):
    """stack_template() and change_set() parse YAML templates with PyYAML, which the Lambda
    runtime lacks: a hook with a STACK or CHANGE_SET target packages it, others do not."""
    root = projects[name]
    requirements = (root / "requirements.txt").read_text().splitlines()
    targets = {
        t
        for handler in json.loads(_schema_text(root))["handlers"].values()
        for t in handler["targetNames"]
    }
    wants = bool(targets & {"STACK", "CHANGE_SET"})
    assert any(line.startswith("PyYAML>=") for line in requirements) == wants, requirements


def _schema_text(root: Path) -> str:
    config = json.loads((root / ".rpdk-config").read_text())
    name = "-".join(config["typeName"].split("::")).lower()
    return (root / f"{name}.json").read_text()


@pytest.mark.parametrize("name", VARIANTS)
def test_the_schema_is_clean(projects, name):
    (report,) = validate_paths([projects[name]], strict=True)
    assert report.diagnostics == []


@pytest.mark.parametrize("name", VARIANTS)
def test_the_code_is_black_clean(projects, name):
    root = projects[name]
    for path in [*(root / "src").rglob("*.py"), *(root / "tests").rglob("*.py")]:
        text = path.read_text()
        assert black_formatted(text) == text, path


@pytest.mark.oracle  # pytest runs the project's own unit tests: they are the judge
@pytest.mark.parametrize("name", VARIANTS)
def test_the_unit_tests_pass(projects, name):
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=projects[name],
        capture_output=True,
        text=True,
        env={**os.environ, **OFFLINE_ENV},
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.oracle
@pytest.mark.parametrize("name", VARIANTS)
def test_cfn_validate_accepts_it(projects, name, oracle_tool):
    result = subprocess.run(
        [oracle_tool("cfn"), "validate"],
        cwd=projects[name],
        capture_output=True,
        text=True,
        env={**os.environ, **OFFLINE_ENV},
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


class _NoTypes(http.server.BaseHTTPRequestHandler):
    """CloudFormation's ListTypes, answered with no types (the official submit lists types to
    expand wildcard targets, even in a dry run)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = (
            b'<ListTypesResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/">'
            b"<ListTypesResult><TypeSummaries/></ListTypesResult>"
            b"<ResponseMetadata><RequestId>cfngen</RequestId></ResponseMetadata>"
            b"</ListTypesResponse>"
        )
        self.send_response(200)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["wildcards-stack-change-set", "example"])
def test_cfn_submit_dry_run_packages_it(projects, name, oracle_tool):
    """The official tool lists the types a wildcard may match through a local endpoint (it
    does so even in a dry run); every explicit target has its schema in target-schemas/
    (cfngen generate wrote it), so nothing else needs AWS."""
    root = projects[name]
    server = http.server.HTTPServer(("127.0.0.1", 0), _NoTypes)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        result = subprocess.run(
            [
                oracle_tool("cfn"),
                "submit",
                "--dry-run",
                "--no-docker",
                "--endpoint-url",
                f"http://127.0.0.1:{server.server_port}",
            ],
            cwd=root,
            capture_output=True,
            text=True,
            env={**os.environ, **OFFLINE_ENV},
            check=False,
            timeout=600,
        )
    finally:
        server.shutdown()
    assert result.returncode == 0, result.stdout + result.stderr
    import zipfile

    (package,) = root.glob("*.zip")
    names = zipfile.ZipFile(package).namelist()
    assert "target-schemas/aws-s3-bucket.json" in names
    assert any(n.endswith("/handlers.py") for n in names)


# --------------------------------------------------------------------------- answers


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--target", "AWS::S3::*?"], "does not allow '*?'"),
        (["--target", "S3Bucket"], "is not a resource type name"),
        (["--invocation-points", "preCreate,postCreate"], "unknown invocation point"),
        (["--config-property", "CloudFormationMode"], "invalid setting name"),
        (["--config-property", "Mode:date"], "unknown type 'date'"),
        (["--tags"], "tagging does not apply to this kind of extension"),
        (["--handlers", "create"], "handlers does not apply to this kind of extension"),
    ],
)
def test_bad_hook_answers_are_one_message(home, tmp_path, capsys, args, message):
    dest = tmp_path / "hook"
    argv = ["init", "--no-input", "--artifact-type", "hook", "-t", "Acme::Guard::Hook"]
    assert main([*argv, *args, str(dest)]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert not dest.exists()


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("aws::s3::bucket", "did you mean 'AWS::S3::Bucket'"),
        ("AWS::S3::Bukket", "did you mean 'AWS::S3::Bucket'"),
        ("AWS::Nope::*", "matches none of the"),
    ],
)
def test_a_doubtful_target_is_made_with_the_warning_validate_gives(
    home, tmp_path, capsys, target, words
):
    """The registry accepts these names, so init makes the project, and says what
    `cfngen validate` says about them."""
    argv = ["init", "--no-input", "--no-git", "--artifact-type", "hook", "-t", "Acme::Guard::Hook"]
    assert main([*argv, "--target", target, str(tmp_path / "hook")]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if words in line]
    assert warnings, f"no warning naming {words!r}"
    (report,) = validate_paths([tmp_path / "hook"])
    assert [d.message for d in report.diagnostics if d.message in warnings[0]]


def test_targets_given_to_a_resource_type_are_refused(home, tmp_path, capsys):
    argv = ["init", "--no-input", "-t", "Acme::Svc::Widget", "--target", "AWS::S3::Bucket"]
    assert main([*argv, str(tmp_path / "w")]) == 2
    assert "targets does not apply to this kind of extension" in capsys.readouterr().err


def test_the_example_fixes_its_targets(home, tmp_path, capsys):
    argv = ["init", "--no-input", "--artifact-type", "hook", "--example"]
    assert main([*argv, "--target", "AWS::SQS::Queue", str(tmp_path / "e")]) == 2
    assert "the example is made with targets=AWS::S3::Bucket,STACK" in capsys.readouterr().err


def test_the_official_spellings_of_the_artifact_type_work(home, tmp_path):
    from cfngen._kind import lookup

    for spelling in ("HOOK", "Hook", "hook"):
        kind = lookup(spelling)
        assert kind.name == "hook" and kind.artifact_types == ("HOOK",)


def test_the_starter_inputs_name_a_free_text_property_of_each_target(projects):
    root = projects["wildcards-stack-change-set"]
    inputs = json.loads((root / "inputs" / "inputs_1_pre_create.json").read_text())
    assert set(inputs) == {"AWS::S3::Bucket", "AWS::SQS::Queue", "STACK", "CHANGE_SET"}
    assert inputs["AWS::S3::Bucket"]["resourceProperties"] == {
        "BucketNamePrefix": "cfngen-contract-test"
    }
    invalid = json.loads((root / "inputs" / "inputs_1_invalid_pre_create.json").read_text())
    assert invalid["AWS::SQS::Queue"]["resourceProperties"]["QueueName"] == ""


@pytest.mark.parametrize("name", VARIANTS)
def test_cfngen_test_passes_on_the_project_init_makes(projects, name, monkeypatch):
    """The starter rule with its inputs, STACK and CHANGE_SET through the payload URL, and the
    example: every test passes or is skipped with a reason, and some test ran."""
    from cfngen._kinds.hook._run import no_test_ran, run_hook_tests

    for key, value in OFFLINE_ENV.items():
        monkeypatch.setenv(key, value)
    result = run_hook_tests(projects[name])
    failed = [t for t in result.tests if t.outcome == "failed"]
    assert not failed, failed[0].message
    assert not no_test_ran(result)
    if name == "example":  # (its speed: docs/benchmarks.md)
        assert result.count("skipped") == 2  # no wildcard: no unsupported-target test


def test_the_example_passes_cfngen_test_offline_from_the_command_line(projects):
    result = subprocess.run(
        [sys.executable, "-m", "cfngen", "test", str(projects["example"])],
        capture_output=True,
        text=True,
        env={**os.environ, **OFFLINE_ENV},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "18 passed, 0 failed, 2 skipped" in result.stdout  # with its permission tests


def test_a_hook_project_upgrades_through_the_template_cache(home, tmp_path, capsys):
    """Made with git, a hook project is on the live hook template: `cfngen upgrade` finds
    nothing to do, and `--recopy` re-renders it keeping the schema and inputs (the user's)."""
    from tests.test_init_support import commit_all, git

    dest = tmp_path / "upgradable"
    argv = ["init", "--no-input", "--artifact-type", "hook", "-t", "Acme::Guard::Hook"]
    assert main([*argv, str(dest)]) == 0
    answers = (dest / ".copier-answers.yml").read_text()
    assert "_src_path: ~/.cfngen/templates/hook" in answers
    assert main(["upgrade", str(dest)]) == 0
    assert "Already on template" in capsys.readouterr().out
    schema = dest / "acme-guard-hook.json"
    schema.write_text(
        schema.read_text().replace('"permissions": []', '"permissions": ["s3:Get*"]', 1)
    )
    handlers = dest / "src" / "acme_guard_hook" / "handlers.py"
    handlers.write_text(handlers.read_text() + "\n# MY EDIT\n")
    commit_all(dest, "my edits")
    assert main(["upgrade", "--recopy", str(dest)]) == 0
    assert "s3:Get*" in schema.read_text()
    assert "# MY EDIT" not in handlers.read_text()
    assert git(dest, "status", "--porcelain").strip()  # the recopy is left to review
