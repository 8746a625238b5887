"""`cfngen schema export [PROJECT]`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cfngen._cli._options import add_format
from cfngen._errors import ExitCode

#: The one line `cfngen --help` lists it with.
HELP = "cfngen's meta-schemas for your editor"


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "schema",
        help=HELP,
        description="cfngen's meta-schemas as JSON Schemas that editors read.",
    )
    ssub = p.add_subparsers(dest="schema_command", metavar="COMMAND", required=True)
    e = ssub.add_parser(
        "export",
        help="write the meta-schemas into the project (.cfngen/schemas/) for editors",
        description=(
            "Write cfngen's meta-schemas (resource, hook, type configuration, callback "
            "context) as single-file JSON Schemas into PROJECT/.cfngen/schemas/, where the "
            ".vscode/settings.json and .idea/jsonSchemas.xml that `cfngen init` writes point: "
            "VS Code and JetBrains IDEs then validate and complete the schema as you type, "
            "offline. Run it again after upgrading cfngen."
        ),
    )
    e.add_argument(
        "project",
        nargs="?",
        type=Path,
        default=None,
        metavar="PROJECT",
        help="the project folder (default: the current folder)",
    )
    e.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 when a file is out of date"
    )
    add_format(p=e)
    e.set_defaults(run=run_export)


def run_export(args: argparse.Namespace) -> int:
    from cfngen._editor import export_schemas
    from cfngen._errors import CfngenError

    root = args.project or Path.cwd()
    if not root.is_dir():
        raise CfngenError(f"{root}: no such folder", "give the project folder")
    result = export_schemas(root, check=args.check)
    failed = args.check and bool(result.written)
    if args.format == "json":
        sys.stdout.write(json.dumps(result.as_json(), indent=2) + "\n")
    else:
        verb = "out of date" if args.check else "wrote"
        for path in result.written:
            print(f"{verb}: {path}" if args.check else f"{verb} {path}")
        if not result.written:
            print("cfngen: the exported schemas are up to date")
    return ExitCode.FAILED if failed else ExitCode.OK
