"""The jinja environment for every template that `cfngen generate` renders, configured once."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

TEMPLATES_DIR = Path(__file__).parent / "templates"


@functools.cache
def _environment() -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    # A JSON string is a valid YAML double-quoted scalar: any action name round-trips.
    env.filters["yaml_string"] = json.dumps
    return env


def render(name: str, **context: Any) -> str:
    """Render `templates/<name>.jinja`."""
    text: str = _environment().get_template(name + ".jinja").render(**context)
    return text
