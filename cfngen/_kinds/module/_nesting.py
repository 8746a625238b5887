"""Modules used inside a module: at most three levels deep and never in a cycle, checked through
the module projects available locally (beside this one, or in CFNGEN_MODULE_PATH).
"""

from __future__ import annotations

from typing import Any

from cfngen._diagnostics import ACCEPTED
from cfngen._kinds.module._findings import Findings
from cfngen._kinds.module._fragment import MODULE_SUFFIX
from cfngen._kinds.module._local import LocalType

#: The user guide: modules nest at most three levels deep (this module counts as one).
MAX_DEPTH = 3


def nested_module(
    name: Any,
    rtype: str,
    pointer: str,
    out: Findings,
    *,
    local: dict[str, LocalType],
    own_type: str | None,
) -> None:
    if rtype == own_type:
        out.add(
            "error",
            pointer,
            rtype,
            f"resource {name}: the module uses itself (a cycle)",
            code="cfngen/module-cycle",
        )
        return
    if rtype not in local:
        out.add(
            ACCEPTED,
            pointer,
            rtype,
            f"resource {name}: module {rtype} is not available locally, so its nesting depth "
            "and cycles are not checked",
            "put its project beside this one (or in CFNGEN_MODULE_PATH)",
            code="cfngen/module-nested-unavailable",
        )
        return
    chain = [own_type or "this module", rtype]
    problem = _depth(rtype, local, chain)
    if problem is not None:
        out.add(
            "error",
            pointer,
            rtype,
            f"resource {name}: {problem}",
            _DEPTH_HINT,
            code="cfngen/module-nesting",
        )


_DEPTH_HINT = (
    f"modules nest at most {MAX_DEPTH} levels deep and never include themselves; "
    "flatten the innermost module into its parent"
)


def _depth(type_name: str, local: dict[str, LocalType], chain: list[str]) -> str | None:
    """Why using `type_name` after `chain` breaks the nesting rules, or None."""
    if len(chain) > MAX_DEPTH:
        return f"modules nest {len(chain)} levels deep: {' -> '.join(chain)}"
    for nested in _module_types(local[type_name]):
        if nested in chain:
            return f"the modules form a cycle: {' -> '.join([*chain, nested])}"
        if nested in local:
            problem = _depth(nested, local, [*chain, nested])
            if problem is not None:
                return problem
    return None


def _module_types(found: LocalType) -> list[str]:
    from cfngen._cfn_template import decode

    path = found.fragment()
    if path is None:
        return []
    try:
        template = decode(path.read_text(encoding="utf-8")).template
    except (OSError, UnicodeDecodeError):
        return []
    resources = template.get("Resources") if isinstance(template, dict) else None
    if not isinstance(resources, dict):
        return []
    types = [r.get("Type") for r in resources.values() if isinstance(r, dict)]
    return [str(t) for t in types if isinstance(t, str) and t.endswith(MODULE_SUFFIX)]
