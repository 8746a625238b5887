"""Turn a resource schema into the JSON schema datamodel-code-generator should see.

Without this the generated models are silently wrong for real schemas: `required` would make
fields mandatory (handlers get partial models), `default` would invent values, `$ref` siblings
and validation keywords change nothing in a type but slow generation down, dotted definition
names become modules, and a definition named like one of our classes or a typing name shadows it.

What comes out keeps only what shapes a Python type (type, properties, items, maps, enum, const,
unions, references). Every object with properties becomes a named definition ("hoisted"), so
class names are ours to choose: definitions keep their names, nested objects are named after
their property, and every class name is already in the form the generator leaves unchanged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from cfngen._models._names import (
    CALLBACK_CONTEXT,
    RESERVED_CLASS_NAMES,
    RESOURCE_MODEL,
    TYPE_CONFIGURATION_MODEL,
    class_name,
    needs_alias,
    official_class_name,
    python_name,
)
from cfngen._schema import Resolver, pointer_tokens
from cfngen._support import STATE_KEY

_STRUCTURAL = ("type", "properties", "patternProperties", "additionalProperties", "items", "enum")
_TYPES = ("object", "array", "string", "integer", "number", "boolean", "null")


@dataclass
class Normalised:
    """The generator's input, and what the generated classes must look like."""

    schema: dict[str, Any]
    #: class name -> the JSON property names its dataclass must read and write, in order.
    classes: dict[str, list[str]] = field(default_factory=dict)
    #: the official plugin's name of a class -> ours (the first class it names, when a pointer
    #: into the schema made a second class of the same object).
    official: dict[str, str] = field(default_factory=dict)


def normalise(
    schema: dict[str, Any],
    callback_context: dict[str, Any] | None = None,
    *,
    alias_all: frozenset[str] = frozenset(),
    root: str | None = None,
) -> Normalised:
    """The generator's input for a resource schema and the project's callback-context schema.

    `alias_all` names properties to carry an alias even where `needs_alias` says no (the caller
    retries with them when the generator renamed a field we did not expect it to). With `root`,
    the schema's properties become that one class (and its definitions theirs): no
    TypeConfigurationModel or CallbackContext (a hook target's model, a hook's configuration).
    """
    return _Normaliser(schema, callback_context, alias_all, root).run()


