"""`cfngen drift explain POINTER TEMPLATE_VALUE READ_VALUE`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cfngen._cli._options import add_format
from cfngen._cli._output import painter
from cfngen._errors import CfngenError, ExitCode

#: The one line `cfngen --help` lists it with.
HELP = "resources: how drift detection reads a property through propertyTransform"


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "drift",
        help=HELP,
        description="Commands about drift detection of resource types.",
    )
    dsub = p.add_subparsers(dest="drift_command", metavar="COMMAND", required=True)
    e = dsub.add_parser(
        "explain",
        help="judge a template value and a read value through the schema's propertyTransform",
        description=(
            "Evaluate each $OR alternative of the propertyTransform for POINTER on the "
            "template's model and on the property's parent object, and say whether each makes "
            "READ_VALUE in sync with TEMPLATE_VALUE: equal, or matching the result read as an "
            "anchored pattern (how AWS's own transforms are written; inferred, not documented). "
            "Values are text where the schema declares a string, else JSON. Exit 0 IN_SYNC, "
            "1 MODIFIED, 2 usage."
        ),
    )
    e.add_argument("pointer", metavar="POINTER", help="the property, e.g. /properties/Rules/*/Key")
    e.add_argument("template", metavar="TEMPLATE_VALUE", help="the value the template gives")
    e.add_argument("read", metavar="READ_VALUE", help="the value the read handler returns")
    e.add_argument(
        "--schema",
        type=Path,
        default=None,
        metavar="PATH",
        help="a resource schema file or a project folder (default: the project here)",
    )
    e.add_argument(
        "--model",
        type=Path,
        default=None,
        metavar="FILE",
        help="a JSON file with the rest of the template's model, for transforms that read "
        "other properties",
    )
    add_format(e)
    e.set_defaults(run=run_explain)


def run_explain(args: argparse.Namespace) -> int:
    from cfngen._kinds.resource._drift_explain import explain_drift
    from cfngen._schema import load_object

    model = None
    if args.model is not None:
        model = load_object(args.model, "give the template's model as one JSON object")
    explanation = explain_drift(
        _schema_path(args.schema or Path.cwd()),
        args.pointer,
        args.template,
        args.read,
        model=model,
    )
    if args.format == "json":
        sys.stdout.write(json.dumps(explanation.as_json(), indent=2) + "\n")
    else:
        sys.stdout.write(explanation.render(painter(sys.stdout)))
    return ExitCode.OK if explanation.in_sync else ExitCode.FAILED


def _schema_path(path: Path) -> Path:
    if not path.is_dir():
        if not path.exists():
            raise CfngenError(f"{path}: no such file", "give a resource schema or a project folder")
        return path
    from cfngen._project import load_project

    project = load_project(path)
    if project.kind.name != "resource":
        raise CfngenError(
            f"{project.root}: a {project.kind.label} project; drift detection is for resource "
            "types",
            "give a resource type's schema with --schema",
        )
    return project.schema_path
