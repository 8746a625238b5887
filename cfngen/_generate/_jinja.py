"""The jinja environment for every file `cfngen generate` renders, configured once.

Each kind keeps its templates in its own folder (cfngen/_kinds/<kind>/templates/) and renders
them with `render(folder, name, ...)`: strict about undefined names, explicit about whitespace.
"""

from __future__ import annotations

import functools
import json
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
    # A JSON string is a valid YAML double-quoted scalar: any action name round-trips.
    env.filters["yaml_string"] = json.dumps
    return env


def render(folder: Path, name: str, **context: Any) -> str:
    """Render `<folder>/<name>.jinja`."""
    text: str = _environment(folder).get_template(name + ".jinja").render(**context)
    return text
