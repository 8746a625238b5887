"""One region of `cfngen publish`: upload, register and wait, make it the default, configure,
and for a public extension test and publish it. Each region runs in a thread of its own with
its own clients; a failure stops that region only, and says which step and why."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cfngen._errors import CfngenError, ExitCode
from cfngen._package._aws import Clock, aws_call, duration
from cfngen._package._submit import Say, SubmitOptions, submit_package
from cfngen._publish._plan import RegionPlan

#: How often TestType's result is read (it takes minutes).
TEST_POLL = 15.0


@dataclass(frozen=True)
class RegionOutcome:
    region: str
    ok: bool
    version_arn: str = ""
    public_arn: str = ""
    public_version: str = ""
    #: For a failure: the step and CloudFormation's reason.
    reason: str = ""


def bucket_name(account: str, region: str) -> str:
    """The package bucket of a region: the registry reads packages only from its own region."""
    return f"cfngen-publish-{account}-{region}"


@dataclass(frozen=True)
class Choices:
    """What every region of one publish is run with."""

    account: str
    public: bool
    configuration: str | None
    accept_terms: bool
    submit: SubmitOptions
    clock: Clock


def run_region(
    session: Any, plan: RegionPlan, build: Any, choices: Choices, say: Say
) -> RegionOutcome:
    region = plan.region

    def said(message: str) -> None:
        say(f"{region}: {message}")

    try:
        return _run(session, plan, build, choices, said)
    except CfngenError as exc:
        said(f"failed: {exc.message}")
        return RegionOutcome(region, False, reason=exc.message)


def _run(session: Any, plan: RegionPlan, build: Any, choices: Choices, say: Say) -> RegionOutcome:
    from cfngen._package._aws import Clients

    region = plan.region
    cfn = session.client("cloudformation", region_name=region)
    s3 = session.client("s3", region_name=region)
    for arn in plan.deregister:
        aws_call(f"deregistering {arn}", cfn.deregister_type, Arn=arn)
        say(f"deregistered {arn}")
    bucket = bucket_name(choices.account, region)
    ensure_bucket(s3, bucket, region)
    options = SubmitOptions(
        role_arn=choices.submit.role_arn,
        use_role=choices.submit.use_role,
        set_default=True,
        bucket=bucket,
        log_role_arn=choices.submit.log_role_arn,
        timeout=choices.submit.timeout,
    )
    registered = submit_package(
        build,
        Clients(cfn, s3, region),
        options,
        configuration=choices.configuration,
        say=say,
        clock=choices.clock,
    )
    if not choices.public:
        return RegionOutcome(region, True, registered.type_version_arn)
    if plan.publisher == "none" and choices.accept_terms:
        aws_call(
            "registering as a publisher",
            cfn.register_publisher,
            AcceptTermsAndConditions=True,
        )
        say("registered as a publisher (terms accepted with --accept-terms)")
    _test(
        cfn,
        registered.type_version_arn,
        say=say,
        clock=choices.clock,
        timeout=choices.submit.timeout,
    )
    request: dict[str, Any] = {"Arn": registered.type_arn}
    if plan.version is not None:
        request["PublicVersionNumber"] = plan.version
    published = aws_call("publishing", cfn.publish_type, **request)
    public_arn = str(published.get("PublicTypeArn", ""))
    version = plan.version or "1.0.0"
    say(f"published {public_arn} (version {version})")
    return RegionOutcome(region, True, registered.type_version_arn, public_arn, version)


def ensure_bucket(s3: Any, bucket: str, region: str) -> None:
    import botocore.exceptions

    try:
        s3.head_bucket(Bucket=bucket)
        return
    except botocore.exceptions.ClientError:
        pass
    where = (
        {}
        if region == "us-east-1"
        else {"CreateBucketConfiguration": {"LocationConstraint": region}}
    )
    aws_call(f"creating the bucket {bucket}", s3.create_bucket, Bucket=bucket, **where)


def _test(cfn: Any, version_arn: str, *, say: Say, clock: Clock, timeout: float) -> None:
    """TestType, then wait for its verdict (the registry runs the contract tests itself)."""
    aws_call("starting the type's tests", cfn.test_type, Arn=version_arn)
    say("TestType started; the registry runs the contract tests")
    start = clock.now()
    while True:
        described = aws_call("reading the tests' status", cfn.describe_type, Arn=version_arn)
        status = described.get("TypeTestsStatus")
        if status == "PASSED":
            say(f"TestType passed after {duration(clock.now() - start)}")
            return
        if status == "FAILED":
            reason = str(described.get("TypeTestsStatusDescription") or "no reason given")
            raise CfngenError(
                f"TestType failed: {reason.rstrip('.')}",
                "run `cfngen test`, fix what fails, and publish again",
                exit_code=ExitCode.FAILED,
            )
        if clock.now() - start >= timeout:
            raise CfngenError(
                f"TestType still {status} after {duration(timeout)}",
                "wait longer with --timeout, or see the status with DescribeType",
                exit_code=ExitCode.FAILED,
            )
        clock.sleep(TEST_POLL)
