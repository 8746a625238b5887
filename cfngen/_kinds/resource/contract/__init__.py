"""The resource handler contract: requests, responses, and the contract tests.

`cfngen invoke` runs one action with a request file as `cfn invoke` reads it (_request.py,
_invoke.py); `cfngen test` runs the tests of the official suite under their names, plus the
rules it misses (_suite.py), with inputs from inputs/ or generated from the schema (_inputs.py)
and the contract's rules about models (_rules.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cfngen._contract._handlers import Invocation
    from cfngen._contract._results import InvokeResult, SuiteResult, TestResult
    from cfngen._project import Project


class ResourceContract:
    #: Options of `cfngen invoke` and `cfngen test` this kind takes (see cfngen._contract).
    options = ("exports",)

    def invoke(
        self,
        project: Project,
        action: str,
        request_file: Path,
        *,
        profile: str | None,
        region: str | None,
        enforce_timeout: float | None,
        max_reinvoke: int,
        max_delay: float,
        on_invocation: Callable[[Invocation], None] | None = None,
        on_wait: Callable[[float, float], None] | None = None,
        on_warning: Callable[[str], None] | None = None,
        on_import_output: Callable[[list[str]], None] | None = None,
        exports: Mapping[str, Any] | None = None,
    ) -> InvokeResult:
        from cfngen._kinds.resource.contract._invoke import invoke

        return invoke(
            project,
            action,
            request_file,
            profile=profile,
            region=region,
            enforce_timeout=enforce_timeout,
            max_reinvoke=max_reinvoke,
            max_delay=max_delay,
            on_invocation=on_invocation,
            on_wait=on_wait,
            on_warning=on_warning,
            on_import_output=on_import_output,
            exports=exports,
        )

    def run_tests(
        self,
        project: Project,
        *,
        keyword: str | None,
        enforce_timeout: float | None,
        max_reinvoke: int,
        region: str | None,
        on_result: Callable[[TestResult], None] | None = None,
        exports: Mapping[str, Any] | None = None,
    ) -> SuiteResult:
        from cfngen._kinds.resource.contract._suite import run_tests

        return run_tests(
            project,
            keyword=keyword,
            enforce_timeout=enforce_timeout,
            max_reinvoke=max_reinvoke,
            region=region,
            on_result=on_result,
            exports=exports,
        )


CONTRACT = ResourceContract()
