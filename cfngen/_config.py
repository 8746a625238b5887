"""Defaults for command-line options from the project's configuration: `[tool.cfngen]` in
pyproject.toml, or a `cfngen.toml`, in the current folder or the nearest folder above it that has
one. Flags given on the command line win. Only options that mean the same in every command are
read (`strict`, `region`, `runtime`, `format`, `color`); an unknown key or a bad value is a usage
error that names the file, before any work.

    [tool.cfngen]
    strict = true
    region = "eu-west-1"
    format = "github"      # validate, generate and test; the others stay text
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError

#: Key -> the argparse destinations it sets (init's runtime answer is `answer_runtime`).
KEYS: dict[str, tuple[str, ...]] = {
    "strict": ("strict",),
    "region": ("region",),
    "runtime": ("answer_runtime",),
    "format": ("format",),
    "color": ("color",),
}
FILES = ("cfngen.toml", "pyproject.toml")


def find(start: Path) -> Path | None:
    """The configuration file that applies in `start`: the nearest folder with a cfngen.toml or
    a pyproject.toml holding [tool.cfngen]."""
    for folder in (start, *start.parents):
        if (folder / "cfngen.toml").is_file():
            return folder / "cfngen.toml"
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and "[tool.cfngen" in _read(pyproject):
            return pyproject
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def load(start: Path) -> tuple[Path | None, dict[str, Any]]:
    path = find(start)
    if path is None:
        return None, {}
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - black brings tomli on 3.10
        import tomli as tomllib  # type: ignore[import-not-found]
    try:
        data = tomllib.loads(_read(path))
    except tomllib.TOMLDecodeError as exc:
        raise CfngenError(f"{path}: not valid TOML: {exc}", "fix the file") from None
    table = data if path.name == "cfngen.toml" else data.get("tool", {}).get("cfngen", {})
    if not isinstance(table, dict):
        raise CfngenError(f"{path}: [tool.cfngen] is not a table", "write it as [tool.cfngen]")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise CfngenError(
            f"{path}: unknown cfngen setting {unknown[0]!r}",
            f"the settings are {', '.join(KEYS)}",
        )
    return path, dict(table)


def apply(parsers: list[Any], path: Path, settings: dict[str, Any]) -> None:
    """Make each setting the default of every command that has the option, checked as the
    option checks a value."""
    import argparse

    for key, value in settings.items():
        for parser in parsers:
            for action in parser._actions:
                if action.dest not in KEYS[key]:
                    continue
                if key == "format" and "junit" not in (action.choices or ()):
                    # Only the checking commands (validate, generate, test) take it from the
                    # file: a wizard or a registration talks to the user in text.
                    continue
                if action.choices is not None and value not in action.choices:
                    raise CfngenError(
                        f"{path}: {key} = {value!r} is not one of {', '.join(action.choices)}",
                        "fix the setting",
                    )
                checked = value
                if isinstance(action, argparse._StoreTrueAction):
                    if not isinstance(value, bool):
                        raise CfngenError(f"{path}: {key} must be true or false", "fix it")
                elif action.type is not None and callable(action.type):
                    try:
                        checked = action.type(value)
                    except (argparse.ArgumentTypeError, ValueError, TypeError) as exc:
                        raise CfngenError(f"{path}: {key}: {exc}", "fix the setting") from None
                parser.set_defaults(**{action.dest: checked})
