"""`cfngen generate [PROJECT]`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._cli._options import add_format
from cfngen._cli._output import painter, print_warning, rendered, show
from cfngen._errors import ExitCode

if TYPE_CHECKING:
    from cfngen._errors import CfngenError
    from cfngen._generate import GenerateResult
    from cfngen._validate._file_report import FileReport


#: The one line `cfngen --help` lists it with.
HELP = "write the files derived from the schema (models, role, SAM template, docs)"


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "generate",
        help=HELP,
        description=(
            "Validate the project's schema, then write the files derived from it: "
            "src/<package>/models.py, the runtime library src/<package>/cfngen_runtime/, "
            "resource-role.yaml, template.yml, src/requirements.txt, docs/ and example_inputs/. "
            "Each starts with a "
            "line saying cfngen generated it; a file at one of those paths that cfngen did not "
            "write is yours and is left alone, and one it wrote that you edited since stops "
            "generate (see --discard-edits and --keep-edits). handlers.py is never touched. "
            "Every file is written, or none."
        ),
    )
    p.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PROJECT",
        help="project folders, or files that stand for the projects holding them, as "
        "pre-commit passes them; a file in no project is skipped (default: the current folder)",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 and list the files that are out of date",
    )
    p.add_argument("--force", action="store_true", help="regenerate even when nothing has changed")
    edits = p.add_mutually_exclusive_group()
    edits.add_argument(
        "--discard-edits",
        dest="edits",
        action="store_const",
        const="discard",
        default="stop",
        help="overwrite generated files you edited by hand, saving each as <path>.cfngen-old "
        "first (without this, generate stops and names them)",
    )
    edits.add_argument(
        "--keep-edits",
        dest="edits",
        action="store_const",
        const="keep",
        help="keep generated files you edited by hand as yours: cfngen stops generating them",
    )
    add_format(p, ci=True)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    roots = _projects(args.paths)
    if len(roots) == 1:
        return _run_one(args, roots[0])
    return _run_several(args, roots)


def _projects(paths: list[Path]) -> list[Path]:
    """The projects to generate: each folder given (a project or not: generate says), the
    project each file given is in; the current folder when nothing is given."""
    from cfngen._project import project_of

    if not paths:
        return [Path.cwd()]
    roots: dict[Path, None] = {}
    skipped = []
    for path in paths:
        found = Path(os.path.abspath(path)) if path.is_dir() else project_of(path, roots)
        if found is None:
            skipped.append(path)
        else:
            roots.setdefault(found)
    for path in skipped:
        print_warning(f"{path} is in no project: skipped")
    return list(roots)


def _run_one(args: argparse.Namespace, root: Path) -> int:
    from cfngen._generate import InvalidSchemaError

    try:
        result = _generate(args, root)
    except InvalidSchemaError as error:
        if args.format == "text":
            from cfngen._validate import render_text

            sys.stderr.write(render_text([error.report], painter(sys.stderr)))
        else:
            from cfngen._generate import GenerateResult

            sys.stdout.write(_machine(args.format, GenerateResult(report=error.report), root))
        raise
    if args.format != "text":
        sys.stdout.write(_machine(args.format, result, root))
        for message in result.warnings:
            print_warning(message)
        return ExitCode.FAILED if result.failed(check=args.check) else ExitCode.OK
    text = rendered()
    result.render(text, check=args.check)
    show(text)
    return ExitCode.FAILED if result.failed(check=args.check) else ExitCode.OK


def _run_several(args: argparse.Namespace, roots: list[Path]) -> int:
    """Every project in turn (one failing does not stop the others); the worst exit code. The
    text is each project's under its name; a machine format is one document for all."""
    from cfngen._cli._output import print_error
    from cfngen._errors import CfngenError
    from cfngen._formats import display_path
    from cfngen._generate import GenerateResult, InvalidSchemaError

    code = ExitCode.OK
    results: list[tuple[Path, GenerateResult | CfngenError]] = []
    for root in roots:
        if args.format == "text":
            print(painter(sys.stdout)(f"{display_path(root) or '.'}:", "bold"), flush=True)
        try:
            result = _generate(args, root)
        except InvalidSchemaError as error:
            results.append((root, GenerateResult(report=error.report)))
            if args.format == "text":
                from cfngen._validate import render_text

                sys.stderr.write(render_text([error.report], painter(sys.stderr)))
            print_error(error)
            code = max(code, error.exit_code)
            continue
        except CfngenError as error:
            results.append((root, error))
            print_error(error)
            code = max(code, error.exit_code)
            continue
        results.append((root, result))
        if result.failed(check=args.check):
            code = max(code, ExitCode.FAILED)
        if args.format == "text":
            text = rendered()
            result.render(text, check=args.check)
            show(text)
        else:
            for message in result.warnings:
                print_warning(message)
    if args.format != "text":
        sys.stdout.write(_machine_several(args.format, results))
    return code


