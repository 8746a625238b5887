"""JSON pointers (RFC 6901): the one parser. `~1` is `/` and `~0` is `~` inside a token.

A pointer names a value in a JSON document: '' is the whole document, `/a/b~1c` is the member
"b/c" of the member "a". `$ref` fragments (`#/definitions/Name`) are pointers after the `#`.
"""

from __future__ import annotations


def escape_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def pointer_tokens(pointer: str) -> list[str]:
    """`/a/b~1c` -> ['a', 'b/c']. The root pointer '' has no tokens."""
    if not pointer:
        return []
    return [unescape_token(t) for t in pointer.lstrip("/").split("/")]


def join_pointer(base: str, *more: str | int) -> str:
    """`base` with more tokens appended, each escaped."""
    return base + "".join("/" + escape_token(str(t)) for t in more)


def parent_pointer(pointer: str) -> str:
    """The pointer of the value holding the one at `pointer` ('' for the root's members)."""
    return pointer.rsplit("/", 1)[0]


def property_name(pointer: str) -> str | None:
    """`/properties/Name` -> "Name": the top-level property a pointer names exactly, or None."""
    found = pointer_tokens(pointer)
    if len(found) == 2 and found[0] == "properties":
        return found[1]
    return None
