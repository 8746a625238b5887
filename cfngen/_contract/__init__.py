"""Running a project's handlers in this process: `cfngen invoke` and `cfngen test`.

No SAM, no Docker, no AWS account: the handlers are imported and called through their Lambda
entrypoint, with fake credentials, every AWS call served by moto, and nothing else leaving the
machine unless the user says so (_network.py). This package is the runner
and knows no protocol; the project's kind brings one (`Kind.contract`, a `ContractProtocol`:
requests, responses, the contract tests; see _protocol.py). A kind without one has no
handlers to run.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._contract._protocol import (
    DEFAULT_MAX_DELAY,
    DEFAULT_MAX_INVOCATIONS,
    DEFAULT_MAX_REINVOKE,
    ContractProtocol,
    Listener,
    Settings,
)
from cfngen._contract._references import Seeds
from cfngen._contract._setup import prepared
from cfngen._errors import CfngenError

if TYPE_CHECKING:
    from cfngen._contract._call import Invocation
    from cfngen._contract._results import InvokeResult, SuiteResult, TestResult
    from cfngen._contract._target import Target
    from cfngen._project import Project

__all__ = [
    "DEFAULT_MAX_DELAY",
    "DEFAULT_MAX_INVOCATIONS",
    "DEFAULT_MAX_REINVOKE",
    "ContractProtocol",
    "Listener",
    "Seeds",
    "Settings",
    "contract_test_names",
    "invoke",
    "run_contract_tests",
]


def _contract(project: Project, command: str) -> ContractProtocol:
    contract = project.kind.contract
    if contract is None:
        raise CfngenError(
            f"{project.root}: a {project.kind.label} project has no handlers for cfngen to run",
            "`cfngen invoke` and `cfngen test` run the handlers of projects that have them",
        )
    from cfngen._contract._process_entrypoint import not_runnable

    refusal = not_runnable(project)  # a language whose handlers cfngen does not run
    if refusal is not None:
        raise refusal
    from cfngen._files._conflicted import refuse_conflicts

    kind = project.kind
    refuse_conflicts(
        project.root, lambda path: kind.may_derive(project, path), "no handler was run"
    )
    if contract.extra is not None:
        from cfngen._extras import require

        require(contract.extra, f"`cfngen {command}`")
    return contract


def invoke(
    root: Path,
    action: str,
    request_file: Path | None,
    *,
    profile: str | None = None,
    region: str | None = None,
    allow_network: bool = False,
    enforce_timeout: float | None = None,
    max_reinvoke: int = DEFAULT_MAX_REINVOKE,
    max_invocations: int = DEFAULT_MAX_INVOCATIONS,
    max_delay: float = DEFAULT_MAX_DELAY,
    on_invocation: Callable[[Invocation], None] | None = None,
    on_wait: Callable[[float, float, bool], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
    on_import_output: Callable[[list[str]], None] | None = None,
    seeds: Seeds | None = None,
    endpoint_url: str | None = None,
    moto_server: bool = False,
    role_arn: str | None = None,
    **options: Any,
) -> InvokeResult:
    """Run `action` with the request in `request_file`, re-invoking while IN_PROGRESS.
    `options` are ones only some kinds take (`ContractProtocol.options`, e.g. a hook's
    `typeconfig`): given to a kind that does not take them, they are a usage error."""
    from cfngen._contract import _process_entrypoint
    from cfngen._contract._runner import Runner
    from cfngen._project import load_project

    project = load_project(root)
    contract = _contract(project, "invoke")
    if request_file is None and not contract.request_optional:
        raise CfngenError("REQUEST_FILE is missing", "name the request JSON file")
    settings = Settings(
        region=region,
        profile=profile,
        allow_network=allow_network,
        enforce_timeout=enforce_timeout,
        max_reinvoke=max_reinvoke,
        max_invocations=max_invocations,
        max_delay=max_delay,
        seeds=seeds or Seeds(),
        endpoint_url=endpoint_url,
        moto_server=moto_server,
        role_arn=role_arn,
    )
    _process_entrypoint.aim_settings(project, settings)
    listener = Listener(
        on_invocation=on_invocation,
        on_wait=on_wait,
        on_warning=on_warning,
        on_import_output=on_import_output,
    )
    chosen = _options(project, contract, options)
    with prepared(settings):
        return contract.invoke(
            Runner(project, contract, settings), action, request_file, listener, **chosen
        )


def run_contract_tests(
    root: Path,
    *,
    keyword: str | None = None,
    enforce_timeout: float | None = None,
    max_reinvoke: int = DEFAULT_MAX_REINVOKE,
    max_invocations: int = DEFAULT_MAX_INVOCATIONS,
    region: str | None = None,
    allow_network: bool = False,
    strict: bool = False,
    on_result: Callable[[TestResult], None] | None = None,
    seeds: Seeds | None = None,
    endpoint_url: str | None = None,
    moto_server: bool = False,
    max_delay: float = DEFAULT_MAX_DELAY,
    keep: bool = False,
    setup: Path | None = None,
    profile: str | None = None,
    role_arn: str | None = None,
    on_target: Callable[[Target], None] | None = None,
    on_wait: Callable[[float, float, bool], None] | None = None,
    first: Collection[str] = (),
    workers: int = 1,
    **options: Any,
) -> SuiteResult:
    """Run the contract tests of the project in `root` (`options`: as for `invoke`).

    `endpoint_url`/`moto_server`: where the handlers' AWS calls go (_target.py), told to
    `on_target` before the first test and kept as the result's `target`; `setup`: a template
    deployed there for the run, whose exports (and the target's) fill `{{Name}}` in inputs
    (_setup.py). Tests named in `first` run before the others, in the order the suite
    gives them; `workers` processes run them at once. Raises CfngenError when they cannot
    run at all (no project, no handlers, bad inputs).
    """
    from cfngen._contract import _process_entrypoint
    from cfngen._contract._runner import Runner
    from cfngen._project import load_project

    project = load_project(root)
    contract = _contract(project, "test")
    settings = Settings(
        region=region,
        allow_network=allow_network,
        enforce_timeout=enforce_timeout,
        max_reinvoke=max_reinvoke,
        max_invocations=max_invocations,
        keyword=keyword,
        seeds=seeds or Seeds(),
        strict=strict,
        endpoint_url=endpoint_url,
        moto_server=moto_server,
        max_delay=max_delay,
        keep=keep,
        setup=setup,
        profile=profile,
        role_arn=role_arn,
        first=frozenset(first),
        workers=workers,
    )
    _process_entrypoint.aim_settings(project, settings)
    runner = Runner(project, contract, settings)
    targets: list[Target] = []

    def opened(target: Target) -> None:
        if not targets and on_target is not None:
            on_target(target)
        targets.append(target)

    runner.on_target = opened
    chosen = _options(project, contract, options)
    takes_exports = "exports" in contract.options
    with prepared(
        settings, setup=setup, given=chosen.get("exports"), takes_exports=takes_exports
    ) as exports:
        if exports:
            chosen["exports"] = exports
        listener = Listener(on_result=on_result, on_wait=on_wait)
        result = contract.run_tests(runner, listener, **chosen)
    if targets:
        result.target = targets[0]
    return result


def run_upgrade_test(
    root: Path,
    rev: str,
    *,
    region: str | None = None,
    endpoint_url: str | None = None,
    on_result: Callable[[TestResult], None] | None = None,
) -> SuiteResult:
    """`cfngen test --upgrade-from REV` (_upgrade.py): the project at `rev` creates a resource
    on one AWS both share, this project's handlers read, update and delete it."""
    import functools

    from cfngen._contract._upgrade import run_upgrade

    return run_upgrade(
        root,
        rev,
        invoke=functools.partial(invoke, region=region),
        endpoint_url=endpoint_url,
        on_result=on_result,
    )


def contract_test_names(root: Path, *, region: str | None = None, **options: Any) -> list[str]:
    """The names `run_contract_tests` reports on the project in `root` with no keyword, in
    its order, without importing a handler (`pytest --cfngen` collects them). Raises
    CfngenError when the tests cannot run at all."""
    from cfngen._contract._runner import Runner
    from cfngen._project import load_project

    project = load_project(root)
    contract = _contract(project, "test")
    return list(
        contract.test_names(
            Runner(project, contract, Settings(region=region)),
            **_options(project, contract, options),
        )
    )


def _options(
    project: Project, contract: ContractProtocol, options: dict[str, Any]
) -> dict[str, Any]:
    """The options given (not None) that this kind takes; a usage error for the others."""
    given = {key: value for key, value in options.items() if value not in (None, {}, [])}
    refused = sorted(set(given) - set(contract.options))
    if refused:
        raise CfngenError(
            f"--{refused[0]} does not apply to a {project.kind.label} project",
            "leave it out",
        )
    return given
