"""The jinja environment for every file `cfngen generate` renders, configured once.

Each kind keeps its templates in its own folder (cfngen/_kinds/<kind>/templates/) and renders
them with `render(folder, name, ...)`: strict about undefined names, explicit about whitespace.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any


@functools.cache
def _environment(folder: Path) -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["yaml_string"] = yaml_string
    return env


def yaml_string(value: str) -> str:
    """`value` as a YAML double-quoted scalar on one line that reads back as exactly `value`.

    PyYAML's emitter writes printable characters as they are (Unicode kept, not `\\u` escapes)
    and escapes what YAML cannot hold or would fold: NUL, line and paragraph separators, lone
    surrogates. (A JSON string is not enough: YAML readers do not join a JSON surrogate pair
    into one character, so an emoji came back as two broken halves.)
    """
    import yaml

    text: str = yaml.dump(
        value, allow_unicode=True, default_style='"', width=float("inf"), explicit_end=False
    )
    return text.rstrip("\n")


def render(folder: Path, name: str, **context: Any) -> str:
    """Render `<folder>/<name>.jinja`."""
    text: str = _environment(folder).get_template(name + ".jinja").render(**context)
    return text
