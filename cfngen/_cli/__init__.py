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
import errno
import os
import sys
from collections.abc import Callable, Sequence

from cfngen import __version__
from cfngen._cli import (
    build,
    generate,
    init,
    invoke,
    runtime,
    schema,
    submit,
    template,
    test,
    upgrade,
    validate,
)
from cfngen._cli._output import print_error, print_warning, tolerant_streams
from cfngen._cli._progress import status_line
from cfngen._errors import CfngenError, ExitCode

__all__ = ["build_parser", "main", "print_error", "print_warning"]

Runner = Callable[[argparse.Namespace], int]

#: The commands, in the order `cfngen --help` lists them.
COMMANDS = (
    validate,
    generate,
    invoke,
    test,
    init,
    upgrade,
    template,
    runtime,
    build,
    submit,
    schema,
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
    for command in COMMANDS:
        command.add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    tolerant_streams()
    parser = build_parser()
    args = parser.parse_args(argv)
    run: Runner = args.run
    try:
        if args.command in _SILENT or (args.command == "init" and not args.no_input):
            return int(run(args))
        with status_line(args.command):
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
    except OSError as exc:
        # The machine, not cfngen: a full disk, a read-only folder. The core turns the ones
        # it expects into CfngenError; this is the net for the rest (any other OSError is a
        # bug, reported below).
        if exc.errno not in _ENVIRONMENT_ERRNOS:
            return _internal_error(exc)
        from cfngen._files import reason

        where = f"{exc.filename}: " if exc.filename else ""
        print_error(CfngenError(f"{where}{reason(exc)}", "fix that and retry"))
        return int(ExitCode.USAGE)
    except Exception as exc:  # a bug in cfngen, not a user mistake
        return _internal_error(exc)


#: Commands that show their own progress as they go (or ask questions on the terminal): no
#: status line over them.
_SILENT = frozenset({"invoke", "test", "submit"})

_ENVIRONMENT_ERRNOS = frozenset(
    getattr(errno, name)
    for name in ("ENOSPC", "EDQUOT", "EROFS", "EACCES", "EPERM", "EIO", "EMFILE", "ENFILE")
    if hasattr(errno, name)
)


def _internal_error(exc: Exception) -> int:
    if os.environ.get("CFNGEN_DEBUG"):
        raise exc
    print(
        f"cfngen: internal error: {type(exc).__name__}: {exc}\n"
        "  This is a bug in cfngen. Rerun with CFNGEN_DEBUG=1 for the traceback and "
        "report it with the command you ran.",
        file=sys.stderr,
    )
    return int(ExitCode.INTERNAL)
