"""The command line: one module per command, each parsing its options, calling one core function
and rendering its result (cfngen/_cli/<command>.py: `add` declares the options, `run` runs).

Nothing else lives here. Core modules never print or exit; they return values or raise
CfngenError, and result types render themselves (cfngen/_render.py). How output is coloured and
which stream gets what is decided once, in `_output`; options several commands share are
declared once, in `_options`. Heavy libraries are imported inside the command that needs them,
so that `cfngen --help` stays fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from cfngen import __version__
from cfngen._cli import generate, init, invoke, template, test, upgrade, validate
from cfngen._cli._output import print_error, print_warning
from cfngen._errors import CfngenError, ExitCode

__all__ = ["build_parser", "main", "print_error", "print_warning"]

Runner = Callable[[argparse.Namespace], int]

#: The commands, in the order `cfngen --help` lists them.
COMMANDS = (validate, generate, invoke, test, init, upgrade, template)


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
    for command in COMMANDS:
        command.add(sub)
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
