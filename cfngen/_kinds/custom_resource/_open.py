"""The custom resource's function opened in cfngen/_contract's runner: found in the template,
imported once offline (moto, fake credentials) as Lambda's init phase does, each call under its
Timeout (`--enforce-timeout` caps it), and what a Lambda container has loaded before its first
request loaded here before any deadline runs.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._contract._entrypoint import Source
from cfngen._kinds._shared._lambda_open import offline, warm_up
from cfngen._kinds.custom_resource._protocol import Cloud
from cfngen._kinds.custom_resource._receiver import certificate
from cfngen._kinds.custom_resource._template import Resource, find_resource

if TYPE_CHECKING:
    from cfngen._contract._runner import Runner
    from cfngen._project import Project


#: Seconds an invocation may run when the function's Timeout is longer (--enforce-timeout).
DEFAULT_LIMIT = 30.0


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
    with offline(region, allow_network=settings.allow_network):
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
        warm_up(function.code_dir)
        certificate()
        yield cloud(runner), found, notes
