"""`cfngen runtime` and `cfngen runtime set RUNTIME`: the command line over `_runtime_set`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._cli._output import paint, print_warning
from cfngen._completion import offer
from cfngen._errors import ExitCode

if TYPE_CHECKING:
    from cfngen._languages._lambda_runtimes import LambdaRuntime
    from cfngen._languages._python_runtimes import Runtime
    from cfngen._render import Style
    from cfngen._runtime_languages import LanguageRuntimeReport

_DIFF_STYLES: dict[str, Style] = {"+": "ok", "-": "error", "@": "hint"}
_PHASES = {
    "supported": "supported",
    "deprecated": "deprecated",
    "create-blocked": "no new functions",
    "blocked": "blocked",
}


#: The one line `cfngen --help` lists it with.
HELP = "show the project's Lambda runtime and Lambda's dates for it; `set` moves it"


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "runtime",
        help=HELP,
        description=(
            "Show the Lambda runtime the project declares (.rpdk-config and template.yml) with "
            "Lambda's end-of-support dates (for Node, Go and Java: cfn-lint's table of them). "
            "`cfngen runtime set python3.12` moves the project: it rewrites .rpdk-config "
            '"runtime" and "language" and every Python Runtime: in template.yml (nothing else '
            "in either file), prints the diff and regenerates. In a TypeScript, Go or Java "
            'project it sets "runtime" and the language\'s Runtime: values only '
            "(e.g. nodejs22.x, provided.al2023, java21)."
        ),
    )
    p.add_argument(
        "--project",
        type=Path,
        default=None,
        metavar="DIR",
        help="the project folder (default: the current folder)",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when the runtime is deprecated, blocked or deprecated within 180 days",
    )
    p.set_defaults(run=_run_show)
    rsub = p.add_subparsers(dest="runtime_command", metavar="COMMAND")
    s = rsub.add_parser(
        "set",
        help="move the project to another Lambda runtime, then regenerate",
        description=(
            'Set .rpdk-config "runtime" and "language" (python3.13 and python3.14 record '
            "python312, the newest the official Python plugin knows) and every Python "
            "Runtime: in template.yml, keeping every other byte; print the diff; then run "
            "`cfngen generate`. A runtime Lambda no longer creates functions on is refused; a "
            "deprecated one is allowed with a warning. If anything fails, both files are left "
            "as they were."
        ),
    )
    offer(
        s.add_argument(
            "name", metavar="RUNTIME", help="e.g. python3.12 (or python312), nodejs22.x, java21"
        ),
        _runtime_names,
    )
    s.add_argument("--project", type=Path, default=argparse.SUPPRESS, metavar="DIR")
    s.set_defaults(run=_run_set)


def _runtime_names() -> tuple[str, ...]:
    from cfngen._languages._lambda_runtimes import GO, JAVA, NODE
    from cfngen._languages._python_runtimes import RUNTIMES

    others = (row.name for family in (NODE, GO, JAVA) for row in family.rows())
    return (*(row.name for row in RUNTIMES), *others)


def _describe(row: Runtime | LambdaRuntime, phase: str | None) -> str:
    then = f"no new functions from {row.create_blocked_on}, no updates from {row.update_blocked_on}"
    if phase == "deprecated":
        return f"deprecated since {row.deprecated_on}; {then}"
    if phase == "create-blocked":
        return (
            f"blocked for new functions since {row.create_blocked_on}; "
            f"no updates from {row.update_blocked_on}"
        )
    if phase == "blocked":
        return f"blocked since {row.update_blocked_on}: functions on it can no longer be updated"
    return f"supported until {row.deprecated_on}; {then}"


def _today() -> str:
    import datetime

    return datetime.date.today().isoformat()


def _run_show(args: argparse.Namespace) -> int:
    from cfngen._runtime_set import RuntimeReport, show_runtime

    today = _today()
    report = show_runtime(args.project or Path.cwd(), today)
    if not isinstance(report, RuntimeReport):  # TypeScript, Go or Java: Lambda's table
        return _show_language(report, today, strict=args.strict)
    out = sys.stdout
    declared = report.runtime or "(none)"
    if report.config_file is not None:
        print(f"{report.config_file}: runtime {declared}, language {report.language or '(none)'}")
    if report.template_runtimes:
        values = ", ".join(sorted(set(report.template_runtimes)))
        count = len(report.template_runtimes)
        print(f"{report.template_file}: Runtime {values} ({count} function(s))")
    row = report.row
    if report.foreign is not None:
        print(f"{declared}: a {report.foreign} runtime; cfngen's table is Python's")
        return ExitCode.OK
    if row is None:
        print_warning(f"{declared} is not a runtime cfngen knows")
    else:
        style: Style = "ok" if report.phase == "supported" else "warning"
        print(f"Lambda: {row.name} is {paint(_describe(row, report.phase), style, out)}")
    newest = report.choices[0][0]
    if row is None or row.name != newest.name:
        print(f"Move with: cfngen runtime set {newest.name}")
    print(f"\nRuntimes cfngen knows (Lambda's dates; today is {today}):")
    for runtime, phase in report.choices:
        mark = "*" if row is not None and runtime.name == row.name else " "
        print(
            f" {mark} {runtime.name:<11} {_PHASES[phase]:<17} deprecated {runtime.deprecated_on}"
            f", no new functions {runtime.create_blocked_on}, no updates "
            f"{runtime.update_blocked_on}"
        )
    behind = row is None or report.phase != "supported"
    return ExitCode.FAILED if args.strict and behind else ExitCode.OK


def _show_language(report: LanguageRuntimeReport, today: str, *, strict: bool) -> int:
    out = sys.stdout
    declared = report.runtime or "(none)"
    print(f"{report.config_file}: runtime {declared}, {report.language} handlers")
    if report.template_runtimes:
        values = ", ".join(sorted(set(report.template_runtimes)))
        count = len(report.template_runtimes)
        print(f"{report.template_file}: Runtime {values} ({count} function(s))")
    row = report.row
    if row is not None:
        style: Style = "ok" if not report.warnings else "warning"
        print(f"Lambda: {row.name} is {paint(_describe(row, report.phase), style, out)}")
    for warning in report.warnings:
        print_warning(warning)
    print(f"\n{report.language} runtimes (Lambda's dates from cfn-lint; today is {today}):")
    for runtime, phase in report.choices:
        mark = "*" if row is not None and runtime.name == row.name else " "
        print(
            f" {mark} {runtime.name:<15} {_PHASES[phase]:<17} deprecated "
            f"{runtime.deprecated_on or '-'}, no new functions {runtime.create_blocked_on or '-'}"
            f", no updates {runtime.update_blocked_on or '-'}"
        )
    return ExitCode.FAILED if strict and report.warnings else ExitCode.OK


def _run_set(args: argparse.Namespace) -> int:
    from cfngen._runtime_set import set_runtime

    change = set_runtime(args.project or Path.cwd(), args.name, _today())
    for warning in change.warnings:
        print_warning(warning)
    if not change.diffs:
        print(f"cfngen: the project is on {change.runtime.name} already; nothing changed")
        return ExitCode.OK
    out = sys.stdout
    for diff in change.diffs.values():
        for line in diff.splitlines():
            style = _DIFF_STYLES.get(line[:1])
            out.write(
                (paint(line, style, out) if style and line[:3] not in ("+++", "---") else line)
                + "\n"
            )
    for note in change.notes:
        print(f"cfngen: {note}")
    generated = change.generated
    if generated is not None:
        # generate repeats the deprecation warning printed above
        said = f"Lambda deprecated {change.runtime.name}"
        for warning in generated.warnings:
            if said not in warning:
                print_warning(warning)
    print(
        f"cfngen: moved to {change.runtime.name} ({', '.join(change.diffs)} changed)"
        + (f"; regenerated {len(generated.written)} file(s)" if generated is not None else "")
    )
    return ExitCode.OK
