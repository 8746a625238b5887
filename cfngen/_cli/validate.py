"""`cfngen validate [PATH ...]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cfngen._cli._options import add_format
from cfngen._cli._output import painter, quiet
from cfngen._cli._values import region
from cfngen._errors import ExitCode

#: The one line `cfngen --help` lists it with.
HELP = "check resource schemas and report every problem at once"


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "validate",
        help=HELP,
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
        help="schema files, templates or project folders (default: the project in the current "
        "folder); a template is what it declares: a custom resource's, a module project's "
        "fragment, else a stack (said, not checked)",
    )
    add_format(p, ci=True)
    p.add_argument("--strict", action="store_true", help="treat warnings as errors")
    p.add_argument(
        "--owned",
        action="store_true",
        help="check only the files given that a kind owns (a project's schema, with "
        ".rpdk-config standing for its project; a module's fragments; a custom resource's "
        "template and properties schemas) and leave the others alone: what the pre-commit "
        "hook passes, every changed JSON and YAML file",
    )
    compat = p.add_argument_group("compatibility with an earlier version")
    compat.add_argument(
        "--against",
        metavar="REF",
        help="also report every change since REF that breaks existing stacks or templates, and "
        "the version step the change needs (major, minor or patch): REF is a git revision "
        "(HEAD~1, main, v1.2.0), an earlier schema file, or `registry` (the registered "
        "schema; needs --profile). Exit 1 when a change breaks",
    )
    compat.add_argument(
        "--accept",
        action="append",
        default=[],
        metavar="POINTER",
        help="with --against: a possibly breaking change at POINTER (a changed pattern, "
        "oneOf) is intended and compatible; counted as minor (repeatable)",
    )
    compat.add_argument(
        "--profile", metavar="PROFILE", help="with --against registry: the AWS profile to use"
    )
    compat.add_argument(
        "--region", type=region, metavar="REGION", help="with --against registry: the region"
    )
    p.add_argument(
        "--example",
        action="store_true",
        help="also validate the example resource schema that ships with cfngen",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.against is not None:
        from cfngen._cli._validate_against import run_against

        return run_against(args)
    if args.accept or args.profile or args.region:
        from cfngen._errors import CfngenError

        raise CfngenError("--accept, --profile and --region go with --against", "add --against REF")
    from cfngen._validate import render_json, render_summary, render_text, validate_paths

    given = args.paths
    if args.owned and given:
        from cfngen._validate._owned import owned

        given = owned(given)
    paths = _project_paths(given)
    # No path given means the project here; paths given, none of them a kind's, mean nothing.
    if not args.paths and not args.example:
        paths = [Path.cwd()]
    reports = validate_paths(paths, strict=args.strict, examples=args.example)
    if args.format != "json" and not quiet():
        for report in reports:
            if report.taken_for is not None:
                print(f"cfngen: {report.path}: {report.taken_for}", file=sys.stderr)
    if args.format == "json":
        sys.stdout.write(render_json(reports))
    elif args.format != "text":
        from cfngen._formats import render, report_cases, report_findings

        sys.stdout.write(
            render(
                args.format,
                findings=report_findings(reports),
                cases=report_cases(reports),
                tool="cfngen validate",
            )
        )
        if not quiet():
            sys.stderr.write(render_summary(reports))
    else:
        sys.stdout.write(render_text(reports, painter(sys.stdout)))
        sys.stdout.flush()
        if not quiet():
            sys.stderr.write(render_summary(reports))
    return ExitCode.OK if all(r.valid for r in reports) else ExitCode.FAILED


def _project_paths(given: list[Path]) -> list[Path]:
    """A `.rpdk-config` stands for its project (pre-commit passes it when it changes); a file
    inside a project also given whole is checked once."""
    from cfngen._project import CONFIG_FILE

    paths = [path.parent if path.name == CONFIG_FILE else path for path in given]
    folders = {path.resolve() for path in paths if path.is_dir()}
    seen: set[Path] = set()
    kept = []
    for path in paths:
        key = path.resolve()
        if key in seen or (not path.is_dir() and key.parent in folders):
            continue
        seen.add(key)
        kept.append(path)
    return kept
