"""The credentials handlers run with against AWS: a profile's, or those of a role the user
names (`--role-arn`), assumed with the profile's (or the default chain's) through STS.

cfngen never assumes the project's execution role (resource-role.yaml) by itself: that role
trusts only CloudFormation, and a role the user passes is one they chose to trust for this.
The secret parts are registered with the scrubber (cfngen/_redact.py) as soon as they are
known, so no output shows them.
"""

from __future__ import annotations

from typing import Any

from cfngen import _redact

#: How the assumed session is named in CloudTrail.
SESSION_NAME = "cfngen-test"


def assumed(sts: Any, role_arn: str) -> tuple[tuple[str, str, str], str]:
    """(access key, secret key, session token) of `role_arn` assumed with `sts` (a client),
    and the role's account."""
    answer = sts.assume_role(RoleArn=role_arn, RoleSessionName=SESSION_NAME)
    found = answer["Credentials"]
    keys = (str(found["AccessKeyId"]), str(found["SecretAccessKey"]), str(found["SessionToken"]))
    secret(keys[1], keys[2])
    user = str(answer.get("AssumedRoleUser", {}).get("Arn") or role_arn)
    parts = user.split(":")
    return keys, parts[4] if len(parts) > 4 and parts[4] else ""


def secret(*values: str | None) -> None:
    """Mask these in every output from now on."""
    for value in values:
        if value:
            _redact.register(value)
