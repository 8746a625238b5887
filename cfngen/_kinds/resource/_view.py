"""`ResourceSchema`: a resource schema as the contract tests and the derived files read it.

Property paths are a schema's JSON pointers without the leading `/properties`
(`/properties/Tags/*/Key` is ("Tags", "*", "Key")); `*` stands for every item of an array.
"""

from __future__ import annotations

import functools
from typing import Any

from cfngen._kinds._shared._transforms import Transform, transforms_of
from cfngen._schema import SchemaView, pointer_tokens

PropertyPath = tuple[str, ...]


def _paths(pointers: Any) -> tuple[PropertyPath, ...]:
    if not isinstance(pointers, list):
        return ()
    out: list[PropertyPath] = []
    for pointer in pointers:
        if not isinstance(pointer, str):
            continue
        tokens = pointer_tokens(pointer)
        if tokens[:1] == ["properties"] and len(tokens) > 1:
            out.append(tuple(tokens[1:]))
    return tuple(out)


class ResourceSchema(SchemaView):
    """A resource schema: its identifiers, property lists, tagging and property subschemas."""

    @functools.cached_property
    def primary(self) -> tuple[PropertyPath, ...]:
        return _paths(self.schema.get("primaryIdentifier"))

    @functools.cached_property
    def additional(self) -> tuple[tuple[PropertyPath, ...], ...]:
        groups = self.schema.get("additionalIdentifiers")
        if not isinstance(groups, list):
            return ()
        return tuple(_paths(group) for group in groups if isinstance(group, list))

    @functools.cached_property
    def read_only(self) -> tuple[PropertyPath, ...]:
        return _paths(self.schema.get("readOnlyProperties"))

    @functools.cached_property
    def write_only(self) -> tuple[PropertyPath, ...]:
        return _paths(self.schema.get("writeOnlyProperties"))

    @functools.cached_property
    def create_only(self) -> tuple[PropertyPath, ...]:
        return _paths(self.schema.get("createOnlyProperties"))

    @functools.cached_property
    def transforms(self) -> tuple[Transform, ...]:
        """The `propertyTransform`s whose keys are property pointers."""
        return tuple(t for t in transforms_of(self.schema) if t.path is not None)

    @property
    def writable_identifiers(self) -> bool:
        """Whether the user sets an identifier, so creating the same model twice must fail.

        As `cfn test`: every primaryIdentifier property is createOnly. Also (which it misses):
        an additionalIdentifier the user sets, no part of it readOnly.
        """
        if self.primary and all(path in self.create_only for path in self.primary):
            return True
        return any(
            group and not any(path in self.read_only for path in group) for group in self.additional
        )

    @property
    def tagging(self) -> dict[str, Any]:
        tagging = self.schema.get("tagging")
        return tagging if isinstance(tagging, dict) else {}

    @property
    def taggable(self) -> bool:
        if "taggable" in self.tagging:
            return bool(self.tagging["taggable"])
        return bool(self.schema.get("taggable", True))

    @property
    def tag_updatable(self) -> bool:
        if "tagUpdatable" in self.tagging:
            return bool(self.tagging["tagUpdatable"])
        return self.taggable

    @property
    def tag_property(self) -> str:
        """The top-level property that holds the tags (`Tags` unless tagProperty says)."""
        tag_property = self.tagging.get("tagProperty", "/properties/Tags")
        tokens = pointer_tokens(str(tag_property))
        return tokens[-1] if tokens else ""

    def subschema(self, path: PropertyPath) -> dict[str, Any] | None:
        """The schema of the property at a model path (references followed), if declared."""
        follow = self.resolver.follow
        node: Any = {"type": "object", "properties": self.schema.get("properties", {})}
        for token in path:
            node = follow(node)
            if "items" in node and (token == "*" or token.isdigit()):
                node = node["items"]
            elif isinstance(node.get("properties"), dict) and token in node["properties"]:
                node = node["properties"][token]
            elif isinstance(node.get("patternProperties"), dict) and node["patternProperties"]:
                node = next(iter(node["patternProperties"].values()))
            else:
                return None
        return follow(node)