def _generate(args: argparse.Namespace, root: Path) -> GenerateResult:
    """generate_project, its schema's findings placed as seen from here: the report names the
    schema within the project, and `generate services/a` runs from elsewhere."""
    import dataclasses

    from cfngen._formats import display_path
    from cfngen._generate import InvalidSchemaError, generate_project

    def placed(report: FileReport) -> FileReport:
        if Path(report.path).is_absolute():
            return report
        return dataclasses.replace(report, path=display_path(root / report.path))

    try:
        result = generate_project(root, check=args.check, force=args.force, edits=args.edits)
    except InvalidSchemaError as error:
        error.report = placed(error.report)
        raise
    if result.report is not None:
        result.report = placed(result.report)
    return result


def _machine_several(fmt: str, results: list[tuple[Path, GenerateResult | CfngenError]]) -> str:
    """One document for several projects: JSON keyed by project, a CI format's findings and
    cases of every project (a project that could not be generated as an error of its own)."""
    from cfngen._errors import CfngenError
    from cfngen._formats import Case, Finding, display_path

    if fmt == "json":
        import json

        return (
            json.dumps(
                {
                    "projects": {
                        display_path(root): result.as_json()
                        if not isinstance(result, CfngenError)
                        else {"error": {"message": result.message, "hint": result.hint}}
                        for root, result in results
                    }
                },
                indent=2,
            )
            + "\n"
        )
    from cfngen._formats import drift_cases, drift_findings, render, report_cases, report_findings

    findings: list[Finding] = []
    cases: list[Case] = []
    for root, result in results:
        shown = display_path(root)
        if isinstance(result, CfngenError):
            findings.append(Finding("error", "cfngen/run-failed", str(result), path=shown))
            cases.append(Case("cfngen generate", shown, "failed", str(result), path=shown))
            continue
        reports = [result.report] if result.report is not None else []
        findings += [*report_findings(reports), *drift_findings(result, root=root)]
        cases += [
            *report_cases(reports, suite="cfngen generate"),
            *drift_cases(result, root=root, suite="cfngen generate"),
        ]
    return render(fmt, findings=findings, cases=cases, tool="cfngen generate")


def _machine(fmt: str, result: GenerateResult, root: Path) -> str:
    """The JSON document, or a CI format: the schema's findings and, with --check, one case
    per derived file (failed when out of date)."""
    if fmt == "json":
        import json

        return json.dumps(result.as_json(), indent=2) + "\n"
    from cfngen._formats import drift_cases, drift_findings, render, report_cases, report_findings

    reports = [result.report] if result.report is not None else []
    return render(
        fmt,
        findings=[*report_findings(reports), *drift_findings(result, root=root)],
        cases=[
            *report_cases(reports, suite="cfngen generate"),
            *drift_cases(result, root=root, suite="cfngen generate"),
        ],
        tool="cfngen generate",
    )
