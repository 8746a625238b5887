"""What `cfngen build` and `cfngen submit` tell the user, as text (the CLI paints and prints)."""

from __future__ import annotations

import os
from pathlib import Path

from cfngen._package._build import BuildResult
from cfngen._package._limits import size_text
from cfngen._render import Rendered


def render_build(result: BuildResult, text: Rendered) -> None:
    """What was built, on stdout."""
    paint = text.paint_out
    name = _display(result.path)
    verb = "wrote" if result.written else "up to date:"
    kind = result.file_set.registry_type.lower()
    lines = [
        f"{paint(verb, 'ok')} {name}: {size_text(len(result.data))}, "
        f"{len(result.files)} files (a {kind} package, as `cfn submit --dry-run` makes it)"
    ]
    handler = result.handler
    if handler is not None:
        cached = ", from the build cache" if handler.from_cache else ""
        lines.append(
            f"  ResourceProvider.zip: {size_text(len(handler.data))} deflated, "
            f"{size_text(handler.unzipped_size)} unzipped, for "
            f"{handler.platform.describe()}{cached}"
        )
        if handler.shipped:
            shipped = ", ".join(
                f"{s.name} {s.version}" + (f" ({s.native_tag})" if s.native_tag else "")
                for s in handler.shipped
            )
            lines.append(f"  dependencies: {shipped}")
        if handler.left_out:
            lines.append(
                "  left out, as Lambda provides them (--include-boto3 keeps them): "
                + ", ".join(handler.left_out)
            )
    for line in lines:
        text.out(line)


def _display(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)
