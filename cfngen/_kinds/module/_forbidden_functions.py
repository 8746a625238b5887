"""Fn::ImportValue and Fn::Transform, which a module may not use, found as functions at any
depth; and the words "Fn::ImportValue" in plain text, which cfngen accepts but the official
`cfn validate` and `cfn submit` reject anywhere in the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cfngen._diagnostics import ACCEPTED, Diagnostic
from cfngen._kinds.module._findings import Findings
from cfngen._schema import join_pointer

_IMPORT_TEXT = ("Fn::ImportValue", "!ImportValue")


def forbidden_functions(template: dict[str, Any], pointer: str, out: Findings) -> None:
    """Fn::ImportValue and Fn::Transform used as functions, at any depth."""
    for where, key, node in _functions(template, pointer):
        if key == "Fn::ImportValue":
            out.add(
                "error",
                where,
                node,
                "Fn::ImportValue: a module cannot import another stack's exports",
                "make the value a parameter of the module; the template that uses it can "
                "pass Fn::ImportValue",
                code="cfngen/module-import-value",
            )
        elif key == "Fn::Transform":
            name = node.get(key, {}).get("Name") if isinstance(node.get(key), dict) else None
            what = f" ({name})" if isinstance(name, str) else ""
            out.add(
                "error",
                where,
                node,
                f"Fn::Transform{what}: a module cannot use transforms such as AWS::Include",
                "write the included content into the fragment",
                code="cfngen/module-transform",
            )


def _functions(node: Any, pointer: str) -> Iterator[tuple[str, str, Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            child = join_pointer(pointer, str(key))
            if key in ("Fn::ImportValue", "Fn::Transform"):
                yield child, str(key), node
            yield from _functions(value, child)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _functions(value, f"{pointer}/{index}")


def _strings(node: Any, pointer: str) -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            child = join_pointer(pointer, str(key))
            mentions = isinstance(key, str) and any(word in key for word in _IMPORT_TEXT)
            if mentions and key != "Fn::ImportValue":
                yield child, key
            yield from _strings(value, child)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _strings(value, f"{pointer}/{index}")
    elif isinstance(node, str) and any(word in node for word in _IMPORT_TEXT):
        yield pointer, node


_IMPORT_TEXT_HINT = (
    "cfngen accepts it, but the official `cfn validate` and `cfn submit` reject the raw "
    "text anywhere in the file; reword it (e.g. 'ImportValue') to keep them working"
)


def import_value_text(template: dict[str, Any], text: str, out: Findings) -> None:
    """The words "Fn::ImportValue" in a string are not a function call: a warning only."""
    found = False
    for where, node in _strings(template, ""):
        found = True
        out.add(
            ACCEPTED,
            where,
            node,
            "the text mentions Fn::ImportValue (not a function call)",
            _IMPORT_TEXT_HINT,
            code="cfngen/module-mentions-import-value",
        )
    calls = any(key == "Fn::ImportValue" for _w, key, _n in _functions(template, ""))
    if found or calls:
        return
    for word in _IMPORT_TEXT:
        offset = text.find(word)
        if offset >= 0:
            line = text.count("\n", 0, offset) + 1
            column = offset - (text.rfind("\n", 0, offset) + 1) + 1
            out.items.append(
                Diagnostic(
                    ACCEPTED,
                    "",
                    f"the file mentions {word} (in a comment)",
                    _IMPORT_TEXT_HINT,
                    line,
                    column,
                    code="cfngen/module-mentions-forbidden-word",
                )
            )
            return
