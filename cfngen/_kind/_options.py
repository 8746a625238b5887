"""A command-line option a kind declares (`Kind.cli_options`): data, not argparse, so the
interface stays below the CLI. The CLI (cfngen/_cli/_options.py) adds every kind's options to
the commands each names, once per `dest` (two kinds may declare the same option: modules and
custom resources both take `--param`), grouped under `group` in `--help`; the shell completion
is written from the same parser, so it offers them too. What the user gives reaches the kind's
contract as `options[dest]`; the contract refuses a key it does not take (`contract.options`),
so an option of another kind is a usage error there.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CliOption:
    #: The flag, `--logical-id`.
    flag: str
    #: The key the value reaches the contract under (the contract's `options`).
    dest: str
    help: str
    #: The `--help` section it is listed in ("custom resources").
    group: str
    metavar: str | None = None
    #: Repeatable: the values given, in order (default: []).
    repeat: bool = False
    #: A path (made a `pathlib.Path`).
    path: bool = False
    #: The commands that take it.
    commands: tuple[str, ...] = ("test", "invoke")