class _Normaliser:
    def __init__(
        self,
        schema: dict[str, Any],
        callback_context: dict[str, Any] | None,
        alias_all: frozenset[str],
        root: str | None = None,
    ) -> None:
        self.schema = schema
        self.callback = callback_context if isinstance(callback_context, dict) else {}
        self.alias_all = alias_all
        self.root = root
        self.taken: set[str] = set(RESERVED_CLASS_NAMES) | ({root} if root else set())
        self.definitions: dict[str, Any] = {}
        self.classes: dict[str, list[str]] = {}
        self.official: dict[str, str] = {}
        #: (document, definition name) -> class or alias name in the output
        self.def_names: dict[tuple[str, str], str] = {}
        self.inlining: set[str] = set()
        self.resolvers = {"resource": Resolver(self.schema), "callback": Resolver(self.callback)}

    # ------------------------------------------------------------------ naming

    def claim(self, wanted: str, parent: str | None = None) -> str:
        base = class_name(wanted)
        if base in RESERVED_CLASS_NAMES:
            base += "Model"
        candidates = [base]
        if parent is not None:
            candidates.append(parent + base)
        for candidate in candidates:
            if candidate not in self.taken:
                self.taken.add(candidate)
                return candidate
        number = 2
        while f"{candidates[-1]}{number}" in self.taken:
            number += 1
        name = f"{candidates[-1]}{number}"
        self.taken.add(name)
        return name

    def name_officially(self, wanted: str, name: str) -> None:
        """Note the official plugin's name for the class `name` made of `wanted`."""
        official = official_class_name(wanted)
        if official is not None:
            self.official.setdefault(official, name)

    # ------------------------------------------------------------------ entry

    def run(self) -> Normalised:
        documents = (("resource", self.schema), ("callback", self.callback))
        for doc, source in documents:
            for def_name in _definitions(source):
                self.def_names[(doc, def_name)] = self.claim(def_name)
        for doc, source in documents:
            for def_name, definition in _definitions(source).items():
                name = self.def_names[(doc, def_name)]
                # The plugin makes a class of some unions (it merges their branches): every
                # definition gets its name, and assemble binds the names it can.
                self.name_officially(def_name, name)
                self.definitions[name] = self.named(definition, name, doc)

        if self.root is not None:
            only = self.object_class(self.root, self.schema, "resource")
            only["definitions"] = self.definitions
            return Normalised(schema=only, classes=self.classes, official=self.official)
        root = self.object_class(RESOURCE_MODEL, self.schema, "resource")
        config = self.schema.get("typeConfiguration")
        self.definitions[TYPE_CONFIGURATION_MODEL] = self.object_class(
            TYPE_CONFIGURATION_MODEL, config if isinstance(config, dict) else {}, "resource"
        )
        self.definitions[CALLBACK_CONTEXT] = self.object_class(
            CALLBACK_CONTEXT, _with_support_state(self.callback), "callback"
        )
        root["definitions"] = self.definitions
        return Normalised(schema=root, classes=self.classes, official=self.official)

    def named(self, definition: Any, name: str, doc: str) -> dict[str, Any]:
        """A definition under the name already claimed for it."""
        if _is_class(definition):
            return self.object_class(name, definition, doc)
        node = self.node(definition, name, doc, None)
        if node.get("$ref") == f"#/definitions/{name}":  # a definition that only refers to itself
            return {}
        return node

    def object_class(self, name: str, source: dict[str, Any], doc: str) -> dict[str, Any]:
        properties = source.get("properties")
        if not isinstance(properties, dict):
            properties = {}
        out: dict[str, Any] = {}
        aliased = [p for p in properties if needs_alias(p) or p in self.alias_all]
        used = set(properties) - set(aliased)
        for prop, sub in properties.items():
            node = self.node(sub, prop, doc, name)
            if prop in aliased:
                # We choose the Python name (the generator's own choice may not survive Python's
                # NFKC normalisation of identifiers, "ﬁle" is "file"), the JSON name travels.
                key = python_name(prop, used, retry=prop in self.alias_all)
                used.add(key)
                out[key] = {**node, "metadata": {"alias": prop}}
            else:
                out[prop] = node
        self.classes[name] = list(properties)
        return {"type": "object", "properties": out, "additionalProperties": False}

    # ------------------------------------------------------------------ one schema node

    def node(self, schema: Any, hint: str, doc: str, parent: str | None) -> dict[str, Any]:
        if not isinstance(schema, dict):
            return {}
        schema = self.merge_all_of(schema, doc)
        if "$ref" in schema:
            return self.ref(schema["$ref"], hint, doc, parent)
        branches = [*_list(schema.get("oneOf")), *_list(schema.get("anyOf"))]
        if branches:
            own = {k: v for k, v in schema.items() if k not in ("oneOf", "anyOf")}
            return self.union(
                [
                    self.node(_overlay(own, b), _branch_hint(b, hint), doc, parent)
                    for b in branches
                    if _structural(b)
                ]
                or [self.node(own, hint, doc, parent)]
            )
        types = schema.get("type")
        if isinstance(types, list):
            types = [t for t in dict.fromkeys(types) if t in _TYPES]
            if len(types) != 1:
                return self.union(
                    [self.node({**schema, "type": t}, hint, doc, parent) for t in types]
                )
            types = types[0]
        if types not in _TYPES:
            types = _infer_type(schema)
        if types is None:
            return _literal(schema) or {}
        if types == "object":
            if _is_class(schema):
                name = self.claim(hint, parent)
                self.name_officially(hint, name)
                self.definitions[name] = self.object_class(name, schema, doc)
                return {"$ref": f"#/definitions/{name}"}
            values = [v for v in _dict(schema.get("patternProperties")).values()]
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict):
                values.append(extra)
            nodes = [self.node(v, hint, doc, parent) for v in values]
            if not nodes:
                return {"type": "object"}
            return {"type": "object", "additionalProperties": self.union(nodes)}
        if types == "array":
            items = schema.get("items")
            if isinstance(items, list):
                return {
                    "type": "array",
                    "items": self.union([self.node(i, hint, doc, parent) for i in items]),
                }
            return {"type": "array", "items": self.node(items, hint, doc, parent)}
        out: dict[str, Any] = {"type": types}
        literal = _literal(schema)
        if literal:
            out.update(literal)
        return out

    def ref(self, ref: Any, hint: str, doc: str, parent: str | None) -> dict[str, Any]:
        if not isinstance(ref, str) or not ref.startswith("#"):
            return {}  # remote references: nothing to read, so any value is accepted
        parts = pointer_tokens(ref[1:])
        if len(parts) == 2 and parts[0] == "definitions" and (doc, parts[1]) in self.def_names:
            final = self.alias_target(doc, parts[1])
            return {"$ref": f"#/definitions/{self.def_names[(doc, final)]}"} if final else {}
        # a pointer elsewhere in the document (a property, an items schema): its type, inline
        key = f"{doc}:{ref}"
        if key in self.inlining:
            return {}
        target = self.resolvers[doc].resolve_ref(ref).target
        if target is None:
            return {}
        self.inlining.add(key)
        try:
            return self.node(target, hint, doc, parent)
        finally:
            self.inlining.discard(key)

    def alias_target(self, doc: str, name: str) -> str | None:
        """The definition a chain of definitions that are only `{"$ref": ...}` ends at (itself
        when it is no such alias); None when the chain comes back to itself.

        Every alias then names the end of its chain directly: the generator recurses once per
        link and runs out of stack on a few hundred.
        """
        source = self.schema if doc == "resource" else self.callback
        seen = {name}
        while True:
            definition = _dict(_definitions(source).get(name))
            ref = definition.get("$ref")
            if not isinstance(ref, str) or any(
                k in definition for k in (*_STRUCTURAL, "const", "allOf", "oneOf", "anyOf")
            ):
                return name  # not only a reference
            parts = pointer_tokens(ref[1:]) if ref.startswith("#") else []
            if (
                len(parts) != 2
                or parts[0] != "definitions"
                or (doc, parts[1]) not in self.def_names
            ):
                return name
            if parts[1] in seen:
                return None
            seen.add(parts[1])
            name = parts[1]

    def merge_all_of(self, schema: dict[str, Any], doc: str) -> dict[str, Any]:
        """allOf as one schema: a lone `$ref` stays a reference, anything else is merged."""
        all_of = [b for b in _list(schema.get("allOf")) if _structural(b)]
        own = {k: v for k, v in schema.items() if k != "allOf"}
        if not all_of:
            return own
        if len(all_of) == 1 and not _structural(own):
            return {**own, **all_of[0]}
        merged = own
        for branch in all_of:
            merged = _overlay(merged, self.resolve(branch, doc))
        return merged

    def resolve(self, schema: Any, doc: str) -> dict[str, Any]:
        """A schema with its `$ref` and allOf followed, for merging."""
        return self.resolvers[doc].all_of(schema, _overlay)

    @staticmethod
    def union(nodes: list[dict[str, Any]]) -> dict[str, Any]:
        unique: dict[str, dict[str, Any]] = {}
        for node in nodes:
            if not node:  # one branch accepts anything: so does the union
                return {}
            unique.setdefault(json.dumps(node, sort_keys=True), node)
        options = list(unique.values())
        return options[0] if len(options) == 1 else {"anyOf": options}


