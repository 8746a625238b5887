"""Asking before `cfngen test` creates anything that outlives it: at an endpoint off this
machine (LocalStack in CI at http://localstack:4566 included) or in AWS (`--profile`,
`--role-arn`). Asked once, on a terminal; without one, refused unless `--yes`."""

from __future__ import annotations

import argparse
import sys

from cfngen._errors import CfngenError


def confirm_target(args: argparse.Namespace) -> None:
    """Return when the run may go on; raise CfngenError (exit 2) when it may not."""
    from cfngen._contract._network import network_policy

    policy = network_policy(
        profile=getattr(args, "profile", None),
        role_arn=getattr(args, "role_arn", None),
        endpoint_url=getattr(args, "endpoint_url", None),
    )
    if not policy.aws_may_leave or getattr(args, "yes", False):
        return
    where = getattr(args, "endpoint_url", None) or "AWS"
    what = (
        f"cfngen test calls the handlers against {where} ({policy.aws_reason}): they create, "
        "update and delete real resources there (each test deletes what it made)"
    )
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise CfngenError(
            f"{what}; refusing without a terminal to ask on",
            "pass --yes to go ahead (in CI), or point --endpoint-url at a loopback endpoint",
        )
    sys.stderr.write(f"{what}.\nGo ahead? [y/N] ")
    sys.stderr.flush()
    answer = sys.stdin.readline().strip().lower()
    if answer not in ("y", "yes"):
        raise CfngenError("nothing was run: not confirmed", "answer y, or pass --yes")
