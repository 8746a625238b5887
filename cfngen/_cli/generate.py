"""`cfngen generate [PROJECT]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._cli._options import add_format
from cfngen._cli._output import painter, print_warning, rendered, show
from cfngen._errors import ExitCode

if TYPE_CHECKING:
    from cfngen._generate import GenerateResult


#: The one line `cfngen --help` lists it with.
HELP = "write the files derived from the schema (models, role, SAM template, docs)"


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "generate",
        help=HELP,
        description=(
            "Validate the project's schema, then write the files derived from it: "
            "src/<package>/models.py, cfngen_runtime.py and cfngen_aws.py, resource-role.yaml, "
            "template.yml, src/requirements.txt, docs/ and example_inputs/. Each starts with a "
            "line saying cfngen generated it; a file at one of those paths that cfngen did not "
            "write is yours and is left alone, and one it wrote that you edited since stops "
            "generate (see --discard-edits and --keep-edits). handlers.py is never touched. "
            "Every file is written, or none."
        ),
    )
    p.add_argument(
        "path",
        nargs="?",
        type=Path,
        metavar="PROJECT",
        help="the project folder (default: the current folder)",
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
    from cfngen._generate import InvalidSchemaError, generate_project

    root = args.path or Path.cwd()
    try:
        result = generate_project(root, check=args.check, force=args.force, edits=args.edits)
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
