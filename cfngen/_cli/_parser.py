"""The command line's parser: every command's options (declared by the command's module) and
the output options every command takes; a usage error is an exception `main` reports."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from cfngen._cli import (
    build,
    completion,
    drift,
    generate,
    init,
    invoke,
    module,
    publish,
    runtime,
    schema,
    submit,
    template,
    test,
    upgrade,
    validate,
)
from cfngen._cli._options import add_format

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
    publish,
    module,
    drift,
    schema,
    completion,
)


class UsageError(Exception):
    """argparse found the command line malformed: the parser that did, and its message."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(f"{parser.prog}: {message}")
        self.parser = parser
        self.message = message


class _Parser(argparse.ArgumentParser):
    """argparse, whose usage errors `main` reports (as text, or as JSON with --format json)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(self, message)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or, given the `command` about to run, that command's options
    and only the name and help line of the others: declaring a command's options can import
    what it needs (init: every kind's questions), which the others should not pay for."""
    parser = _Parser(
        prog="cfngen",
        description=(
            "Build AWS CloudFormation extensions: validate schemas, generate models, "
            "run the handler contract in-process."
        ),
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the versions and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for declared in COMMANDS:
        name = declared.__name__.rpartition(".")[2]
        if command is None or name == command:
            declared.add(sub)
        else:
            sub.add_parser(name, help=declared.HELP)
    # Every command takes --format (text or json at least) and the output options.
    for command_parser in [parser, *runnable(parser)]:
        if command_parser is not parser and not _has(command_parser, "--format"):
            add_format(command_parser)
        _add_output_options(command_parser)
    return parser


def _has(parser: argparse.ArgumentParser, option: str) -> bool:
    return any(option in action.option_strings for action in parser._actions)


def _add_output_options(p: argparse.ArgumentParser) -> None:
    """`--color`, `--quiet`, `--verbose`: before or after the command's name alike (a command
    that gives one of these spellings a meaning of its own keeps it)."""
    out = p.add_argument_group("output")
    options: list[tuple[tuple[str, ...], dict[str, object]]] = [
        (
            ("--color",),
            {
                "choices": ("auto", "always", "never"),
                "help": "colour: auto (default: on a terminal, unless NO_COLOR or TERM=dumb; "
                "FORCE_COLOR forces it), always or never",
            },
        ),
        (
            ("-q", "--quiet"),
            {
                "action": "store_true",
                "help": "no warnings and no progress on stderr (errors and results still show)",
            },
        ),
        (
            ("-v", "--verbose"),
            {"action": "store_true", "help": "log what cfngen does to stderr (never to a file)"},
        ),
    ]
    for names, options_ in options:
        free = [name for name in names if not _has(p, name)]
        if free and free[-1].startswith("--"):
            out.add_argument(*free, default=argparse.SUPPRESS, **options_)  # type: ignore[arg-type]


def runnable(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parsers of the commands that run something (`runtime`, `runtime set`, not
    `template`)."""
    found = [parser] if parser.get_default("run") is not None else []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                found.extend(runnable(child))
    return found


def command_in(argv: Sequence[str]) -> str | None:
    """The command `argv` runs, or None when it names none (then every command is declared,
    for --help and for argparse's message)."""
    names = {declared.__name__.rpartition(".")[2] for declared in COMMANDS}
    words = iter(argv)
    for word in words:
        if word in names:
            return word
        if word in ("--format", "--color"):
            next(words, None)
        elif not word.startswith("-") or word == "--":
            return None
    return None


class _Version(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, *_args: object, **_kw: object) -> None:
        from cfngen._versions import render_versions

        sys.stdout.write(render_versions())
        parser.exit()
