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
    p.add_argument(
        "--example",
        action="store_true",
        help="also validate the example resource schema that ships with cfngen",
    )
    p.set_defaults(run=_run_validate)


def _run_validate(args: argparse.Namespace) -> int:
    from cfngen._validate import (
        EXAMPLE_SCHEMA,
        render_json,
        render_summary,
        render_text,
        validate_paths,
    )

    paths = list(args.paths)
    if args.example:
        paths.append(EXAMPLE_SCHEMA)
    reports = validate_paths(paths or [Path.cwd()], strict=args.strict)
    if args.format == "json":
        sys.stdout.write(render_json(reports))
    else:
        sys.stdout.write(render_text(reports, colour=use_colour(sys.stdout)))
        sys.stdout.flush()
        sys.stderr.write(render_summary(reports))
    return ExitCode.OK if all(r.valid for r in reports) else ExitCode.FAILED


# --------------------------------------------------------------------------- entry point

_COMMANDS: tuple[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None], ...] = (
    _add_validate,
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
