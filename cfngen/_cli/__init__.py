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
import itertools
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from cfngen import _config
from cfngen._cli._ci_report import Watched, ci_format, ci_report
from cfngen._cli._output import configure, print_error, print_warning, tolerant_streams
from cfngen._cli._parser import COMMANDS, UsageError, build_parser, command_in, runnable
from cfngen._cli._status_line import status_line
from cfngen._errors import CfngenError, ExitCode
from cfngen._render import CI_FORMATS

__all__ = ["COMMANDS", "UsageError", "build_parser", "main", "print_error", "print_warning"]

Runner = Callable[[argparse.Namespace], int]


def _wants_json(argv: Sequence[str]) -> bool:
    """--format json anywhere on the command line: errors, usage errors included, are then a
    JSON document on stdout too."""
    args = list(argv)
    return "--format=json" in args or ("--format", "json") in set(itertools.pairwise(args))


def main(argv: Sequence[str] | None = None) -> int:
    tolerant_streams()
    # Every output passes here, whatever wrote it (a report, a handler's captured log line, a
    # traceback): secrets a run registered are masked in all of it (cfngen/_redact.py).
    from cfngen._redact import Scrubbed, forget_all

    forget_all()  # a command's secrets are its own (several run in one process under tests)
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Scrubbed(streams[0]), Scrubbed(streams[1])
    try:
        return _main(argv)
    finally:
        if isinstance(sys.stdout, Scrubbed):
            sys.stdout = streams[0]
        if isinstance(sys.stderr, Scrubbed):
            sys.stderr = streams[1]


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        config_path, settings = _config.load(Path.cwd())
    except CfngenError as error:
        if _wants_json(argv):
            return _print_json(_error_doc(error.message, error.hint, error.exit_code), 2)
        print_error(error)
        return int(error.exit_code)
    if _wants_json(argv):
        return _main_json(argv, config_path, settings)
    ci = ci_format(argv)
    try:
        args = _parse(argv, config_path, settings)
    except UsageError as error:
        # argparse's own words and exit: callers (and tests) see SystemExit(2) as before.
        error.parser.print_usage(sys.stderr)
        ci_report(ci, command_in(argv), str(error), ExitCode.USAGE)
        error.parser.exit(ExitCode.USAGE, f"{error.parser.prog}: error: {error.message}\n")
    except CfngenError as error:
        print_error(error)
        return ci_report(ci, command_in(argv), str(error), error.exit_code)
    return _run(args)


def _parse(
    argv: Sequence[str], config_path: Path | None, settings: dict[str, object]
) -> argparse.Namespace:
    # Settings are checked against every command that takes them, whichever runs.
    parser = build_parser(None if settings else command_in(argv))
    if config_path is not None:
        _config.apply(runnable(parser), config_path, dict(settings))
    args = parser.parse_args(argv)
    configure(colour=getattr(args, "color", "auto"), quiet=getattr(args, "quiet", False))
    if getattr(args, "verbose", False):
        import logging

        logging.basicConfig(
            stream=sys.stderr, level=logging.INFO, format="cfngen: %(name)s: %(message)s"
        )
    return args


def _run(args: argparse.Namespace) -> int:
    fmt = getattr(args, "format", None)
    watched = Watched(sys.stdout) if fmt in CI_FORMATS else None

    def failed(message: str, code: int) -> int:
        # A CI format promised a report: a run that failed before writing one still does.
        if watched is not None and not watched.wrote:
            return ci_report(fmt, args.command, message, code)
        return code

    try:
        if watched is not None:
            sys.stdout = watched
        try:
            return _run_raising(args)
        finally:
            # Only when nothing wrapped it since (the handlers' output capture may stay, for a
            # hung handler that wakes up later): it passes writes through to the stream.
            if watched is not None and sys.stdout is watched:
                sys.stdout = watched.stream
    except CfngenError as error:
        print_error(error)
        return failed(str(error), error.exit_code)
    except KeyboardInterrupt:
        print("cfngen: interrupted", file=sys.stderr)
        return failed("interrupted", ExitCode.INTERRUPTED)
    except BrokenPipeError:
        # `cfngen validate | head`: the reader left; that is not our failure.
        sys.stderr.close()
        return int(ExitCode.OK)
    except OSError as exc:
        # The machine, not cfngen: a full disk, a read-only folder. The core turns the ones
        # it expects into CfngenError; this is the net for the rest (any other OSError is a
        # bug, reported below).
        if exc.errno not in _ENVIRONMENT_ERRNOS:
            return failed(_internal_message(exc), _internal_error(exc))
        problem = _environment_error(exc)
        print_error(problem)
        return failed(str(problem), ExitCode.USAGE)
    except Exception as exc:  # a bug in cfngen, not a user mistake
        return failed(_internal_message(exc), _internal_error(exc))


def _internal_message(exc: Exception) -> str:
    return f"internal error: {type(exc).__name__}: {exc}"


