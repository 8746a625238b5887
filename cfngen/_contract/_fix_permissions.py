"""`cfngen test --fix-permissions`: the IAM actions handlers called and no handler declares,
added to the schema's `permissions` lists, every other byte of the user's file kept (as
`cfngen runtime set` edits `.rpdk-config`), written all or nothing."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._errors import CfngenError

if TYPE_CHECKING:
    from cfngen._schema import JsonDocument


def fix_permissions(root: Path, missing: dict[str, dict[str, list[str]]]) -> dict[str, str]:
    """Add `missing` (schema file -> permissions pointer -> actions) to the schema files under
    `root`; the unified diff of each file changed."""
    from cfngen._files import Transaction
    from cfngen._files._contain import writable
    from cfngen._schema import read_text

    diffs: dict[str, str] = {}
    edits: dict[str, bytes] = {}
    for relpath, lists in sorted(missing.items()):
        path = writable(root, relpath, what="the schema")
        old = read_text(path)
        new = old
        for pointer, actions in lists.items():
            new = add_permissions(new, pointer, actions, relpath)
        if new == old:
            continue
        edits[relpath] = new.encode("utf-8")
        diffs[relpath] = "".join(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                f"a/{relpath}",
                f"b/{relpath}",
            )
        )
    if edits:
        edit = Transaction(root)
        for relpath, content in edits.items():
            edit.write(relpath, content)
        edit.commit()
    return diffs


def add_permissions(text: str, pointer: str, actions: list[str], name: str) -> str:
    """`text` (a schema) with `actions` appended to the list at `pointer`
    (`/handlers/<key>/permissions`), the list made in its handler's object when it has
    none; laid out like the items before them, every other byte kept."""
    from cfngen._schema import loads, parent_pointer, pointer_tokens

    document = loads(text)
    tokens = pointer_tokens(pointer)
    node = document.data
    for token in tokens[:-1]:
        node = node.get(token) if isinstance(node, dict) else None
    if not isinstance(node, dict):
        raise CfngenError(
            f"{name}: {parent_pointer(pointer)} is not an object", "add the permissions by hand"
        )
    have = node.get(tokens[-1])
    if have is not None and not isinstance(have, list):
        raise CfngenError(f"{name}: {pointer} is not a list", "add the permissions by hand")
    new = [a for a in dict.fromkeys(actions) if a not in (have or [])]
    if not new:
        return text
    items = [json.dumps(a) for a in new]
    if have is None:
        start, end = _span(text, document, parent_pointer(pointer))
        out = _append(text, start, end, [f"{json.dumps(tokens[-1])}: [{', '.join(items)}]"])
    else:
        start, end = _span(text, document, pointer)
        out = _append(text, start, end, items)
    expected = json.loads(text)
    holder = expected
    for token in tokens[:-1]:
        holder = holder[token]
    holder[tokens[-1]] = [*(have or []), *new]
    if json.loads(out) != expected:  # a bug here must never reach the user's file
        raise CfngenError(f"{name}: cfngen could not edit it safely", "add them by hand")
    return out


def _span(text: str, document: JsonDocument, pointer: str) -> tuple[int, int]:
    """Offsets of the `[` or `{` that opens the value at `pointer` and just after its close."""
    position = document.position(pointer)
    assert position is not None
    line, column = position
    start = sum(len(row) for row in text.splitlines(keepends=True)[: line - 1]) + column - 1
    _value, end = json.JSONDecoder().raw_decode(text, start)
    return start, end


def _append(text: str, start: int, end: int, items: list[str]) -> str:
    """Add `items` at the end of the list or object text[start:end], laid out like the
    members before them (one a line, or all on one)."""
    close = end - 1
    body = text[start + 1 : close].rstrip()
    between = text[start + 1 + len(body) : close]  # whitespace before the close, kept
    newline = "\r\n" if "\r\n" in text else "\n"
    if body.strip() and "\n" in body:
        last = body.rsplit("\n", 1)[-1]
        indent = last[: len(last) - len(last.lstrip())]
        added = "," + ",".join(f"{newline}{indent}{item}" for item in items)
    elif body.strip():
        added = ", " + ", ".join(items)
    else:
        # An empty list: one item a line, indented one step past its opening line's.
        opening = text[: start + 1].rsplit("\n", 1)[-1]
        outer = opening[: len(opening) - len(opening.lstrip())]
        step = "  " if '\n  "' in text and '\n    "' not in text else "    "
        added = "".join(f"{newline}{outer}{step}{item}," for item in items)[:-1]
        between = f"{newline}{outer}"
    return text[: start + 1] + body + added + between + text[close:]
