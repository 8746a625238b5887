"""`cfngen completion bash|zsh|fish`."""

from __future__ import annotations

import argparse
import sys

from cfngen._errors import ExitCode

#: The one line `cfngen --help` lists it with.
HELP = "print a shell completion script (bash, zsh or fish)"


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from cfngen._completion import SHELLS

    p = sub.add_parser(
        "completion",
        help=HELP,
        description=(
            "Print a completion script for your shell. bash: "
            'eval "$(cfngen completion bash)" in ~/.bashrc; zsh: '
            'eval "$(cfngen completion zsh)" in ~/.zshrc; fish: cfngen completion fish > '
            "~/.config/fish/completions/cfngen.fish. The script is static (TAB runs no "
            "Python): print it again after upgrading cfngen."
        ),
    )
    p.add_argument("shell", choices=SHELLS, help="the shell")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cfngen._cli import build_parser
    from cfngen._completion import script

    sys.stdout.write(script(args.shell, build_parser()))
    return ExitCode.OK
