"""`cfngen test` and `cfngen module render` for module projects.

A module has no handlers: its test is that the fragment validates, that it renders into a
consumer template (every parameter given or defaulted, nested local modules expanded), that
cfn-lint finds no error in that template, and that `schema.json` is what `cfngen generate`
makes of the fragment.
"""

from __future__ import annotations

import time
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
    stand_ins: bool = False,
) -> Rendered:
    """The template that uses the project's module (`stand_ins`: see _render.render)."""
    from cfngen._cfn_template import decode, plain
    from cfngen._kinds.module._checks import check
    from cfngen._kinds.module._fragment import fragment_text, the_fragment

    path = the_fragment(project.root)
    text = fragment_text(path)
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
        stand_ins=stand_ins,
    )


def lint_rendered(rendered: Rendered) -> list[str]:
    """cfn-lint's errors in the rendered template, as `line:col: message`."""
    from cfngen._cfn_template import decode
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


#: The module's tests, in the order they run.
TEST_NAMES = (
    "module_fragment_valid",
    "module_renders",
    "module_rendered_template_lints_clean",
    "module_schema_up_to_date",
)


class ModuleContract:
    """A module's `ContractProtocol` (cfngen/_contract/_protocol.py): no handlers to call, so
    no requests, statuses or error codes; `run_tests` runs the module's own tests."""

    label = "module"
    #: The `cfngen test` options a module takes (cfngen/_cli/_options.py declares them).
    options: tuple[str, ...] = ("logical_id", "params", "params_file")
    request_optional = False
    upgrade_identifiers = None
    typeconfig_envelope: tuple[str, ...] = ()
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

    def test_names(self, runner: Runner[Project], **options: Any) -> list[str]:
        return list(TEST_NAMES)

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

        # Rendered first: a bad --param is a usage error, exit 2 before any test runs; a
        # parameter with no value gets a stand-in (one note names them); a fragment that does
        # not render is a failed test.
        failure: CfngenError | None = None
        try:
            rendered.append(
                render_project(
                    project,
                    logical_id=logical_id,
                    params=params,
                    params_file=params_file,
                    stand_ins=True,
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
            return derived_files_current(project)

        tests = list(
            zip(
                TEST_NAMES,
                (fragment_valid, renders, rendered_lints_clean, schema_current),
                strict=True,
            )
        )
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


def derived_files_current(project: Project) -> str | None:
    """`module_schema_up_to_date`: what `cfngen generate --check` says of the derived files,
    each state in its own words. A failure for a file cfngen wrote that is stale or edited; a
    skip, saying which, when the files are not there yet, are the official tool's rewrite of
    schema.json, or are the user's; a skip when the fragment does not validate."""
    from cfngen._files import read_optional
    from cfngen._generate import InvalidSchemaError, generate_project
    from cfngen._kinds.module._derive import is_official_schema
    from cfngen._kinds.module._fragment import SCHEMA_FILE

    try:
        result = generate_project(project.root, check=True)
    except InvalidSchemaError:
        raise _Skip(
            "the fragment does not validate (module_fragment_valid says why): there is no "
            "schema.json to compare"
        ) from None
    absent, official, stale = [], [], []
    for path in result.written:
        relpath = path.as_posix()
        on_disk = read_optional(project.root / path)
        if on_disk is None:
            absent.append(relpath)
        elif relpath == SCHEMA_FILE and is_official_schema(on_disk):
            official.append(relpath)
        else:
            stale.append(relpath)
    stale += [p.as_posix() for p in result.removed]
    edited = [p.as_posix() for p in result.edited]
    if stale or edited:
        return "; ".join(
            part
            for part in (
                f"out of date: {', '.join(stale)} (run `cfngen generate`)" if stale else "",
                f"edited by hand since `cfngen generate` wrote them: {', '.join(edited)}"
                if edited
                else "",
            )
            if part
        )
    reasons = []
    if absent:
        verb, them = ("is", "it") if len(absent) == 1 else ("are", "them")
        reasons.append(f"{' and '.join(absent)} {verb} not there: `cfngen generate` writes {them}")
    if official:
        reasons.append(
            f"{SCHEMA_FILE} is the official tool's rewrite (`cfn validate` and `cfn submit` "
            "write it): `cfngen generate` writes cfngen's"
        )
    for path in result.skipped:
        why = result.skip_reasons.get(path.as_posix(), "cfngen did not write it")
        reasons.append(f"{path.as_posix()} is yours ({why}): cfngen leaves it alone")
    if reasons:
        if SCHEMA_FILE in [*absent, *official, *(p.as_posix() for p in result.skipped)]:
            reasons.append(f"`cfngen build` derives {SCHEMA_FILE} from the fragment either way")
        raise _Skip("; ".join(reasons))
    return None


def _files(project: Project) -> list[Path]:
    return list(project.kind.checked_files(project))


def _matches(keyword: str, name: str) -> bool:
    from cfngen._contract._select import compile_expression

    return compile_expression(keyword)(name)


CONTRACT = ModuleContract()
