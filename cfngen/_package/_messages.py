"""What `cfngen build` and `cfngen submit` tell the user, as text (the CLI paints and prints)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

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
                f"{s.name} {s.version}"
                + (f" ({s.native_tag})" if s.native_tag else "")
                + (" (built from its source)" if s.from_source else "")
                for s in handler.shipped
            )
            lines.append(f"  dependencies: {shipped}")
        if handler.left_out:
            lines.append(
                "  left out, as Lambda provides them (--include-boto3 keeps them): "
                + ", ".join(handler.left_out)
            )
    lines += [f"  followed a link: {path} -> {target}" for path, target in result.links]
    lines += [f"  left out: {path}: {why}" for path, why in result.excluded]
    for line in lines:
        text.out(line)


def build_json(result: BuildResult) -> dict[str, Any]:
    """What `cfngen build --format json` writes: the text's facts, as data."""
    handler = result.handler
    return {
        "package": _display(result.path),
        "written": result.written,
        "size": len(result.data),
        "files": list(result.files),
        "links": [{"path": path, "target": target} for path, target in result.links],
        "excluded": [{"path": path, "reason": why} for path, why in result.excluded],
        "handler": None
        if handler is None
        else {
            "platform": handler.platform.describe(),
            "size": len(handler.data),
            "unzipped_size": handler.unzipped_size,
            "from_cache": handler.from_cache,
            "dependencies": [
                {
                    "name": s.name,
                    "version": s.version,
                    "native_tag": s.native_tag or None,
                    "from_source": s.from_source,
                }
                for s in handler.shipped
            ],
            "left_out": list(handler.left_out),
        },
        "warnings": list(result.warnings),
    }


def _display(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)
