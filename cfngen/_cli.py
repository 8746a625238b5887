"""The command line: parse options, call one core function, render its result or error.

Nothing else lives here. Core modules never print or exit; they return values or raise
CfngenError. Heavy libraries are imported inside the command that needs them so that
`cfngen --help` stays fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from cfngen import __version__
from cfngen._errors import CfngenError, ExitCode

Runner = Callable[[argparse.Namespace], int]


# --------------------------------------------------------------------------- output


def use_colour(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


_STYLES = {"error": "1;31", "warning": "1;33", "hint": "36", "ok": "32", "bold": "1", "dim": "2"}


def paint(text: str, style: str, stream: TextIO) -> str:
    if not use_colour(stream):
        return text
    return f"\033[{_STYLES[style]}m{text}\033[0m"


def print_error(error: CfngenError, stream: TextIO | None = None) -> None:
    stream = stream or sys.stderr
    print(f"cfngen: {paint('error', 'error', stream)}: {error.message}", file=stream)
    if error.hint:
        print(f"  {paint('hint', 'hint', stream)}: {error.hint}", file=stream)


def print_warning(message: str, stream: TextIO | None = None) -> None:
    stream = stream or sys.stderr
    print(f"cfngen: {paint('warning', 'warning', stream)}: {message}", file=stream)


# --------------------------------------------------------------------------- validate


def _add_validate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "validate",
        help="check resource schemas and report every problem at once",
        description=(
            "Check resource schemas: JSON syntax, duplicate keys, structure, and the semantic "
            "mistakes the official validator misses. Every problem is reported with its JSON "
            "pointer, line and column, and a hint."
        ),
    )
    p.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="schema files or project folders (default: the project in the current folder)",
    )
    p.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text (default) or one JSON document on stdout",
    )
    p.add_argument("--strict", action="store_true", help="treat warnings as errors")
    p.set_defaults(run=_run_validate)


def _run_validate(args: argparse.Namespace) -> int:
    from cfngen._validate import render_json, render_text, validate_paths

    reports = validate_paths(args.paths or [Path.cwd()], strict=args.strict)
    if args.format == "json":
        sys.stdout.write(render_json(reports))
    else:
        sys.stdout.write(render_text(reports, colour=use_colour(sys.stdout)))
    return ExitCode.OK if all(r.valid for r in reports) else ExitCode.FAILED


# --------------------------------------------------------------------------- generate


def _add_generate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    p.set_defaults(run=_run_generate)


def _run_generate(args: argparse.Namespace) -> int:
    from cfngen._generate import InvalidSchemaError, generate_project

    try:
        result = generate_project(args.path or Path.cwd(), check=args.check, force=args.force)
    except InvalidSchemaError as error:
        from cfngen._validate import render_text

        sys.stdout.write(render_text([error.report], colour=use_colour(sys.stdout)))
        raise
    if result.report is not None and result.report.diagnostics:
        from cfngen._validate import render_text

        sys.stdout.write(render_text([result.report], colour=use_colour(sys.stdout)))
    for path in result.skipped:
        why = (
            "it is not what cfngen last wrote there"
            if path.suffix == ".json"
            else "it has no cfngen header"
        )
        print(
            f"cfngen: left {path.as_posix()} alone: {why}, so it is yours "
            "(delete it to have cfngen generate it)",
            file=sys.stderr,
        )
    for message in result.warnings:
        print_warning(message)
    if args.check:
        for path in result.drift:
            print(f"out of date: {path.as_posix()}")
        if result.drift:
            print(
                f"cfngen: {len(result.drift)} derived file(s) out of date; "
                "run `cfngen generate` to refresh them",
                file=sys.stderr,
            )
            return ExitCode.FAILED
        print("cfngen: derived files are up to date")
        return ExitCode.OK
    for path in result.written:
        print(f"wrote {path.as_posix()}")
    for path in result.removed:
        print(f"removed {path.as_posix()}")
    if result.up_to_date:
        print("cfngen: nothing changed since the last generate (use --force to regenerate)")
    else:
        print(
            f"cfngen: {len(result.written)} written, {len(result.unchanged)} unchanged, "
            f"{len(result.removed)} removed, {len(result.skipped)} left to you"
        )
    return ExitCode.OK


# --------------------------------------------------------------------------- entry point

_COMMANDS: tuple[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None], ...] = (
    _add_validate,
    _add_generate,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cfngen",
        description=(
            "Build AWS CloudFormation extensions: validate schemas, generate models, "
            "run the handler contract in-process."
        ),
    )
    parser.add_argument("--version", action="version", version=f"cfngen {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in _COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    run: Runner = args.run
    try:
        return int(run(args))
    except CfngenError as error:
        print_error(error)
        return int(error.exit_code)
    except KeyboardInterrupt:
        print("cfngen: interrupted", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        # `cfngen validate | head`: the reader left; that is not our failure.
        sys.stderr.close()
        return int(ExitCode.OK)
    except Exception as exc:  # a bug in cfngen, not a user mistake
        if os.environ.get("CFNGEN_DEBUG"):
            raise
        print(
            f"cfngen: internal error: {type(exc).__name__}: {exc}\n"
            "  This is a bug in cfngen. Rerun with CFNGEN_DEBUG=1 for the traceback and "
            "report it with the command you ran.",
            file=sys.stderr,
        )
        return int(ExitCode.INTERNAL)
