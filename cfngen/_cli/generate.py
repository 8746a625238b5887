"""`cfngen generate [PROJECT]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cfngen._cli._output import painter, rendered, show
from cfngen._errors import ExitCode


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "generate",
        help="write the files derived from the schema (models, role, SAM template, docs)",
        description=(
            "Validate the project's schema, then write the files derived from it: "
            "src/<package>/models.py and cfngen_runtime.py, resource-role.yaml, template.yml, "
            "src/requirements.txt, docs/ and example_inputs/. Each starts with a line saying "
            "cfngen generated it; a file at one of those paths without that line is yours "
            "and is left alone. handlers.py is never touched."
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
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cfngen._generate import InvalidSchemaError, generate_project
    from cfngen._validate import render_text

    try:
        result = generate_project(args.path or Path.cwd(), check=args.check, force=args.force)
    except InvalidSchemaError as error:
        sys.stderr.write(render_text([error.report], painter(sys.stderr)))
        raise
    text = rendered()
    result.render(text, check=args.check)
    show(text)
    return ExitCode.FAILED if result.failed(check=args.check) else ExitCode.OK
