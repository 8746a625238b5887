"""Finding things in a resource schema: its subschemas, `$ref` targets, property pointers.

Every function here is defensive: it runs on schemas that may also break structural rules,
and must neither crash on them nor report the same mistake a second time.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

from cfngen._jsonsource import join_pointer, pointer_tokens

COMBINERS = ("allOf", "anyOf", "oneOf")
#: The official tool reads `resource-schema.json#/...` as "this document" (list handler schemas
#: in real AWS schemas use it), so we do too.
SELF_DOCUMENT = "resource-schema.json"

#: Keys whose value is one subschema, and keys whose value maps names to subschemas.
_SUBSCHEMA_KEYS = ("items", "contains")
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "definitions", "dependencies")


def subschemas(node: Any, pointer: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(pointer, subschema) for `node` and every schema nested in it, in document order."""
    stack: list[tuple[str, Any]] = [(pointer, node)]
    while stack:
        ptr, value = stack.pop()
        if not isinstance(value, dict):
            continue
        yield ptr, value
        children: list[tuple[str, Any]] = []
        for key, child in value.items():
            if key in _SUBSCHEMA_KEYS:
                children.append((join_pointer(ptr, key), child))
            elif key in _SUBSCHEMA_MAPS and isinstance(child, dict):
                children.extend((join_pointer(ptr, key, k), v) for k, v in child.items())
            elif key in COMBINERS and isinstance(child, list):
                children.extend((join_pointer(ptr, key, i), v) for i, v in enumerate(child))
        stack.extend(reversed(children))


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


@dataclass(frozen=True)
class RefOutcome:
    #: The schema the reference points at, when it is in this document.
    target: Any = None
    #: Why it does not resolve (an error), or None.
    problem: str | None = None
    hint: str | None = None
    #: Set when it points outside this document and could not be followed.
    unchecked: str | None = None


@dataclass
class SchemaIndex:
    schema: dict[str, Any]
    #: The folder of the schema file, for relative references to other files.
    base_dir: Path | None = None
    _files: dict[Path, Any] = field(default_factory=dict)

    # ------------------------------------------------------------------ $ref

    def resolve_ref(self, ref: str) -> RefOutcome:
        try:
            return self._resolve(ref)
        except ValueError:  # urllib rejects some malformed URIs, e.g. "http://[::1"
            return RefOutcome(problem=f"$ref {ref!r} is not a valid URI reference")

    def _resolve(self, ref: str) -> RefOutcome:
        base_id = self.schema.get("$id")
        address, fragment = urldefrag(ref)
        if address == SELF_DOCUMENT:
            address = ""
        if address and isinstance(base_id, str) and base_id:
            joined, _ = urldefrag(urljoin(base_id, address))
            if joined == urldefrag(base_id)[0]:
                address = ""
        if not address:
            return self._in_document(self.schema, fragment, ref)
        parts = urlsplit(address)
        if parts.scheme in ("http", "https") or (
            not parts.scheme and isinstance(base_id, str) and "://" in base_id
        ):
            return RefOutcome(unchecked=address)
        if parts.scheme not in ("", "file"):
            return RefOutcome(unchecked=address)
        if self.base_dir is None:
            return RefOutcome(unchecked=address)
        path = self.base_dir / unquote(parts.path)
        document = self._load(path)
        if document is None:
            return RefOutcome(
                problem=f"$ref {ref!r} does not resolve: there is no readable JSON file "
                f"{unquote(parts.path)!r} beside the schema",
                hint="point at a definition in this file, e.g. #/definitions/Name",
            )
        outcome = self._in_document(document, fragment, ref)
        # Another file's subschemas are not walked: only say whether the target exists.
        return RefOutcome(problem=outcome.problem, hint=outcome.hint)

    def _load(self, path: Path) -> Any:
        if path not in self._files:
            try:
                self._files[path] = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                self._files[path] = None
        return self._files[path]

    def _in_document(self, document: Any, fragment: str, ref: str) -> RefOutcome:
        fragment = unquote(fragment)
        if not fragment:
            return RefOutcome(target=document)
        if not fragment.startswith("/"):
            return RefOutcome(
                problem=f"$ref {ref!r} does not resolve: {fragment!r} is not a JSON pointer",
                hint="write the fragment as a pointer, e.g. #/definitions/Name",
            )
        node = document
        walked = ""
        for token in pointer_tokens(fragment):
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                where = f"#{walked}" if walked else "the document"
                hint = None
                if isinstance(node, dict):
                    close = close_match(token, list(node))
                    hint = f"did you mean #{join_pointer(walked, close)}?" if close else None
                return RefOutcome(
                    problem=f"$ref {ref!r} does not resolve: {where} has no {token!r}",
                    hint=hint,
                )
            walked = join_pointer(walked, token)
        if not isinstance(node, dict):
            return RefOutcome(
                problem=f"$ref {ref!r} points at a value that is not a schema",
                hint="point at a definition, e.g. #/definitions/Name",
            )
        return RefOutcome(target=node)

    def expand(self, node: Any) -> list[dict[str, Any]]:
        """`node`, the schemas its `$ref` points at and its allOf/anyOf/oneOf branches."""
        out: list[dict[str, Any]] = []
        seen: set[int] = set()
        stack = [node]
        while stack:
            current = stack.pop()
            if not isinstance(current, dict) or id(current) in seen:
                continue
            seen.add(id(current))
            out.append(current)
            ref = current.get("$ref")
            if isinstance(ref, str):
                stack.append(self.resolve_ref(ref).target)
            for key in COMBINERS:
                branches = current.get(key)
                if isinstance(branches, list):
                    stack.extend(branches)
        return out

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
        candidates = self.expand(root)
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
                    candidates = [n for item in items for n in self.expand(item)]
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
                candidates = [n for f in found for n in self.expand(f)]
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


def close_match(word: str, options: list[str]) -> str | None:
    """The option `word` was probably meant to be: same letters in another case, or close."""
    by_lower = {o.lower(): o for o in options}
    if word.lower() in by_lower:
        return by_lower[word.lower()]
    found = difflib.get_close_matches(word, options, n=1, cutoff=0.7)
    return found[0] if found else None
