"""`ContractProtocol`: what a kind gives the contract runner, and what the runner gives it.

The runner (this package) knows no protocol. It imports a project's handler module
(_entrypoint.py), calls it under a time limit with its output captured (_call.py), carries
one action across re-invocations with a simulated clock and its guards (_loop.py), and runs
each unit of work in a child process so that a handler's hard exit (`os._exit`, a crash in
native code) fails one test instead of killing cfngen (_isolate.py). A kind brings the rest:

- **requests**: the event its Lambda function receives for call N of an action, with the
  callbackContext the previous call returned (an `Exchange`);
- **responses**: where the status is (`status_key`), which statuses and error codes its handlers
  may answer (`statuses`, `error_codes`, taken from cloudformation-cli-python-lib's
  OperationStatus / HookStatus / HandlerErrorCode by `lib_error_codes()` / `lib_statuses()`,
  never copied by hand), which status means "call me again" (`in_progress`);
- **tests and commands**: `invoke` (one action from a request file), `run_tests` (its
  contract tests) and `test_names` (the names those report, without running them), each given
  a `Runner` with the user's settings.

Three protocols fit this shape:

- **resource type**: entrypoint `Resource(...)`, called `resource(event, context)`; the request
  names the `action` and carries `requestData.resourceProperties` and `callbackContext`; the
  answer is the return value, its status in `status`; re-invoked while IN_PROGRESS; error
  codes: HandlerErrorCode minus the hook's NonCompliant and UnsupportedTarget.
- **hook**: entrypoint `Hook(...)`; the request names the `actionInvocationPoint` and carries
  `requestData.targetModel` (or a `payload` URL) and `requestContext.callbackContext`; the answer
  is the return value, its status in `hookStatus`; re-invoked while IN_PROGRESS; error codes:
  HandlerErrorCode minus a resource's NotUpdatable, AlreadyExists and NotStabilized.
- **Lambda-backed custom resource** (`Custom::X`): a plain `handler(event, context)`; the request
  carries `RequestType`, `ResourceProperties` and a `ResponseURL`; the answer is the body the
  handler PUTs to that URL, its status in `Status`; never re-invoked (`in_progress` None);
  no error codes (a `Reason` instead).

A custom resource has no `.rpdk-config`: its protocol finds the function in the template and
opens the runner on it (`runner.open(Source(code_dir, "index.handler"))`); a cold start per
request is `runner.entrypoint.reload()` in its `Exchange.event`. Its `Exchange.answer` reads
what the handler PUT to a local receiver instead of the return value; its `statuses` are
SUCCESS and FAILED and its `error_codes` empty; `session_module` None. Whatever a unit of work
needs open while handlers run (a hook's payload server, that receiver) the protocol opens
inside the unit: units run in a worker process (`Runner.each`, `Runner.isolated`), and a
server thread of cfngen's own process would not see what the worker publishes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from cfngen._contract._responses import Responses, lib_error_codes, lib_statuses
from cfngen._contract._settings import DEFAULT_MAX_DELAY, Settings
from cfngen._simulated_time import DEFAULT_MAX_INVOCATIONS, DEFAULT_MAX_REINVOKE

if TYPE_CHECKING:
    from cfngen._contract._call import Invocation
    from cfngen._contract._results import InvokeResult, SuiteResult, TestResult
    from cfngen._contract._runner import Runner

# `--max-reinvoke` (IN_PROGRESS answers in a row without a callbackDelaySeconds) and
# `--max-invocations` (calls of one action in all), `cfngen invoke` and `cfngen test` alike,
# are DEFAULT_MAX_REINVOKE and DEFAULT_MAX_INVOCATIONS of cfngen/_simulated_time.py.

__all__ = [
    "DEFAULT_MAX_DELAY",
    "DEFAULT_MAX_INVOCATIONS",
    "DEFAULT_MAX_REINVOKE",
    "ContractProtocol",
    "Listener",
    "Responses",
    "Settings",
    "lib_error_codes",
    "lib_statuses",
]


@dataclass
class Listener:
    """Callbacks for what happens while a run goes on (the CLI prints them)."""

    on_invocation: Callable[[Invocation], None] | None = None
    #: (seconds waited for real or in simulated time, callbackDelaySeconds asked, simulated)
    on_wait: Callable[[float, float, bool], None] | None = None
    on_warning: Callable[[str], None] | None = None
    on_import_output: Callable[[list[str]], None] | None = None
    on_result: Callable[[TestResult], None] | None = None

    def warn(self, text: str) -> None:
        if self.on_warning is not None:
            self.on_warning(text)

    def add(self, suite: SuiteResult, test: TestResult) -> None:
        """`test` into `suite`'s results, and told as it ends."""
        suite.tests.append(test)
        if self.on_result is not None:
            self.on_result(test)


class ContractProtocol(Responses, Protocol):
    """One kind's request/response protocol and contract tests (`Kind.contract`): what the
    runner reads of its answers (`Responses`), and the commands it drives the runner with.

    A contract may also define `test_names(project)`, the names `run_tests` gives that
    project's tests when they depend on it (a custom resource's, one suite per resource of its
    template): `pytest --cfngen` makes an item of each."""

    #: Options beyond the runner's own that `invoke` and `run_tests` take (a hook's
    #: `typeconfig`); given to a kind that does not take them, they are a usage error.
    options: tuple[str, ...]
    #: Whether `cfngen invoke` runs without a request file (a custom resource's template has
    #: the properties); otherwise a missing one is a usage error.
    request_optional: bool
    #: The envelope keys around the properties in a type configuration file this kind's
    #: SetTypeConfiguration takes (a hook's CloudFormationConfiguration.HookConfiguration.
    #: Properties); () for none: the file is the properties alone.
    typeconfig_envelope: tuple[str, ...]

    #: For a kind whose resources outlive a new version of its handlers, so that
    #: `cfngen test --upgrade-from` applies (CREATE by the old handlers; READ, UPDATE and
    #: DELETE by the new: a resource type's actions): the identifier properties of a model the
    #: handlers returned, as the project's schema declares them. None: the test does not apply.
    @property
    def upgrade_identifiers(self) -> Callable[[Path, dict[str, Any]], dict[str, Any]] | None: ...

    #: The extra of cfngen (optional dependencies, cfngen/_extras.py) running this kind's
    #: handlers needs ("test": moto, the handler library), or None when base cfngen runs them.
    extra: str | None

    def invoke(
        self,
        runner: Runner[Any],
        action: str,
        request_file: Path | None,
        listener: Listener,
        **options: Any,
    ) -> InvokeResult:
        """`cfngen invoke`: one action carried to its end."""
        ...

    def run_tests(self, runner: Runner[Any], listener: Listener, **options: Any) -> SuiteResult:
        """`cfngen test`: the contract tests; CfngenError when they cannot run at all."""
        ...

    def test_names(self, runner: Runner[Any], **options: Any) -> list[str]:
        """The name of every test `run_tests` reports when no -k is given, in its order,
        without importing or calling a handler: `pytest --cfngen` makes one item of each
        (and an item `run_tests` did not report fails). CfngenError when the tests cannot run
        at all."""
        ...
