"""Property pointers in a resource schema (`/properties/A/B/*/C`), and the schema's nodes.

Every function here is defensive: it runs on schemas that may also break structural rules,
and must neither crash on them nor report the same mistake a second time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from cfngen._schema import Resolver, close_match, join_pointer, pointer_tokens, subschemas


def schema_nodes(schema: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every subschema of a resource schema, including typeConfiguration and the list schema."""
    yield from subschemas(schema, "")
    config = schema.get("typeConfiguration")
    if isinstance(config, dict):
        yield from subschemas(config, "/typeConfiguration")
    handlers = schema.get("handlers")
    if isinstance(handlers, dict):
        listing = handlers.get("list")
        if isinstance(listing, dict) and isinstance(listing.get("handlerSchema"), dict):
            yield from subschemas(listing["handlerSchema"], "/handlers/list/handlerSchema")


@dataclass
class PropertyIndex:
    """Which property pointers name a declared property (references followed by `resolver`)."""

    schema: dict[str, Any]
    resolver: Resolver

    # ------------------------------------------------------------------ property pointers

    def property_problem(self, pointer: str, root: Any = None) -> tuple[str, str | None] | None:
        """Why `pointer` (`/properties/A/B/*/C`) names no declared property, or None.

        Nested pointers name properties directly (`/properties/A/B`) and `*` stands for the items
        of an array, as AWS writes them; the schema-document spelling (`/properties/A/properties/B`,
        `/properties/L/items/B`) is read the same way.
        Where the schema leaves a shape open (a map, a free-form object, an array without
        `items`), everything below it is accepted.
        """
        if root is None:
            root = self.schema
        if not pointer.startswith("/"):
            fixed = "/" + pointer
            return (
                f"{pointer!r} is not a JSON pointer: it must start with '/'",
                f"write {fixed!r}" if fixed.startswith("/properties/") else None,
            )
        tokens = pointer_tokens(pointer)
        if len(tokens) < 2 or tokens[0] != "properties" or not tokens[1]:
            return (
                f"{pointer!r} does not point at a property",
                "property pointers look like /properties/Name",
            )
        candidates = self.resolver.expand(root)
        path = "/properties"
        rest = tokens[1:]
        for position, token in enumerate(rest):
            declared = any(
                isinstance(c.get("properties"), dict) and token in c["properties"]
                for c in candidates
            )
            if token == "properties" and not declared and position > 0 and position + 1 < len(rest):
                # The schema-document spelling (/properties/A/properties/B), which AWS's own
                # nonPublicProperties examples use, means the same as /properties/A/B.
                continue
            if token == "*" or (
                (token.isdigit() or (token == "items" and not declared)) and _any_array(candidates)
            ):
                items = [c["items"] for c in candidates if isinstance(c.get("items"), dict)]
                if items:
                    candidates = [n for item in items for n in self.resolver.expand(item)]
                elif _any_array(candidates) or _is_open(candidates):
                    return None
                else:
                    return (f"{pointer!r} does not resolve: {path} is not an array", None)
                path += "/" + token
                continue
            found = [
                c["properties"][token]
                for c in candidates
                if isinstance(c.get("properties"), dict) and token in c["properties"]
            ]
            if found:
                candidates = [n for f in found for n in self.resolver.expand(f)]
                path = join_pointer(path, token)
                continue
            if _is_open(candidates):
                return None
            names = [
                name
                for c in candidates
                if isinstance(c.get("properties"), dict)
                for name in c["properties"]
            ]
            where = "the schema" if path == "/properties" else path
            hint = None
            close = close_match(token, names)
            if close:
                hint = f"did you mean {join_pointer(path, close)!r}?"
            elif _any_array(candidates):
                hint = f"{path} is an array: write {path}/*/{token} for a property of its items"
            return (f"{pointer!r} does not resolve: {where} declares no property {token!r}", hint)
        return None


def _any_array(candidates: list[dict[str, Any]]) -> bool:
    for c in candidates:
        kind = c.get("type")
        if kind == "array" or (isinstance(kind, list) and "array" in kind) or "items" in c:
            return True
    return False


def _is_open(candidates: list[dict[str, Any]]) -> bool:
    """Whether the union of `candidates` leaves keys unconstrained (a map or free-form object)."""
    shaped = False
    for c in candidates:
        if "patternProperties" in c:
            return True
        if isinstance(c.get("$ref"), str) and not any(k in c for k in ("properties", "items")):
            # An unresolvable or external reference: we cannot know its shape.
            continue
        if "properties" in c or "items" in c:
            shaped = True
        kind = c.get("type")
        if (
            kind is not None
            and kind != "object"
            and not (isinstance(kind, list) and "object" in kind)
        ):
            shaped = True
    return not shaped
