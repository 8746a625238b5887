"""A schema's properties as the resources people already made see them: every property path
(CloudFormation's pointer spelling, `/properties/A/B`, `/properties/L/*/C`) with the schema
node that constrains it, `$ref`s to local definitions followed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cfngen._schema import join_pointer, pointer_tokens

#: Deeper than any real schema nests; a recursive definition stops here.
_MAX_DEPTH = 24


@dataclass(frozen=True)
class Node:
    #: The node with its `$ref` followed (siblings of the `$ref` win, as draft-07 readers do).
    schema: dict[str, Any]
    #: Where the node is written in the file (a JSON pointer): what a finding points at.
    at: str
    #: Whether the parent object lists it in `required`.
    required: bool


Refs = tuple[str, ...]
Schema = dict[str, Any]


def properties(schema: Any, base: str = "/properties") -> dict[str, Node]:
    """Every property path below the object whose properties live at `base` of `schema`
    (`/properties` of a resource type, `/typeConfiguration/properties` of a configuration)."""
    walk = _Walk(schema)
    at = base.rsplit("/", 1)[0]
    owner = _at(schema, at)
    if isinstance(owner, dict):
        walk.object(owner, at, base, ())
    return walk.found


def _at(schema: Any, pointer: str) -> Any:
    node = schema
    for part in pointer_tokens(pointer):
        node = node.get(part) if isinstance(node, dict) else None
    return node


class _Walk:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.found: dict[str, Node] = {}

    def object(self, node: Schema, at: str, path: str, refs: Refs) -> None:
        props = node.get("properties")
        if not isinstance(props, dict) or len(refs) > _MAX_DEPTH:
            return
        listed = node.get("required")
        required = listed if isinstance(listed, list) else []
        for name, sub in props.items():
            where = join_pointer(at, "properties", name)
            self.visit(sub, where, f"{path}/{name}", refs, required=name in required)

    def visit(self, sub: Any, at: str, path: str, refs: Refs, *, required: bool) -> None:
        resolved, at, refs = self.resolve(sub, at, refs)
        if resolved is None:
            return
        self.found[path] = Node(resolved, at, required)
        self.object(resolved, at, path, refs)
        items = resolved.get("items")
        if isinstance(items, dict):
            self.visit(items, join_pointer(at, "items"), f"{path}/*", refs, required=False)

    def resolve(self, node: Any, at: str, refs: Refs) -> tuple[Schema | None, str, Refs]:
        if not isinstance(node, dict):
            return None, at, refs
        ref = node.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return node, at, refs
        if ref in refs:  # a recursive definition: what it constrains was seen above
            return None, at, refs
        target = _at(self.root, ref[1:])
        if not isinstance(target, dict):
            return node, at, refs
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        merged, where, refs = self.resolve(target, ref[1:], (*refs, ref))
        if merged is None:
            return None, at, refs
        # Where a finding points: the definition, unless the property's own node says more.
        return {**merged, **siblings}, where if not siblings else at, refs
