"""`cfngen test` and `cfngen module render` for module projects.

A module has no handlers: its test is that the fragment validates, that it renders into a
consumer template (every parameter given or defaulted, nested local modules expanded), that
cfn-lint finds no error in that template, and that `schema.json` is what `cfngen generate`
makes of the fragment.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._errors import CfngenError, ExitCode
from cfngen._kinds.module._render import DEFAULT_LOGICAL_ID, Rendered, parse_params, render

if TYPE_CHECKING:
    from cfngen._contract import Listener
    from cfngen._contract._results import InvokeResult, Status, SuiteResult
    from cfngen._contract._runner import Runner
    from cfngen._project import Project


def render_project(
    project: Project,
    *,
    logical_id: str | None = None,
    params: list[str] | None = None,
    params_file: Path | None = None,
) -> Rendered:
    from cfngen._kinds.module._checks import check
    from cfngen._kinds.module._fragment import decode, plain, the_fragment

    path = the_fragment(project.root)
    text = path.read_text(encoding="utf-8")
    decoded = decode(text)
    errors = (
        [d for d in check(decoded.template, text, root=None) if d.severity == "error"]
        if isinstance(decoded.template, dict)
        else []
    )
    if not isinstance(decoded.template, dict) or errors:
        first = f": {errors[0].line}:{errors[0].column}: {errors[0].message}" if errors else ""
        raise CfngenError(
            f"{path}: the fragment is not a module CloudFormation can expand{first}",
            "run `cfngen validate` for every problem",
            exit_code=ExitCode.FAILED,
        )
    return render(
        dict(plain(decoded.template)),
        logical_id=logical_id or DEFAULT_LOGICAL_ID,
        params=parse_params(params, params_file),
        root=project.root,
        type_name=str(project.config.get("typeName")),
    )


def lint_rendered(rendered: Rendered) -> list[str]:
    """cfn-lint's errors in the rendered template, as `line:col: message`."""
    from cfngen._kinds.module._fragment import decode
    from cfngen._kinds.module._lint import lint

    text = rendered.text()
    decoded = decode(text)
    if decoded.template is None:  # pragma: no cover - cfngen wrote it
        return [f"{line}:{column}: {message}" for line, column, message in decoded.errors]
    return [
        f"{d.line}:{d.column}: {d.pointer}: {d.message}"
        for d in lint(decoded.template)
        if d.severity == "error"
    ]


class ModuleContract:
    """A module's `ContractProtocol` (cfngen/_contract/_protocol.py): no handlers to call, so
    no requests, statuses or error codes; `run_tests` runs the module's own tests."""

    label = "module"
    #: The `cfngen test` options a module takes (cfngen/_cli/_options.py declares them).
    options: tuple[str, ...] = ("logical_id", "params", "params_file")
    request_optional = False
    extra: str | None = None
    status_key = ""
    in_progress: str | None = None
    statuses: frozenset[str] = frozenset()
    error_codes: frozenset[str] = frozenset()
    session_module: str | None = None

    def adapt(self, entrypoint: Any) -> None:
        return None

    def invoke(
        self,
        runner: Runner[Project],
        action: str,
        request_file: Path | None,
        listener: Listener,
        **options: Any,
    ) -> InvokeResult:
        raise CfngenError(
            f"{runner.project.root}: a module has no handlers to invoke",
            "`cfngen module render` shows the template CloudFormation makes of it",
        )

    def run_tests(self, runner: Runner[Project], listener: Listener, **options: Any) -> SuiteResult:
        logical_id: str | None = options.get("logical_id")
        params: list[str] | None = options.get("params")
        params_file: Path | None = options.get("params_file")
        project = runner.project
        keyword = runner.settings.keyword
        on_result = listener.on_result
        from cfngen._contract._results import SuiteResult, TestResult

        suite = SuiteResult()
        started = time.perf_counter()
        rendered: list[Rendered] = []

        def fragment_valid() -> str | None:
            from cfngen._validate import render_text

            reports = [project.kind.check_file(p, strict=False) for p in _files(project)]
            bad = [r for r in reports if not r.valid]
            return render_text(bad).strip() if bad else None

        # Rendered first: a parameter with no value (or a bad --param) is a usage error,
        # exit 2 before any test runs; a fragment that does not render is a failed test.
        failure: CfngenError | None = None
        try:
            rendered.append(
                render_project(
                    project, logical_id=logical_id, params=params, params_file=params_file
                )
            )
            suite.notes.extend(rendered[0].warnings)
        except CfngenError as error:
            if error.exit_code == ExitCode.USAGE:
                raise
            failure = error

        def renders() -> str | None:
            return str(failure) if failure is not None else None

        def rendered_lints_clean() -> str | None:
            if not rendered:
                raise _Skip("the module did not render")
            errors = lint_rendered(rendered[0])
            return "cfn-lint on the rendered template: " + "; ".join(errors) if errors else None

        def schema_current() -> str | None:
            from cfngen._files import read_optional
            from cfngen._generate import generate_project
            from cfngen._kinds.module._fragment import SCHEMA_FILE
            from cfngen._kinds.module._schema import is_official_schema

            on_disk = read_optional(project.root / SCHEMA_FILE)
            if on_disk is None or is_official_schema(on_disk):
                # cfngen build/submit derive it anyway; only a stale cfngen schema is wrong.
                raise _Skip(
                    f"{SCHEMA_FILE} is "
                    + ("missing" if on_disk is None else "the official tool's")
                    + ": `cfngen generate` writes cfngen's"
                )
            result = generate_project(project.root, check=True)
            drift = [p.as_posix() for p in result.drift]
            if drift:
                return f"out of date: {', '.join(drift)} (run `cfngen generate`)"
            return None

        tests: list[tuple[str, Callable[[], str | None]]] = [
            ("module_fragment_valid", fragment_valid),
            ("module_renders", renders),
            ("module_rendered_template_lints_clean", rendered_lints_clean),
            ("module_schema_up_to_date", schema_current),
        ]
        for name, test in tests:
            if keyword is not None and not _matches(keyword, name):
                continue
            begin = time.perf_counter()
            outcome: Status
            try:
                message = test()
                outcome = "failed" if message else "passed"
            except _Skip as skip:
                outcome, message = "skipped", str(skip)
            except CfngenError as error:
                outcome, message = "failed", str(error)
            result = TestResult(name, outcome, message, time.perf_counter() - begin)
            suite.tests.append(result)
            if on_result is not None:
                on_result(result)
        suite.seconds = time.perf_counter() - started
        return suite


class _Skip(Exception):
    pass


def _files(project: Project) -> list[Path]:
    return list(project.kind.checked_files(project))


def _matches(keyword: str, name: str) -> bool:
    from cfngen._contract._select import compile_expression

    return compile_expression(keyword)(name)


CONTRACT = ModuleContract()