def _environment_error(exc: OSError) -> CfngenError:
    from cfngen._files import reason

    where = f"{exc.filename}: " if exc.filename else ""
    return CfngenError(f"{where}{reason(exc)}", "fix that and retry")


def _main_json(
    argv: Sequence[str], config_path: Path | None = None, settings: dict[str, object] | None = None
) -> int:
    """`--format json`: exactly one JSON document on stdout, whatever happens. A command that
    writes its own document (validate, test, generate, ...) has it passed through; another's
    text becomes `output`; an error is `{"error": {"message", "hint"}}` (with the command's
    document, if it wrote one, as `result`). Warnings and progress stay on stderr."""
    import io
    from contextlib import redirect_stdout

    captured = io.StringIO()
    doc: dict[str, object] | None = None
    code: int
    try:
        with redirect_stdout(captured):
            args = _parse(argv, config_path, settings or {})
    except CfngenError as error:
        doc = _error_doc(error.message, error.hint, error.exit_code)
        code = int(error.exit_code)
    except UsageError as error:
        doc = _error_doc(str(error), f"see `{error.parser.prog} --help`", ExitCode.USAGE)
        code = int(ExitCode.USAGE)
    except SystemExit as exit_:  # --help or --version: their text, as output
        code = exit_.code if isinstance(exit_.code, int) else 0
        doc = {"exit_code": code, "output": captured.getvalue().splitlines()}
    else:
        try:
            with redirect_stdout(captured):
                code = _run_raising(args)
        except CfngenError as error:
            doc = _error_doc(error.message, error.hint, error.exit_code)
            code = int(error.exit_code)
        except KeyboardInterrupt:
            doc = _error_doc("interrupted", None, ExitCode.INTERRUPTED)
            code = int(ExitCode.INTERRUPTED)
        except OSError as exc:
            if exc.errno not in _ENVIRONMENT_ERRNOS:
                code = _internal_error(exc)
                doc = _error_doc(f"internal error: {type(exc).__name__}: {exc}", None, code)
            else:
                problem = _environment_error(exc)
                doc = _error_doc(problem.message, problem.hint, ExitCode.USAGE)
                code = int(ExitCode.USAGE)
        except Exception as exc:  # a bug in cfngen, not a user mistake
            code = _internal_error(exc)
            doc = _error_doc(
                f"internal error: {type(exc).__name__}: {exc}",
                "this is a bug in cfngen; rerun with CFNGEN_DEBUG=1 for the traceback",
                code,
            )
    text = captured.getvalue()
    written = _one_document(text)
    if doc is None:
        if written is not None:
            sys.stdout.write(text)
            return code
        doc = {"exit_code": code, "output": text.splitlines()}
    elif written is not None and "error" in doc:
        doc["result"] = written
    return _print_json(doc, code)


def _print_json(doc: dict[str, object], code: int) -> int:
    import json

    try:
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        sys.stderr.close()
    return code


def _no_status(args: argparse.Namespace) -> bool:
    return (
        args.command in _SILENT
        or (args.command == "init" and not args.no_input)
        or getattr(args, "quiet", False)
    )


def _run_raising(args: argparse.Namespace) -> int:
    run: Runner = args.run
    try:
        if _no_status(args):
            return int(run(args))
        with status_line(args.command):
            return int(run(args))
    except ModuleNotFoundError as exc:
        from cfngen._extras import as_missing_extra

        problem = as_missing_extra(exc, f"`cfngen {args.command}`")
        if problem is None:
            raise
        raise problem from exc
    finally:
        # What cfngen's home and caches had to say (a cache bypassed, a damaged entry made
        # again), once each, whatever the command.
        from cfngen._files import take_notes

        for note in take_notes():
            print_warning(note)


def _error_doc(message: str, hint: str | None, code: int) -> dict[str, object]:
    return {"error": {"message": message, "hint": hint}, "exit_code": int(code)}


def _one_document(text: str) -> object | None:
    """The JSON document `text` is, or None (empty, plain text, or more than one)."""
    import json

    if not text.strip():
        return None
    try:
        document: object = json.loads(text)
    except ValueError:
        return None
    return document


#: Commands that show their own progress as they go (or ask questions on the terminal): no
#: status line over them.
_SILENT = frozenset({"invoke", "test", "submit"})

_ENVIRONMENT_ERRNOS = frozenset(
    getattr(errno, name)
    for name in ("ENOSPC", "EDQUOT", "EROFS", "EACCES", "EPERM", "EIO", "EMFILE", "ENFILE")
    if hasattr(errno, name)
)


def _internal_error(exc: Exception) -> int:
    """Report a bug in cfngen: exit 70, with CFNGEN_DEBUG=1 as without it (the traceback is
    printed, never raised: Python's own exit would be 1, which reads as "the check failed")."""
    if os.environ.get("CFNGEN_DEBUG"):
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    print(
        f"cfngen: {_internal_message(exc)}\n"
        "  This is a bug in cfngen. Rerun with CFNGEN_DEBUG=1 for the traceback and "
        "report it with the command you ran.",
        file=sys.stderr,
    )
    return int(ExitCode.INTERNAL)
