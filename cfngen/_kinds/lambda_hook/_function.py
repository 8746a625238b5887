"""The Lambda hook's function, found in the template and opened in cfngen/_contract's runner.

A Lambda function declared in a SAM/CloudFormation template is loaded as Lambda loads it by the
code the kinds share with custom resources (cfngen/_kinds/_shared/: SAM's CodeUri and Globals,
inline code, layers, requirements installed for the run, the repository rule for every folder
read, Lambda's init phase, the context object).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._errors import CfngenError
from cfngen._kinds.lambda_hook._declared import (
    TEMPLATE_NAMES,
    LambdaHook,
    lambda_hook_template,
    lambda_hooks,
)

if TYPE_CHECKING:
    from cfngen._contract._runner import Runner
    from cfngen._kind import Project
    from cfngen._kinds._shared._lambda import Function


#: Seconds an invocation may run (CloudFormation waits 30 s; --enforce-timeout changes it).
DEFAULT_LIMIT = 30.0


def find_template(root: Path, given: Path | None) -> Path:
    """`given` (`--template`, absolute; or the template the project was found by, which is as
    relative as the project folder named on the command line: relative to the working folder,
    not to `root`), else the first template at the top of `root` that declares a LambdaHook."""
    if given is not None and os.path.exists(given):
        return Path(os.path.abspath(given))
    if given is not None:
        path = given if given.is_absolute() else root / given
        if not path.is_file():
            raise CfngenError(f"{given}: no such template", "pass --template FILE")
        return path
    found = lambda_hook_template(root)
    if found is not None:
        return found
    for name in TEMPLATE_NAMES:  # it will say it declares no Lambda hook
        if (root / name).is_file():
            return root / name
    raise CfngenError(
        f"{root}: no template.yaml, template.yml or template.json", "pass --template FILE"
    )


@dataclass
class Found:
    """The hook chosen in the template, the function to run for it, and the template."""

    template: Path
    document: dict[str, Any]
    hook: LambdaHook
    function: Function
    notes: list[str] = field(default_factory=list)


def hook_ids(project: Project, template: Path | None) -> list[str]:
    """The logical ids of the template's LambdaHooks ([] when it cannot be read)."""
    from cfngen._kinds._shared._lambda_code import load_template

    try:
        return list(lambda_hooks(load_template(find_template(project.root, template))))
    except CfngenError:
        return []


def find(
    project: Project,
    *,
    template: Path | None,
    resource: str | None,
    handler: str | None,
    region: str,
    parameters: Mapping[str, Any] | None,
) -> Found:
    """The LambdaHook (`--resource`, else the only one), and its function's code."""
    from cfngen._kinds._shared import _lambda_code as _code
    from cfngen._kinds._shared._intrinsics import _Resolver
    from cfngen._kinds._shared._lambda_code import load_template
    from cfngen._kinds._shared._reach import Reach

    path = find_template(project.root, template or project.template)
    document = load_template(path)
    hooks = lambda_hooks(document)
    if resource is not None:
        if resource not in hooks:
            raise CfngenError(
                f"{path}: no AWS::CloudFormation::LambdaHook {resource}",
                f"use one of {', '.join(sorted(hooks)) or '(none)'}",
            )
        hook = hooks[resource]
    elif len(hooks) == 1:
        (hook,) = hooks.values()
    elif not hooks:
        raise CfngenError(
            f"{path}: declares no AWS::CloudFormation::LambdaHook", "add one, or pass --template"
        )
    else:
        raise CfngenError(
            f"{path}: declares {len(hooks)} Lambda hooks ({', '.join(sorted(hooks))})",
            "pick one with --resource LOGICAL_ID",
        )
    notes: list[str] = []
    resolver = _Resolver(document, region, notes, dict(parameters or {}))
    reach = Reach(project.root)
    declared = _declared(document, hook)
    if handler is not None:
        function, note = _code.from_flag(project.root, handler, path, declared, reach)
        notes.append(note)
    elif declared is None:
        raise CfngenError(
            f"{path}: {hook.logical_id}'s LambdaFunction names no Lambda function of this template",
            "use !GetAtt Function.Arn, or pass --handler FILE.py:FUNCTION",
        )
    else:
        function = _code.from_template(path, declared, resolver, reach)
    notes.extend(reach.notes)
    return Found(path, document, hook, function, notes)


def _declared(document: Mapping[str, Any], hook: LambdaHook) -> Any:
    from cfngen._kinds._shared._lambda_code import Declared

    if hook.function is None:
        return None
    resources = document.get("Resources") or {}
    body = resources[hook.function]
    properties = dict(body.get("Properties") or {})
    if body.get("Type") == "AWS::Serverless::Function":
        globals_ = (document.get("Globals") or {}).get("Function") or {}
        properties = {**globals_, **properties}
    declared = Declared(hook.function, str(body.get("Type")), properties, resources)
    declared.handler  # noqa: B018  # no Handler: refused before anything runs
    return declared


@contextlib.contextmanager
def opened(runner: Runner[Project], found: Found) -> Iterator[Runner[Project] | None]:
    """The runner opened on the function (None when it cannot be imported: its
    `function.init_error` says why, and every invocation fails with it)."""
    from cfngen._contract._entrypoint import Source
    from cfngen._kinds._shared._lambda_open import offline, warm_up

    function = found.function
    region = runner.settings.region or "us-east-1"
    with offline(region, allow_network=runner.settings.allow_network):
        found.notes.extend(function.prepare())
    if function.init_error is not None:
        yield None
        return
    with function.on_path(), runner.open(Source(function.code_dir, function.source)):
        warm_up(function.code_dir)  # before the worker forks: not inside any deadline
        yield runner


def as_lambda_calls(
    found: Found, handler: Callable[[Any, Any], Any], region: str, seconds: list[float]
) -> Callable[[dict[str, Any], Any], Any]:
    """`handler` called as Lambda calls the function (its names in the context, the runner's
    remaining time), each call's duration on the run's clock appended to `seconds`."""
    from cfngen._kinds._shared._lambda import FunctionContext

    def run(event: dict[str, Any], context: Any) -> Any:
        started = time.time()
        try:
            return handler(event, FunctionContext(found.function, region, context))
        finally:
            seconds.append(time.time() - started)

    return run


@contextlib.contextmanager
def simulated_sleep(wait: Callable[[float], float] | None) -> Iterator[None]:
    """While inside, `time.sleep(s)` moves the run's simulated clock by s instead of waiting
    (offline, where `wait` is the runner's CallbackClock.wait): a function that sleeps 31 s is
    measured at 31 s on that clock in milliseconds of real time. None: time is real."""
    if wait is None:
        yield
        return
    real = time.sleep

    def sleep(seconds: Any) -> None:
        if seconds > 0:
            wait(float(seconds))

    time.sleep = sleep
    try:
        yield
    finally:
        time.sleep = real
