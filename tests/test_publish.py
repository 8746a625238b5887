"""`cfngen publish` against a stateful fake registry (tests/_fake_registry.py) with S3, STS, EC2,
stacks and stack sets from moto: the calls in order per region, regional buckets, version
numbers, publisher checks, resuming failed regions, version housekeeping, the plan, and the
StackSets templates of all three kinds. No test touches a real account."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from cfngen._errors import CfngenError
from cfngen._package import Clock, SubmitOptions, build_package
from cfngen._publish import PublishOptions, publish
from cfngen._publish._stackset import deploy_stack_set, stack_set_template
from tests._fake_registry import ACCOUNT, FakeRegistry, Version
from tests.test_init_support import made_once

REGIONS = ("us-east-1", "eu-west-1", "ap-southeast-2")
NAME = "Acme::Svc::Widget"
ROLE = "arn:aws:iam::123456789012:role/widget-role"


@pytest.fixture(autouse=True)
def hermetic(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "home"))
    for name, value in {
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": str(tmp_path / "no-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no-credentials"),
    }.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def build(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path):
    made = made_once(tmp_path_factory, "widget", "--type-name", NAME)
    root = tmp_path / "widget"
    shutil.copytree(made, root)
    (root / "requirements.txt").write_text("# nothing to install in these tests\n")
    return build_package(root, write=False)


@pytest.fixture
def aws():
    """moto for everything but the registry, which the fake answers; a session with both."""
    with mock_aws():
        registry = FakeRegistry()
        session = boto3.Session(region_name="us-east-1")
        registry.install(session)
        yield registry, session


NO_WAIT = Clock(now=lambda: 0.0, sleep=lambda seconds: None)


def run(build, session, *, confirm=lambda doomed: False, **options):
    options.setdefault("regions", REGIONS)
    options.setdefault("submit", SubmitOptions(role_arn=ROLE))
    return publish(build, session, PublishOptions(**options), confirm=confirm, clock=NO_WAIT)


def calls(registry, region, *, changing=True):
    """The registry operations of one region, in order (reads left out when `changing`)."""
    reads = ("DescribeType", "ListTypeVersions", "DescribePublisher", "DescribeTypeRegistration")
    return [op for r, op, _ in registry.calls if r == region and not (changing and op in reads)]


def test_a_private_publish_in_three_regions_registers_from_regional_buckets(build, aws):
    registry, session = aws
    report = run(build, session)
    assert [o.ok for o in report.outcomes] == [True, True, True]
    for region in REGIONS:
        assert calls(registry, region) == ["RegisterType", "SetTypeDefaultVersion"]
        (register,) = [p for r, op, p in registry.calls if r == region and op == "RegisterType"]
        bucket = f"cfngen-publish-{ACCOUNT}-{region}"
        assert register["SchemaHandlerPackage"].startswith(f"s3://{bucket}/")
        assert register["ExecutionRoleArn"] == ROLE
        location = boto3.client("s3").get_bucket_location(Bucket=bucket)["LocationConstraint"]
        assert (location or "us-east-1") == region


def test_the_first_public_publish_sends_no_version_and_the_second_sends_the_one_given(build, aws):
    registry, session = aws
    first = run(build, session, public=True)
    assert all(o.ok and o.public_version == "1.0.0" for o in first.outcomes)
    for region in REGIONS:
        assert calls(registry, region) == [
            "RegisterType", "SetTypeDefaultVersion", "TestType", "PublishType",
        ]  # fmt: skip
        (sent,) = [p for r, op, p in registry.calls if r == region and op == "PublishType"]
        assert "PublicVersionNumber" not in sent
    registry.calls.clear()
    second = run(build, session, public=True, version="1.1.0")
    assert all(o.ok for o in second.outcomes), second.outcomes
    sent = [p for _, op, p in registry.calls if op == "PublishType"]
    assert [p["PublicVersionNumber"] for p in sent] == ["1.1.0"] * 3


def test_without_a_version_the_schema_change_decides_the_next_one(build, aws):
    registry, session = aws
    run(build, session, public=True)
    schema = build.project.schema_path
    data = json.loads(schema.read_text())
    data["properties"]["Color"] = {"type": "string"}  # a new optional property: minor
    schema.write_text(json.dumps(data, indent=4))
    root = build.project.root
    subprocess.run(
        [sys.executable, "-m", "cfngen", "generate"], cwd=root, check=True, capture_output=True
    )
    registry.calls.clear()
    report = run(build_package(root, write=False), session, public=True)
    assert report.bump == "minor"
    assert {o.public_version for o in report.outcomes} == {"1.1.0"}


def test_an_unverified_publisher_fails_its_region_by_name_and_a_rerun_resumes_only_it(build, aws):
    registry, session = aws
    registry.region("eu-west-1").publisher = "unverified"
    report = run(build, session, public=True)
    assert [p.region for p in report.refused] == ["eu-west-1"]
    assert "not verified" in report.refused[0].refusal
    assert not [op for r, op, _ in registry.calls if r == "eu-west-1" and op == "RegisterType"]
    registry.region("eu-west-1").publisher = "verified"
    registry.calls.clear()
    again = run(build, session, public=True)
    assert sorted(again.resumed) == ["ap-southeast-2", "us-east-1"]
    assert [o.region for o in again.outcomes] == ["eu-west-1"] and again.outcomes[0].ok
    assert {r for r, op, _ in registry.calls if op == "RegisterType"} == {"eu-west-1"}
    state = build.project.root / ".cfngen-publish"
    assert (state / ".gitignore").read_text().splitlines()[-1] == "*"


def test_a_failed_test_type_fails_that_region_with_the_registrys_reason(build, aws):
    registry, session = aws
    registry.region("ap-southeast-2").tests_fail = "contract_create_read failed"
    report = run(build, session, public=True)
    (failed,) = report.failed
    assert failed.region == "ap-southeast-2" and "contract_create_read failed" in failed.reason
    assert not [op for r, op, _ in registry.calls if r == "ap-southeast-2" and op == "PublishType"]


def test_no_publisher_is_registered_without_accept_terms(build, aws):
    registry, session = aws
    registry.region("us-east-1").publisher = "none"
    refused = run(build, session, public=True, regions=("us-east-1",))
    assert "--accept-terms" in refused.refused[0].refusal
    assert "RegisterPublisher" not in calls(registry, "us-east-1")
    accepted = run(build, session, public=True, regions=("us-east-1",), accept_terms=True)
    assert accepted.outcomes[0].ok
    assert "RegisterPublisher" in calls(registry, "us-east-1")


def test_a_region_published_first_while_others_are_later_is_refused_unless_allowed(build, aws):
    _, session = aws
    run(build, session, public=True, regions=("us-east-1",))
    run(build, session, public=True, regions=("us-east-1",), version="1.2.0")
    report = run(build, session, public=True, regions=("us-east-1", "eu-west-1"), version="1.3.0")
    assert [p.region for p in report.refused] == ["eu-west-1"]
    assert (
        "1.2.0" in report.refused[0].refusal and "--allow-version-skew" in report.refused[0].refusal
    )
    allowed = run(
        build,
        session,
        public=True,
        regions=("eu-west-1",),
        version="1.3.0",
        allow_version_skew=True,
    )
    assert allowed.outcomes[0].ok and allowed.outcomes[0].public_version == "1.0.0"


def _preregister(registry, region: str, count: int) -> None:
    registry.region(region).types[NAME] = extension = __import__(
        "tests._fake_registry", fromlist=["Extension"]
    ).Extension("RESOURCE", NAME)
    for n in range(1, count + 1):
        arn = f"arn:aws:cloudformation:{region}:{ACCOUNT}:type/resource/Acme-Svc-Widget/{n:08d}"
        extension.versions.append(Version(arn, n, "s3://x/y.zip", default=n == 2))


def test_keep_versions_deregisters_the_oldest_non_default_ones_once_confirmed(build, aws):
    registry, session = aws
    _preregister(registry, "us-east-1", 6)
    with pytest.raises(CfngenError, match="cannot be undone"):
        run(build, session, regions=("us-east-1",), keep_versions=5)
    assert "DeregisterType" not in calls(registry, "us-east-1")
    asked = []
    report = run(
        build,
        session,
        regions=("us-east-1",),
        keep_versions=5,
        confirm=lambda doomed: asked.append(doomed) or True,
    )
    assert report.outcomes[0].ok
    gone = [p["Arn"][-8:] for _, op, p in registry.calls if op == "DeregisterType"]
    assert gone == ["00000001", "00000003"] == [arn[-8:] for arn in asked[0]]  # 2 is the default
    assert len(registry.region("us-east-1").types[NAME].versions) == 5


def test_the_plan_changes_nothing(build, aws):
    registry, session = aws
    _preregister(registry, "us-east-1", 6)
    report = run(build, session, public=True, keep_versions=5, plan_only=True)
    assert report.outcomes == []
    assert {op for _, op, _ in registry.calls} <= {
        "DescribeType",
        "ListTypeVersions",
        "DescribePublisher",
    }
    assert boto3.client("s3").list_buckets()["Buckets"] == []
    steps = report.plans[0].steps(public=True, configure=False, accept_terms=False)
    assert steps[:2] == [f"deregister {p}" for p in report.plans[0].deregister]
    assert not (build.project.root / ".cfngen-publish").exists()


def test_an_unknown_region_is_a_usage_error(build, aws):
    _, session = aws
    with pytest.raises(CfngenError, match="no region 'mars-east-1'"):
        run(build, session, regions=("mars-east-1",))


def test_all_regions_are_the_enabled_ones_cloudformation_serves(build, aws):
    _, session = aws
    report = run(build, session, regions=None, plan_only=True)
    served = set(session.get_available_regions("cloudformation"))
    assert {p.region for p in report.plans} <= served and len(report.plans) >= 10


# --- StackSets -------------------------------------------------------------------------------


#: moto deploys the stack set and its instances but skips the registry's own resource types
#: (it says so in a warning); linting with cfn-lint's bundled schemas is the check of those.
@pytest.mark.filterwarnings("ignore:Tried to parse AWS..CloudFormation")
@pytest.mark.parametrize("kind", ["RESOURCE", "HOOK", "MODULE"])
@pytest.mark.parametrize("public", [False, True], ids=["private", "public"])
def test_the_stack_set_template_is_lint_clean_and_deploys(kind, public):
    from cfnlint.api import lint

    name = "Acme::Svc::Widget::MODULE" if kind == "MODULE" else NAME
    text = stack_set_template(kind, name, public=public, version="1.1.0" if public else None)
    errors = [m for m in lint(text) if str(m.rule.id).startswith("E")]
    assert errors == [], [str(m) for m in errors]
    with mock_aws():
        session = boto3.Session(region_name="us-east-1")
        operation = deploy_stack_set(
            session,
            "widget",
            text,
            parameters={"PackageBucketPrefix": "cfngen-publish-123", "PackageKey": "w.zip"},
            account=ACCOUNT,
            regions=list(REGIONS),
            region="us-east-1",
        )
        cfn = session.client("cloudformation")
        assert operation
        instances = cfn.list_stack_instances(StackSetName="widget")["Summaries"]
        assert sorted(i["Region"] for i in instances) == sorted(REGIONS)


# --- the command line --------------------------------------------------------------------------


@pytest.fixture
def cli(aws, monkeypatch):
    """`cfngen publish` in-process, its boto3 sessions answered by the fake and moto."""
    registry, _ = aws
    real = boto3.Session

    def session(*args, **kwargs):
        made = real(*args, **kwargs)
        registry.install(made)
        return made

    monkeypatch.setattr(boto3, "Session", session)

    def run_cli(*args: str) -> int:
        from cfngen._cli import main

        return main(["publish", *args])

    return registry, run_cli


def test_the_cli_names_each_failed_region_and_exits_1(build, cli, capsys):
    registry, run_cli = cli
    registry.region("eu-west-1").tests_fail = "contract_delete_read failed"
    root = str(build.project.root)
    code = run_cli(root, "--regions", "us-east-1,eu-west-1", "--public", "--role-arn", ROLE)
    out = capsys.readouterr().out
    assert code == 1
    lines = dict(line.split(None, 1) for line in out.splitlines())
    assert lines["us-east-1"].startswith("ok") and "public 1.0.0" in lines["us-east-1"]
    assert lines["eu-west-1"].startswith("failed") and "contract_delete_read" in lines["eu-west-1"]


def test_the_cli_plan_lists_the_steps_and_needs_yes_for_deregistration(build, cli, capsys):
    registry, run_cli = cli
    _preregister(registry, "us-east-1", 6)
    root = str(build.project.root)
    assert run_cli(root, "--regions", "us-east-1", "--keep-versions", "5", "--plan") == 0
    out = capsys.readouterr().out
    assert "deregister arn:" in out and "RegisterType" in out
    assert "DeregisterType" not in [op for _, op, _ in registry.calls]
    # Not on a terminal and no --yes: refused before anything changes.
    assert run_cli(root, "--regions", "us-east-1", "--keep-versions", "5", "--role-arn", ROLE) == 2
    assert "--yes" in capsys.readouterr().err
    assert (
        run_cli(root, "--regions", "us-east-1", "--keep-versions", "5", "--yes", "--role-arn", ROLE)
        == 0
    )


def test_the_cli_json_document_says_each_regions_status(build, cli, capsys):
    registry, run_cli = cli
    registry.region("eu-west-1").publisher = "unverified"
    root = str(build.project.root)
    argv = [root, "--regions", "us-east-1,eu-west-1", "--public", "--role-arn", ROLE]
    assert run_cli(*argv, "--format", "json") == 1
    doc = json.loads(capsys.readouterr().out)
    by_region = {r["region"]: r for r in doc["regions"]}
    assert by_region["us-east-1"]["status"] == "ok"
    assert by_region["us-east-1"]["public_version"] == "1.0.0"
    assert by_region["eu-west-1"]["status"] == "refused"
    assert "not verified" in by_region["eu-west-1"]["reason"]
