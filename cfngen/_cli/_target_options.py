"""The options of `cfngen test` and `cfngen invoke` that say where the handlers' AWS calls go
(docs/endpoints.md): a moto server, an endpoint, AWS with a profile or a role."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from cfngen._cli._values import delay, endpoint_url


def add_target_options(p: argparse.ArgumentParser, *, test: bool) -> None:
    """Where the handlers' AWS calls go (`invoke`, `test`): moto in this process by default.
    `test`: add `--max-delay` (`invoke` has its own) and `--keep`."""
    from cfngen._contract import DEFAULT_MAX_DELAY

    group = p.add_argument_group("where the handlers' AWS calls go (default: moto, offline)")
    where = group.add_mutually_exclusive_group()
    where.add_argument(
        "--endpoint-url",
        type=endpoint_url,
        default=None,
        metavar="URL",
        help="point every AWS client the handlers make at URL (LocalStack, a moto server, a "
        "proxy), with fake credentials; time is real. A loopback URL keeps everything on this "
        "machine; any other lets the AWS calls (only them) leave it",
    )
    where.add_argument(
        "--moto-server",
        action="store_true",
        help="start a moto server on 127.0.0.1 and point every AWS client at it, over HTTP "
        "(simulated time, an empty account per test): the check that the handlers work "
        "against an endpoint; discarded afterwards",
    )
    if test:
        group.add_argument(
            "--profile",
            default=None,
            metavar="PROFILE",
            help="call AWS (or --endpoint-url) with this profile's credentials instead of "
            "moto; asks before anything is created (see --yes)",
        )
        group.add_argument(
            "--yes",
            action="store_true",
            help="do not ask before creating resources at an endpoint off this machine or in "
            "AWS (without a terminal, cfngen refuses unless given)",
        )
    group.add_argument(
        "--role-arn",
        default=None,
        metavar="ARN",
        help="run the handlers with this role's credentials, assumed through STS with the "
        "profile's (or the default ones); cfngen never assumes the project's execution role "
        "by itself",
    )
    if test:
        group.add_argument(
            "--setup",
            type=Path,
            default=None,
            metavar="TEMPLATE",
            help="deploy TEMPLATE as a stack to the endpoint before the tests and delete it "
            "after them; its exports fill {{NAME}} placeholders in inputs (then the target's "
            "ListExports; --export and --exports win over both)",
        )
        group.add_argument(
            "--keep",
            action="store_true",
            help="leave what the tests create on the endpoint (named at the end); without it "
            "each test deletes what it made through the delete handler, and the run deletes "
            "what interrupted tests left",
        )
        group.add_argument(
            "--max-delay",
            type=delay,
            default=DEFAULT_MAX_DELAY,
            metavar="S",
            help="against --endpoint-url (real time): sleep at most S seconds of "
            f"callbackDelaySeconds between calls (default: {DEFAULT_MAX_DELAY:g}); against moto "
            "the wait is simulated and never slept",
        )


def target_options(args: argparse.Namespace) -> dict[str, Any]:
    """The target options as `invoke` and `run_contract_tests` take them."""
    chosen = {
        "endpoint_url": getattr(args, "endpoint_url", None),
        "moto_server": getattr(args, "moto_server", False),
    }
    for key in ("setup", "role_arn"):
        if getattr(args, key, None) is not None:
            chosen[key] = getattr(args, key)
    if getattr(args, "profile", None) is not None and hasattr(args, "yes"):
        chosen["profile"] = args.profile  # test's (invoke passes its own)
    return chosen
