"""`cfngen upgrade [DIR]`."""

from __future__ import annotations

import argparse
from pathlib import Path

from cfngen._cli._output import print_warning, rendered, show
from cfngen._errors import ExitCode

#: The one line `cfngen --help` lists it with.
HELP = "merge this cfngen's project template into a project, keeping your edits"


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "upgrade",
        help=HELP,
        description=(
            "Move a project made by `cfngen init` to the template this cfngen ships: a "
            "three-way merge (your edits stay; conflict markers only where you and the "
            "template changed the same lines), then `cfngen generate`. Needs a clean git tree "
            "and commits nothing: review with `git diff`."
        ),
    )
    p.add_argument(
        "dir",
        nargs="?",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="the project folder (default: the current folder)",
    )
    p.add_argument(
        "--recopy",
        action="store_true",
        help="last resort: render the template afresh over the project, replacing your edits "
        "to template files (the schema, callback-context.json and inputs/ are kept)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cfngen._init._upgrade import upgrade_project

    if args.recopy:
        print_warning(
            "--recopy renders the template afresh: your edits to files that came from it "
            "(handlers.py, tests, README, ...) are replaced; the schema, "
            "callback-context.json and inputs/ are kept. Review with `git diff` and take back "
            "what you need with `git checkout -p`."
        )
    result = upgrade_project(args.dir, recopy=args.recopy)
    text = rendered()
    result.render(text)
    show(text)
    return ExitCode.FAILED if result.failed else ExitCode.OK
