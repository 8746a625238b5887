"""The custom resource's function opened in cfngen/_contract's runner: found in the template,
imported once offline (moto, fake credentials) as Lambda's init phase does, each call under its
Timeout (`--enforce-timeout` caps it), and what a Lambda container has loaded before its first
request loaded here before any deadline runs.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._contract._entrypoint import Source
from cfngen._contract._environ import patched_environ
from cfngen._contract._network import guarded, network_policy
from cfngen._kinds.custom_resource._protocol import Cloud
from cfngen._kinds.custom_resource._receiver import certificate
from cfngen._kinds.custom_resource._template import Resource, find_resource

if TYPE_CHECKING:
    from cfngen._contract._runner import Runner
    from cfngen._project import Project


#: Seconds an invocation may run when the function's Timeout is longer (--enforce-timeout).
DEFAULT_LIMIT = 30.0
_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_EC2_METADATA_DISABLED": "true",
}


@contextlib.contextmanager
def _offline(region: str, *, allow_network: bool) -> Iterator[None]:
    """Fake credentials, the region, moto answering every AWS call and the runner's network
    policy (the first import of the handler, before the runner opens)."""
    from cfngen._contract._moto_imports import install

    install()  # before any backend loads: EC2's models only when EC2 is called
    from moto import mock_aws

    values = {**_ENV, "AWS_DEFAULT_REGION": region, "AWS_REGION": region}
    policy = network_policy(allow_network=allow_network)
    with guarded(policy), patched_environ(values), mock_aws():
        yield


@contextlib.contextmanager
def opened(
    runner: Runner[Project],
    *,
    template: Path | None,
    resource: str | None,
    handler: str | None,
    params: list[str] | None = None,
    params_file: Path | None = None,
) -> Iterator[tuple[Cloud, Resource, list[str]]]:
    """The function found and the runner opened on it (`Cloud.runner` None when the function
    cannot be imported: every request then fails as Lambda's init phase does)."""
    from cfngen._kinds._shared._parameters import parse_params

    settings = runner.settings
    region = settings.region or "us-east-1"
    project = runner.project
    found = find_resource(
        project.root,
        template=template or project.template,
        resource=resource,
        handler=handler,
        region=region,
        parameters=parse_params(params, params_file),
    )
    function = found.function
    notes = list(found.warnings)
    seconds = function.timeout
    limit = settings.enforce_timeout or DEFAULT_LIMIT
    if seconds > limit:
        notes.append(
            f"{function.logical_id}'s Timeout is {seconds:g} s: each invocation is given "
            f"{limit:g} s here (--enforce-timeout)"
        )
        seconds = limit
    with _offline(region, allow_network=settings.allow_network):
        notes.extend(function.prepare())
    cloud = functools.partial(
        Cloud,
        function=function,
        logical_id=found.logical_id,
        resource_type=found.type,
        region=region,
        seconds=seconds,
        service_timeout=found.service_timeout,
    )
    if function.init_error is not None:
        yield cloud(None), found, notes
        return
    with function.on_path(), runner.open(Source(function.code_dir, function.source)):
        # Before the worker forks: loaded once, not inside any deadline.
        _warm_up(function.code_dir)
        certificate()
        yield cloud(runner), found, notes


_WARM: set[str] = set()
_SERVICE = re.compile(r"""\b(?:client|resource)\(\s*["']([a-z0-9-]+)["']""")


def _warm_up(code_dir: Path) -> None:
    """Load, once per process and before any deadline runs, what a Lambda container has loaded
    before its first request and this process lacks: botocore's data (boto3's first client) and
    moto's backend of each service the function's code names (importing moto's SSM backend
    alone takes seconds, which would otherwise count against the function's Timeout)."""
    services = {"sts"}
    for path in sorted(code_dir.glob("*.py"))[:50]:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            services.update(_SERVICE.findall(path.read_text(encoding="utf-8")))
    for service in sorted(services - _WARM):
        _WARM.add(service)
        with contextlib.suppress(Exception):
            if service == "sts":
                import boto3

                boto3.client("sts").get_caller_identity()
            else:
                from moto.backends import get_backend

                get_backend(service)  # type: ignore[call-overload]
