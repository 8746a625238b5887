"""Which handlers `handlers.py` registers, read with `ast` (never imported: it is user code)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

#: Schema handler names and the `Action` member that registers each.
ACTIONS = {
    "create": "CREATE",
    "read": "READ",
    "update": "UPDATE",
    "delete": "DELETE",
    "list": "LIST",
}


def registered_actions(source: str) -> set[str]:
    """`{"CREATE", ...}` for every `@<anything>.handler(Action.X)` (or `handler("X")`) decorator.

    Raises SyntaxError when the source does not parse.
    """
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in node.decorator_list:
            if not (
                isinstance(decorator, ast.Call)
                and isinstance(decorator.func, ast.Attribute)
                and decorator.func.attr == "handler"
                and decorator.args
            ):
                continue
            arg = decorator.args[0]
            if isinstance(arg, ast.Attribute):
                found.add(arg.attr)
            elif isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.add(arg.value)
    return found


def handler_warnings(schema: dict[str, Any], handlers_path: Path, display: str) -> list[str]:
    """One message per handler the schema declares that handlers.py does not register."""
    handlers = schema.get("handlers")
    declared = [name for name in ACTIONS if isinstance(handlers, dict) and name in handlers]
    if not declared:
        return []
    from cfngen._errors import CfngenError
    from cfngen._files import read_optional

    try:
        data = read_optional(handlers_path, display=display)
        if data is None:
            return [
                f"{display} does not exist, so no handler is registered for the schema's handlers"
            ]
        source = data.decode("utf-8")
    except (CfngenError, UnicodeDecodeError) as exc:
        return [f"{display}: cannot read it ({exc}); handler registration not checked"]
    try:
        registered = registered_actions(source)
    except SyntaxError as exc:
        return [
            f"{display}:{exc.lineno}: does not parse ({exc.msg}); handler registration not checked"
        ]
    return [
        f"{display}: the schema declares a {name} handler but none is registered "
        f"(add a function decorated with @resource.handler(Action.{ACTIONS[name]}))"
        for name in declared
        if ACTIONS[name] not in registered
    ]
