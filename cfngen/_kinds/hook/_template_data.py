"""The data the hook's copier template (templates/hook/copier.yml) renders from the answers,
including the hidden `starter` table the starter rule and its inputs are rendered from: for
each target type, a top-level property that takes any text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cfngen._kinds._shared import _targets


def starter_property(type_name: str) -> str:
    """A top-level string property of a target that takes any text (what the starter rule and
    its inputs use): a `...Name` one if there is one, else `Name`."""
    schema = _targets.bundled_schema(type_name)
    if schema is None:
        return "Name"
    read_only = {str(p).rsplit("/", 1)[-1] for p in schema.get("readOnlyProperties", [])}
    free = [
        str(name)
        for name, node in (schema.get("properties") or {}).items()
        if name not in read_only
        and isinstance(node, dict)
        and node.get("type") == "string"
        and not {"enum", "const", "pattern", "format", "$ref"} & set(node)
    ]
    named = [name for name in free if name.endswith("Name")]
    return (named or free or ["Name"])[0]


def input_targets(targets: Sequence[str]) -> list[str]:
    """The targets the starter inputs name: each type, the first type a wildcard matches."""
    known = _targets.bundled_types()
    out: list[str] = []
    for name in targets:
        if _targets.is_wildcard(name):
            found = _targets.matches(name, known)
            chosen = found[0] if found else None
        else:
            chosen = name
        if chosen is not None and chosen not in out:
            out.append(chosen)
    return out


def copier_data(
    targets: Sequence[str],
    invocation_points: Sequence[str],
    config_properties: Sequence[tuple[str, str]],
) -> dict[str, Any]:
    return {
        "targets": list(targets),
        "invocation_points": list(invocation_points),
        "config_properties": [f"{name}:{kind}" for name, kind in config_properties],
        "starter": {
            name: starter_property(name)
            for name in input_targets(targets)
            if name not in _targets.SPECIAL_TARGETS
        },
    }
