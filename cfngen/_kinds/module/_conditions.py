"""Conditions that refer to each other in a circle (`A: !And [!Condition B, ...]`,
`B: !Not [!Condition A]`): CloudFormation rejects the template, and cfn-lint lets it through.
One finder for validate (_checks.py) and render (_render.py)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from cfngen._kinds.module._findings import Findings
from cfngen._kinds.module._fragment import key_of
from cfngen._schema import join_pointer


def condition_cycle(conditions: Mapping[str, Any]) -> list[str] | None:
    """The first circle of conditions, in declaration order, as [A, B, A]; None when none."""
    declared = {str(name) for name in conditions}
    edges = {str(name): sorted(set(_named(body)) & declared) for name, body in conditions.items()}
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> list[str] | None:
        if name in path:
            return [*path[path.index(name) :], name]
        if name in done:
            return None
        for nxt in edges.get(name, []):
            found = visit(nxt, [*path, name])
            if found is not None:
                return found
        done.add(name)
        return None

    for name in edges:
        found = visit(name, [])
        if found is not None:
            return found
    return None


def circle_text(cycle: list[str]) -> str:
    return f"conditions {' -> '.join(cycle)} refer to each other in a circle"


def circular_conditions(template: Mapping[str, Any], out: Findings) -> None:
    """validate's rule: a finding at the first condition of the circle."""
    conditions = template.get("Conditions")
    if not isinstance(conditions, Mapping):
        return
    cycle = condition_cycle(conditions)
    if cycle is not None:
        out.add(
            "error",
            join_pointer("/Conditions", cycle[0]),
            key_of(conditions, cycle[0]),
            f"{circle_text(cycle)}: CloudFormation rejects the template",
            "make one of them stop naming the other with `Condition:`",
            code="cfngen/module-condition-cycle",
        )


def _named(node: Any) -> Iterator[str]:
    """The conditions `node` names with `{"Condition": name}`."""
    if isinstance(node, list):
        for item in node:
            yield from _named(item)
    elif isinstance(node, Mapping):
        for key, value in node.items():
            if key == "Condition" and isinstance(value, str):
                yield str(value)
            else:
                yield from _named(value)
