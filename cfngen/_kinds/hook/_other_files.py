"""A hook's derived files other than its models: hook-role.yaml, the configuration schema
`<type-name>-configuration.json` and docs/README.md (from _derive.py, which was over 400 lines)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cfngen._kinds._shared import _targets
from cfngen._kinds._shared._targets import target_names

_TEMPLATES = Path(__file__).with_name("templates")
_POINTS = {
    "preCreate": "CREATE_PRE_PROVISION",
    "preUpdate": "UPDATE_PRE_PROVISION",
    "preDelete": "DELETE_PRE_PROVISION",
}


def render_role(schema: dict[str, Any], type_name: str) -> str:
    """The official hook role: the hooks and resources services may assume it, for this hook
    type only; Allow the handlers' actions, or Deny everything when they need none."""
    from cfngen._kinds._shared._role import handler_actions, max_session_duration
    from cfngen._typename import TypeName

    actions = handler_actions(schema)
    return _render(
        "hook-role.yaml",
        type_name=type_name,
        hyphenated=TypeName(type_name).hyphenated,
        max_session_duration=max_session_duration(schema),
        effect="Allow" if actions else "Deny",
        actions=actions or ["*"],
    )


def configuration_file(type_name: str) -> str:
    """`acme-svc-hook-configuration.json`, as the official tool names it."""
    return "-".join(type_name.split("::")).lower() + "-configuration.json"


def configuration_schema(schema: dict[str, Any], type_name: str) -> str:
    """typeConfiguration with the schema's definitions and the type name, exactly as
    `cfn generate` writes it (so a file it wrote stays unchanged)."""
    config = schema.get("typeConfiguration")
    out = dict(config) if isinstance(config, dict) else {}
    out["definitions"] = schema.get("definitions", {})
    out["typeName"] = type_name
    return json.dumps(out, indent=4) + "\n"


def render_docs(schema: dict[str, Any], type_name: str) -> str:
    config = schema.get("typeConfiguration")
    config = config if isinstance(config, dict) else {}
    required = set(config.get("required") or [])
    settings = []
    for name, found in (config.get("properties") or {}).items():
        node = found if isinstance(found, dict) else {}
        allowed = node.get("enum")
        settings.append(
            {
                "name": name,
                "description": node.get("description", ""),
                "required": name in required,
                "type": str(node.get("type", "String")).capitalize(),
                "allowed": " | ".join(f"`{v}`" for v in allowed)
                if isinstance(allowed, list)
                else "",
            }
        )
    handlers = _handlers(schema)
    rows = [
        {
            "point": f"{point} ({_POINTS[point]})",
            "targets": ", ".join(f"`{t}`" for t in h.get("targetNames", [])) or "none",
            "permissions": ", ".join(f"`{p}`" for p in h.get("permissions", [])) or "none",
        }
        for point, h in handlers.items()
        if point in _POINTS and isinstance(h, dict)
    ]
    names = target_names(schema)
    operations = ["RESOURCE"] if any(n not in _targets.SPECIAL_TARGETS for n in names) else []
    operations += [n for n in _targets.SPECIAL_TARGETS if n in names]
    example = {s["name"]: "..." for s in settings}
    return _render(
        "docs.md",
        type_name=type_name,
        description=schema.get("description", ""),
        operations=json.dumps(operations or ["RESOURCE"]),
        properties_example=json.dumps(example),
        settings=settings,
        handlers=rows,
    )


def _render(name: str, **context: Any) -> str:
    from cfngen._generate._jinja import render as render_jinja

    return render_jinja(_TEMPLATES, name, **context)


def _handlers(schema: dict[str, Any]) -> dict[str, Any]:
    found = schema.get("handlers")
    return found if isinstance(found, dict) else {}
