"""The resource handler protocol and its contract tests, for cfngen/_contract's runner.

`cfngen invoke` runs one action with a request file as `cfn invoke` reads it (_request.py,
_invoke.py); `cfngen test` runs the tests of the official suite under their names, plus the
rules it misses (_resource_tests.py, driven by _suite.py, every call checked by _case.py
against the rules worded in _messages.py), with inputs from inputs/ or generated from the
schema (_inputs.py) and the contract's rules about models (_rules.py).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._contract._protocol import Listener, lib_error_codes, lib_statuses

if TYPE_CHECKING:
    from cfngen._contract._results import InvokeResult, SuiteResult
    from cfngen._contract._runner import Runner
    from cfngen._project import Project

#: Error codes only a hook answers (and "Unknown", which names no cause).
HOOK_ONLY_CODES = frozenset({"NonCompliant", "UnsupportedTarget", "Unknown"})


class ResourceProtocol:
    """The resource handler contract (a `ContractProtocol`)."""

    label = "resource handler"
    #: `--export`/`--exports`: the values of the CloudFormation exports inputs name as {{Name}};
    #: `--typeconfig`: the type configuration (cfngen/_contract/_type_configuration.py).
    options: tuple[str, ...] = ("exports", "typeconfig")
    #: A resource's SetTypeConfiguration takes the properties alone: no envelope.
    typeconfig_envelope: tuple[str, ...] = ()
    request_optional = False
    extra: str | None = "test"
    status_key = "status"
    in_progress: str | None = "IN_PROGRESS"
    session_module: str | None = "cloudformation_cli_python_lib.resource"

    # Read from the library when first asked, after the runner checked the "test" extra.
    @functools.cached_property
    def statuses(self) -> frozenset[str]:
        # PENDING and CHANGE_SET_SUCCESS_SKIP_STACK_HOOK are a hook's.
        return lib_statuses() - {"PENDING", "CHANGE_SET_SUCCESS_SKIP_STACK_HOOK"}

    @functools.cached_property
    def error_codes(self) -> frozenset[str]:
        return lib_error_codes() - HOOK_ONLY_CODES

    @staticmethod
    def upgrade_identifiers(root: Path, model: dict[str, Any]) -> dict[str, Any]:
        from cfngen._kinds.resource.contract._rules import identifiers_of, read_schema
        from cfngen._project import load_project

        return identifiers_of(read_schema(load_project(root)), model)

    def adapt(self, entrypoint: Any) -> None:
        _keep_next_token(entrypoint)

    def invoke(
        self,
        runner: Runner[Project],
        action: str,
        request_file: Path | None,
        listener: Listener,
        **options: Any,
    ) -> InvokeResult:
        assert request_file is not None  # request_optional is False: the runner checked
        from cfngen._kinds.resource.contract._invoke import invoke

        return invoke(
            runner,
            action,
            request_file,
            listener,
            exports=options.get("exports"),
            typeconfig=options.get("typeconfig"),
        )

    def run_tests(self, runner: Runner[Project], listener: Listener, **options: Any) -> SuiteResult:
        from cfngen._kinds.resource.contract._suite import run_tests

        return run_tests(
            runner, listener, exports=options.get("exports"), typeconfig=options.get("typeconfig")
        )

    def test_names(self, runner: Runner[Project], **options: Any) -> list[str]:
        from cfngen._kinds.resource.contract._suite import test_names

        return test_names(runner, exports=options.get("exports"))  # typeconfig: the same names


def _keep_next_token(resource: Any) -> None:
    """cloudformation-cli-python-lib 2.1.20's entrypoint builds the handler request without the
    event's nextToken, so LIST could never page.

    We wrap its request builder on this instance so LIST pages arrive. A Resource that already
    passes the token (cfngen's runtime) is unaffected: the wrapper only fills a missing token.
    """
    cast = getattr(resource, "_cast_resource_request", None)
    if not callable(cast) or getattr(cast, "__cfngen__", False):
        return

    @functools.wraps(cast)
    def with_next_token(event: Any) -> Any:
        request = cast(event)
        token = getattr(event, "nextToken", None)
        if token is not None and getattr(request, "nextToken", None) is None:
            request.nextToken = token
        return request

    with_next_token.__cfngen__ = True  # type: ignore[attr-defined]
    resource._cast_resource_request = with_next_token


CONTRACT = ResourceProtocol()
