"""`cfngen module render [PROJECT]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cfngen._cli._options import add_module_options
from cfngen._cli._output import print_warning
from cfngen._errors import CfngenError, ExitCode

#: The one line `cfngen --help` lists it with.
HELP = "modules: preview the template CloudFormation makes of one"


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "module",
        help=HELP,
        description="Commands for module projects (artifact_type MODULE).",
    )
    msub = p.add_subparsers(dest="module_command", metavar="COMMAND", required=True)
    r = msub.add_parser(
        "render",
        help="print the template CloudFormation expands the module into",
        description=(
            "Print the template that uses the module as CloudFormation expands it: the "
            "fragment's resources, conditions, mappings and outputs with their logical ids "
            "prefixed by the module's logical id, parameters substituted (--param, --params, "
            "else their defaults; a parameter with neither is exit 2), and modules it uses "
            "expanded when their projects are beside this one or in CFNGEN_MODULE_PATH."
        ),
    )
    r.add_argument(
        "project",
        nargs="?",
        type=Path,
        default=None,
        metavar="PROJECT",
        help="the module project (default: the current folder)",
    )
    r.add_argument(
        "--format", choices=("yaml", "json"), default="yaml", help="yaml (default) or json"
    )
    add_module_options(r, r.add_argument_group("how the module is used"))
    r.set_defaults(run=run_render)


def run_render(args: argparse.Namespace) -> int:
    from cfngen._kinds.module._run import render_project
    from cfngen._project import load_project

    project = load_project(args.project or Path.cwd())
    if project.kind.name != "module":
        raise CfngenError(
            f"{project.root}: a {project.kind.label} project, not a module",
            "run it in a project whose .rpdk-config says artifact_type MODULE",
        )
    rendered = render_project(
        project, logical_id=args.logical_id, params=args.params, params_file=args.params_file
    )
    for warning in rendered.warnings:
        print_warning(warning)
    sys.stdout.write(rendered.text(args.format))
    return ExitCode.OK
