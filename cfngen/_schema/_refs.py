"""`$ref` and `allOf` in a schema document: the one resolver, with one limit and one answer for
a reference that cannot be followed.

- `Resolver.resolve_ref(ref)` says where one reference points, or exactly why it points nowhere
  (what `cfngen validate` reports): a pointer in this document (`#/definitions/X`, also spelled
  `resource-schema.json#/...` as the official tool reads it), a JSON file beside the schema when a
  folder is given, or an address outside that is not followed.
- `follow(node)` follows a chain of references to the schema at its end. A reference that cannot
  be followed (to nothing, outside the document, a cycle, a chain longer than MAX_DEPTH) stands
  for the empty schema `{}`, which accepts anything: whoever needs to say more (the validator)
  asks `resolve_ref`.
- `all_of(node, combine)` folds `allOf` branches (each followed) into one schema with the
  caller's `combine`; `expand(node)` lists a node, what it refers to and its allOf/anyOf/oneOf
  branches, for questions like "does any branch declare this property".

`subschemas(node, pointer)` walks every schema nested in a node, in document order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

from cfngen._schema._pointer import join_pointer, pointer_tokens

#: The longest chain of references, and the deepest nesting of allOf, that is followed.
MAX_DEPTH = 64
COMBINERS = ("allOf", "anyOf", "oneOf")
#: The official tool reads `resource-schema.json#/...` as "this document" (list handler schemas
#: in real AWS schemas use it), so we do too.
SELF_DOCUMENT = "resource-schema.json"

#: Keys whose value is one subschema, and keys whose value maps names to subschemas.
_SUBSCHEMA_KEYS = ("items", "contains")
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "definitions", "dependencies")


@dataclass(frozen=True)
class RefOutcome:
    #: The schema the reference points at, when it was found.
    target: Any = None
    #: Why it does not resolve (an error), or None.
    problem: str | None = None
    hint: str | None = None
    #: Set when it points outside this document and could not be followed.
    unchecked: str | None = None


def close_match(word: str, options: list[str]) -> str | None:
    """The option `word` was probably meant to be: same letters in another case, or close."""
    import difflib

    by_lower = {o.lower(): o for o in options}
    if word.lower() in by_lower:
        return by_lower[word.lower()]
    found = difflib.get_close_matches(word, options, n=1, cutoff=0.7)
    return found[0] if found else None


@dataclass
class Resolver:
    """References in `document`; `base_dir` (the schema file's folder) lets relative references
    to other JSON files resolve."""

    document: Any
    base_dir: Path | None = None
    _files: dict[Path, Any] = field(default_factory=dict, repr=False)

    # ------------------------------------------------------------------ one reference

    def resolve_ref(self, ref: str) -> RefOutcome:
        try:
            return self._resolve(ref)
        except ValueError:  # urllib rejects some malformed URIs, e.g. "http://[::1"
            return RefOutcome(problem=f"$ref {ref!r} is not a valid URI reference")

    def _resolve(self, ref: str) -> RefOutcome:
        base_id = self.document.get("$id") if isinstance(self.document, dict) else None
        address, fragment = urldefrag(ref)
        if address == SELF_DOCUMENT:
            address = ""
        if address and isinstance(base_id, str) and base_id:
            joined, _ = urldefrag(urljoin(base_id, address))
            if joined == urldefrag(base_id)[0]:
                address = ""
        if not address:
            return self._in_document(self.document, unquote(fragment), f"$ref {ref!r}")
        parts = urlsplit(address)
        if parts.scheme in ("http", "https") or (
            not parts.scheme and isinstance(base_id, str) and "://" in base_id
        ):
            return RefOutcome(unchecked=address)
        if parts.scheme not in ("", "file") or self.base_dir is None:
            return RefOutcome(unchecked=address)
        path = self.base_dir / unquote(parts.path)
        document = self._load(path)
        if document is None:
            return RefOutcome(
                problem=f"$ref {ref!r} does not resolve: there is no readable JSON file "
                f"{unquote(parts.path)!r} beside the schema",
                hint="point at a definition in this file, e.g. #/definitions/Name",
            )
        outcome = self._in_document(document, unquote(fragment), f"$ref {ref!r}")
        # Another file's subschemas are not walked: only say whether the target exists.
        return RefOutcome(problem=outcome.problem, hint=outcome.hint)

    def at(self, pointer: str) -> RefOutcome:
        """The schema at a JSON pointer into this document, or why there is none."""
        return self._in_document(self.document, pointer, repr(pointer))

    def _load(self, path: Path) -> Any:
        from cfngen._schema._json import JsonSyntaxError, loads

        if path not in self._files:
            try:
                self._files[path] = loads(path.read_text(encoding="utf-8")).data
            except (OSError, UnicodeDecodeError, JsonSyntaxError):
                self._files[path] = None
        return self._files[path]

    def _in_document(self, document: Any, fragment: str, what: str) -> RefOutcome:
        """The node at pointer `fragment`; `what` names the reference in messages."""
        if not fragment:
            return RefOutcome(target=document)
        if not fragment.startswith("/"):
            return RefOutcome(
                problem=f"{what} does not resolve: {fragment!r} is not a JSON pointer",
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
                    problem=f"{what} does not resolve: {where} has no {token!r}",
                    hint=hint,
                )
            walked = join_pointer(walked, token)
        if not isinstance(node, dict):
            return RefOutcome(
                problem=f"{what} points at a value that is not a schema",
                hint="point at a definition, e.g. #/definitions/Name",
            )
        return RefOutcome(target=node)

    # ------------------------------------------------------------------ chains and branches

    def follow_named(self, node: Any) -> tuple[dict[str, Any], str | None]:
        """`follow(node)`, and the last reference that led somewhere (None: none did)."""
        last = None
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref: str = node["$ref"]
            if ref in seen or len(seen) >= MAX_DEPTH:
                return {}, last
            seen.add(ref)
            node = self.resolve_ref(ref).target
            if node is None:
                return {}, last
            last = ref
        if isinstance(node, dict):
            return node, last
        # A boolean schema: true accepts anything, false nothing; anything else is no schema.
        return ({"not": {}} if node is False else {}), last

    def follow(self, node: Any) -> dict[str, Any]:
        """The schema at the end of `node`'s chain of references (`node` itself when it has no
        `$ref`); `{}` when the chain cannot be followed."""
        return self.follow_named(node)[0]

    def all_of(
        self,
        node: Any,
        combine: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]],
        _depth: int = 0,
    ) -> dict[str, Any]:
        """`node` followed, with its allOf branches (each followed, recursively) folded in by
        `combine(merged_so_far, branch)`."""
        if _depth > MAX_DEPTH:
            return {}
        schema = self.follow(node)
        branches = schema.get("allOf")
        if not isinstance(branches, list):
            return schema
        merged = {k: v for k, v in schema.items() if k != "allOf"}
        for branch in branches:
            merged = combine(merged, self.all_of(branch, combine, _depth + 1))
        return merged

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
