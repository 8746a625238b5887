"""AWS clients for `cfngen submit`, and AWS errors turned into sentences.

Credentials and region come the usual way (boto3's chain: --profile, the environment, the
config files); they are checked before anything is built or uploaded.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cfngen._errors import CfngenError, ExitCode

#: Error codes that mean the credentials, not the request, are wrong.
_CREDENTIAL_CODES = frozenset(
    {
        "ExpiredToken",
        "ExpiredTokenException",
        "InvalidClientTokenId",
        "UnrecognizedClientException",
        "SignatureDoesNotMatch",
        "InvalidAccessKeyId",
    }
)


@dataclass(frozen=True)
class Clients:
    cloudformation: Any
    s3: Any
    region: str
    #: The boto3 session they came from (publish makes clients of other regions with it).
    session: Any = None


def make_clients(*, region: str | None, profile: str | None, endpoint_url: str | None) -> Clients:
    from cfngen._extras import require

    require("build", "`cfngen submit`")
    import boto3
    import botocore.config
    import botocore.exceptions

    try:
        session = boto3.Session(profile_name=profile, region_name=region)
    except botocore.exceptions.ProfileNotFound:
        raise CfngenError(
            f"no AWS profile named {profile!r}",
            "check the name in ~/.aws/config, or leave out --profile",
        ) from None
    if not session.region_name:
        raise CfngenError(
            "no AWS region to register the extension in",
            "pass --region, or set AWS_REGION or a region in your AWS profile",
        )
    if session.get_credentials() is None:
        raise CfngenError(
            "no AWS credentials found",
            "pass --profile, set AWS_PROFILE or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
            "or run `aws configure`",
        )
    config = botocore.config.Config(retries={"mode": "standard"})
    return Clients(
        cloudformation=session.client("cloudformation", endpoint_url=endpoint_url, config=config),
        s3=session.client("s3", config=config),
        region=session.region_name,
        session=session,
    )


def aws_error(exc: Exception, doing: str) -> CfngenError:
    """One sentence for an error from an AWS call made while `doing` (a verb phrase)."""
    import botocore.exceptions

    if isinstance(exc, botocore.exceptions.ClientError):
        error = exc.response.get("Error", {})
        code = str(error.get("Code", "Unknown"))
        message = str(error.get("Message", "")).rstrip(".")
        if code in _CREDENTIAL_CODES:
            return CfngenError(
                f"AWS refused the credentials while {doing}: {message} ({code})",
                "refresh them, or pass another --profile",
            )
        hint = "check the permissions of the credentials" if "AccessDenied" in code else None
        return CfngenError(
            f"AWS refused {doing}: {message} ({code})", hint, exit_code=ExitCode.FAILED
        )
    if isinstance(exc, botocore.exceptions.NoCredentialsError):
        return CfngenError(f"no AWS credentials for {doing}", "pass --profile or set them")
    if isinstance(exc, botocore.exceptions.EndpointConnectionError):
        return CfngenError(
            f"cannot reach AWS while {doing}: {exc}",
            "check the network, --region and --endpoint-url",
        )
    if isinstance(exc, botocore.exceptions.BotoCoreError):
        return CfngenError(f"{doing} failed: {exc}", exit_code=ExitCode.FAILED)
    raise exc


def aws_call(doing: str, call: Callable[..., Any], **kwargs: Any) -> Any:
    """`call(**kwargs)`, with an AWS error raised as a CfngenError saying what was being done."""
    import botocore.exceptions

    try:
        return call(**kwargs)
    except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError) as exc:
        raise aws_error(exc, doing) from None


@dataclass(frozen=True)
class Clock:
    """Time for the waits, passed in so that tests run them without sleeping."""

    now: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep


def duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds} s"
    return f"{seconds // 60} min {seconds % 60:02d} s"
