"""`cfngen test [PROJECT]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cfngen._cli._options import add_format, add_handler_options, add_kind_options, kind_options
from cfngen._cli._output import painter, print_warning
from cfngen._errors import ExitCode


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "test",
        help="check the handler contract in-process, offline, in seconds",
        description=(
            "Run the resource handler contract tests (the official contract_* tests and the "
            "rules they miss) in this process, with every AWS call answered by moto. Inputs "
            "come from inputs/inputs_N_{create,update,invalid}.json, as for `cfn test`, else "
            "are generated from the schema. For a hook, its contract; for a custom resource, "
            "its lifecycle (create, update, replacement, rollbacks, duplicate delivery, an "
            "expired ResponseURL) against a local ResponseURL. Exit 0 when no test failed, 1 "
            "otherwise."
        ),
    )
    p.add_argument(
        "project",
        nargs="?",
        type=Path,
        default=None,
        metavar="PROJECT",
        help="the project folder (default: the current folder)",
    )
    p.add_argument(
        "-k",
        dest="keyword",
        default=None,
        metavar="EXPR",
        help=(
            "run the tests whose names match EXPR: words (substrings of the name) joined "
            'with and, or, not and parentheses, as pytest -k; e.g. -k "delete and not list"'
        ),
    )
    add_format(
        p,
        text_help="text (default: each test's line, then the summary, on stdout) or one JSON "
        "document on stdout (each test's line goes to stderr)",
    )
    add_handler_options(p, after="fail an action after")
    add_kind_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cfngen._contract import run_contract_tests
    from cfngen._contract._results import TestResult, render_json, render_progress, render_summary

    # Each test's line and the summary on one stream, so they stay in order when both are
    # redirected; with --format json, stdout holds only the document.
    lines = sys.stderr if args.format == "json" else sys.stdout
    paint_lines = painter(lines)

    def progress(result: TestResult) -> None:
        lines.write(render_progress(result, paint_lines))
        lines.flush()

    result = run_contract_tests(
        args.project or Path.cwd(),
        keyword=args.keyword,
        enforce_timeout=args.enforce_timeout,
        max_reinvoke=args.max_reinvoke,
        max_invocations=args.max_invocations,
        region=args.region,
        on_result=progress,
        **kind_options(args),
    )
    for note in result.notes:
        print_warning(note)
    if args.format == "json":
        sys.stdout.write(render_json(result))
    else:
        sys.stdout.write(render_summary(result, painter(sys.stdout)))
    return ExitCode.OK if result.ok else ExitCode.FAILED
