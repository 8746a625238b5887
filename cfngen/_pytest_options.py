"""`pytest --cfngen`'s options (declared in the plugin's pytest_addoption) and how a session's
values become what `run_contract_tests` takes: the same options as `cfngen test`'s, named
`--cfngen-...`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("cfngen", "CloudFormation extension contract tests (cfngen)")
    group.addoption(
        "--cfngen",
        action="store_true",
        default=None,
        help="collect the contract tests of every cfngen/cfn project (.rpdk-config) below "
        "the root, one item per test",
    )
    group.addoption(
        "--cfngen-region",
        default=None,
        metavar="REGION",
        help="the region the handlers see (default: us-east-1)",
    )
    group.addoption(
        "--cfngen-typeconfig",
        default=None,
        metavar="FILE",
        help="the type configuration the handlers get (as `cfngen test --typeconfig`; "
        "default: .rpdk-config contractSettings, else stand-ins for required properties)",
    )
    group.addoption(
        "--cfngen-ssm",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an SSM parameter in the handlers' offline AWS (as `cfngen test --ssm`)",
    )
    group.addoption(
        "--cfngen-secret",
        action="append",
        default=[],
        metavar="ID=VALUE",
        help="a Secrets Manager secret in the handlers' offline AWS (as `cfngen test --secret`)",
    )
    group.addoption(
        "--cfngen-allow-network",
        action="store_true",
        default=False,
        help="let the handlers' own connections leave this machine (AWS calls still go to "
        "moto); without it each fails naming its host",
    )
    _add_target_options(group)
    parser.addini(
        "cfngen", "collect cfngen contract tests (as --cfngen)", type="bool", default=False
    )


def _add_target_options(group: pytest.OptionGroup) -> None:
    """Where the handlers' AWS calls go, as `cfngen test`'s options of the same names say."""
    group.addoption(
        "--cfngen-moto-server",
        action="store_true",
        default=False,
        help="AWS calls go to a moto server cfngen starts on 127.0.0.1 (as `cfngen test "
        "--moto-server`)",
    )
    group.addoption(
        "--cfngen-endpoint-url",
        default=None,
        metavar="URL",
        help="AWS calls go to URL, real time (as `cfngen test --endpoint-url`)",
    )
    group.addoption(
        "--cfngen-profile",
        default=None,
        metavar="PROFILE",
        help="AWS calls go to AWS with this profile's credentials (as `cfngen test --profile`)",
    )
    group.addoption(
        "--cfngen-role-arn",
        default=None,
        metavar="ARN",
        help="the handlers run with this role's credentials (as `cfngen test --role-arn`)",
    )
    group.addoption(
        "--cfngen-setup",
        default=None,
        metavar="TEMPLATE",
        help="a stack deployed to the endpoint for the run (as `cfngen test --setup`)",
    )
    group.addoption(
        "--cfngen-keep",
        action="store_true",
        default=False,
        help="leave what the tests create on the endpoint (as `cfngen test --keep`)",
    )
    group.addoption(
        "--cfngen-max-delay",
        default=None,
        type=float,
        metavar="S",
        help="against an endpoint, sleep at most S seconds of callbackDelaySeconds",
    )
    group.addoption(
        "--cfngen-yes",
        action="store_true",
        default=False,
        help="create resources at an endpoint off this machine or in AWS (pytest cannot ask: "
        "without it such a run is refused)",
    )


def seeds(config: pytest.Config) -> Any:
    from cfngen._contract import Seeds
    from cfngen._errors import CfngenError

    found: dict[str, dict[str, str]] = {"ssm": {}, "secret": {}}
    for flag, values in found.items():
        for item in config.getoption(f"cfngen_{flag}"):
            name, sep, value = item.partition("=")
            if not sep or not name:
                raise CfngenError(f"--cfngen-{flag} {item!r} is not NAME=VALUE")
            values[name] = value
    return Seeds(ssm=found["ssm"], secrets=found["secret"])


def target(config: pytest.Config) -> dict[str, Any]:
    """The target options as `run_contract_tests` takes them; a run that would create
    resources off this machine without --cfngen-yes is refused (pytest cannot ask)."""
    from urllib.parse import urlsplit

    from cfngen._contract._network import network_policy
    from cfngen._errors import CfngenError

    url = config.getoption("cfngen_endpoint_url")
    if url is not None and (
        urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc
    ):
        raise CfngenError(f"--cfngen-endpoint-url {url!r} is not an http(s) URL")
    if url is not None and config.getoption("cfngen_moto_server"):
        raise CfngenError("--cfngen-moto-server and --cfngen-endpoint-url exclude each other")
    chosen: dict[str, Any] = {
        "endpoint_url": url,
        "moto_server": bool(config.getoption("cfngen_moto_server")),
        "profile": config.getoption("cfngen_profile"),
        "role_arn": config.getoption("cfngen_role_arn"),
        "keep": bool(config.getoption("cfngen_keep")),
    }
    setup = config.getoption("cfngen_setup")
    if setup is not None:
        chosen["setup"] = Path(setup)
    delay = config.getoption("cfngen_max_delay")
    if delay is not None:
        chosen["max_delay"] = max(float(delay), 0.0)
    policy = network_policy(
        profile=chosen["profile"], role_arn=chosen["role_arn"], endpoint_url=url
    )
    if policy.aws_may_leave and not config.getoption("cfngen_yes"):
        raise CfngenError(
            f"the handlers would create real resources off this machine ({policy.aws_reason})",
            "pass --cfngen-yes to go ahead",
        )
    return chosen
