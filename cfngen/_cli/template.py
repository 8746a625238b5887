"""`cfngen template sync`."""

from __future__ import annotations

import argparse

from cfngen._cli._output import rendered, show
from cfngen._errors import ExitCode

#: The one line `cfngen --help` lists it with.
HELP = "the local cache of project templates"


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "template",
        help=HELP,
        description="Manage the local git cache that cfngen (and copier) render projects from.",
    )
    tsub = p.add_subparsers(dest="template_command", metavar="COMMAND", required=True)
    s = tsub.add_parser(
        "sync",
        help="build the template cache, so `cfngen upgrade` and `copier update` work here",
        description=(
            "Put every project template version this cfngen ships into the local git cache "
            "(~/.cfngen/templates/<kind>, or $CFNGEN_HOME/templates/<kind>). Run it once on a "
            "fresh machine or in CI before a plain `copier update --defaults`."
        ),
    )
    s.set_defaults(run=run_sync)


def run_sync(args: argparse.Namespace) -> int:
    from cfngen._init._template_cache import sync, template_kinds

    text = rendered()
    for kind in template_kinds():
        sync(kind).render(text)
    show(text)
    return ExitCode.OK
