"""Upgrades never mark code the user wrote as a stub.

Newer templates start each handler stub with a `# STUB: not implemented` line, which makes
`cfngen test` report the handler as not implemented. A three-way merge from a template without
those lines adds them wherever the user left the lines around them alone, so a handler the user
implemented would suddenly fail every test. After the merge, a marker line the merge added is
dropped from a function the user had changed (compared with the old template's own rendering of
it) or had written themselves; a function the user never touched is still the template's stub
and keeps it.
"""

from __future__ import annotations

import ast
import re

MARKER = "# STUB: not implemented"
_DEF = re.compile(r"^(?P<indent>\s*)(?:async\s+)?def\s+(?P<name>\w+)\s*\(")


def drop_added_markers(
    merged: str, before: str | None, old_template: str | None
) -> tuple[str, list[str]]:
    """`merged` without the stub markers the merge added to functions the user had written
    or changed, and the names of those functions. `before` is the user's file before the
    upgrade (None: the file is new), `old_template` what the project's old template rendered
    there (None: it had no such file)."""
    if MARKER not in merged or before is None:
        return merged, []
    mine = _functions(before)
    theirs = _functions(old_template or "") or {}

    def written_by_user(name: str) -> bool:
        if mine is None:  # it does not parse: it is the user's work in progress
            return True
        return name in mine and theirs.get(name) != mine[name] and MARKER not in mine[name]

    kept: list[str] = []
    dropped: set[str] = set()
    lines = merged.splitlines(keepends=True)
    in_conflict = False
    for number, line in enumerate(lines):
        if line.startswith("<<<<<<< "):
            in_conflict = True
        elif line.startswith(">>>>>>> "):
            in_conflict = False
        elif MARKER in line and not in_conflict:
            name = _enclosing_function(lines, number)
            if name is not None and written_by_user(name):
                dropped.add(name)
                continue
        kept.append(line)
    return "".join(kept), sorted(dropped)


def _functions(source: str) -> dict[str, str] | None:
    """Every function's source by name (the last of a name wins), or None if it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found[node.name] = ast.get_source_segment(source, node) or ""
    return found


def _enclosing_function(lines: list[str], number: int) -> str | None:
    """The function whose body holds line `number`: the nearest `def` above, less indented."""
    indent = len(lines[number]) - len(lines[number].lstrip())
    for line in reversed(lines[:number]):
        match = _DEF.match(line)
        if match and len(match.group("indent")) < indent:
            return match.group("name")
    return None