# ---------------------------------------------------------------------- helpers


def _with_support_state(callback: dict[str, Any]) -> dict[str, Any]:
    """The callback context with the runtime library's reserved key (a JSON object) as its
    last field."""
    properties = _dict(callback.get("properties"))
    own = {name: sub for name, sub in properties.items() if name != STATE_KEY}
    return {**callback, "properties": {**own, STATE_KEY: {"type": "object"}}}


def _definitions(source: dict[str, Any]) -> dict[str, Any]:
    return _dict(source.get("definitions"))


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _structural(schema: Any) -> bool:
    """Whether a schema says anything about the type (`required` or `pattern` alone do not)."""
    return isinstance(schema, dict) and any(
        k in schema for k in (*_STRUCTURAL, "const", "$ref", "allOf", "oneOf", "anyOf")
    )


def _is_class(schema: Any) -> bool:
    """An object with declared properties: it becomes a dataclass."""
    return (
        isinstance(schema, dict)
        and isinstance(schema.get("properties"), dict)
        and bool(schema["properties"])
        and schema.get("type", "object") in ("object", ["object"])
    )


def _overlay(base: dict[str, Any], branch: Any) -> dict[str, Any]:
    """`base` and `branch` as one schema (both apply); properties are united."""
    if not isinstance(branch, dict):
        return base
    if "$ref" in branch and not _structural(base):
        return branch
    out = dict(base)
    for key, value in branch.items():
        if key == "properties" and isinstance(out.get("properties"), dict):
            out["properties"] = {**out["properties"], **_dict(value)}
        else:
            out[key] = value
    return out


def _branch_hint(branch: Any, hint: str) -> str:
    """A union branch's class is named after its title, else after the property."""
    title = branch.get("title") if isinstance(branch, dict) else None
    return title if isinstance(title, str) and class_name(title) != "Model" else hint


def _infer_type(schema: dict[str, Any]) -> str | None:
    if any(k in schema for k in ("properties", "patternProperties", "additionalProperties")):
        return "object"
    if "items" in schema:
        return "array"
    return None


def _literal(schema: dict[str, Any]) -> dict[str, Any]:
    """`enum`/`const` when a Literal can hold every value (str, int, bool, None)."""
    if "const" in schema and _literal_value(schema["const"]):
        return {"const": schema["const"]}
    values = schema.get("enum")
    if isinstance(values, list) and values and all(_literal_value(v) for v in values):
        unique: list[Any] = []
        for value in values:
            if not any(type(u) is type(value) and u == value for u in unique):
                unique.append(value)
        return {"enum": unique}
    return {}


def _literal_value(value: Any) -> bool:
    return value is None or (isinstance(value, (str, bool, int)) and not isinstance(value, float))
