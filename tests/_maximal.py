"""Instances of a resource schema for round-trip tests, written independently of cfngen's
normaliser so that the two do not share a mistake.

A schema is read into *shapes* (what a JSON value at that place may be). From a shape:
- `maximal(schema)`: a deterministic instance that fills every property (arrays of 2 items,
  nested objects, maps, the first enum value, the first branch of oneOf/anyOf);
- `empties(schema)`: every array `[]` and every object `{}` at the top level;
- `strategy(schema)`: hypothesis-generated instances (hypothesis-jsonschema does not work with
  our hypothesis; and it validates patterns we do not need: a round trip only needs the shape).

Each generator gives `(typed, expected)` pairs: `typed` is the instance, `expected` is what a
model must give back when it reads `stringify(typed)` — CloudFormation's all-strings form —
and writes it again: typed values where the schema allows no string, the strings otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SCALARS = ("string", "integer", "number", "boolean", "null")
_STRUCTURAL = {
    "type",
    "properties",
    "patternProperties",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "$ref",
    "allOf",
    "oneOf",
    "anyOf",
}


@dataclass
class Shape:
    #: "any", "scalar", "array", "object" (declared properties), "map", "union", "ref"
    kind: str
    types: frozenset[str] = frozenset()
    enum: list[Any] | None = None
    items: Shape | None = None
    properties: dict[str, Shape] = field(default_factory=dict)
    #: for "map" (and extra keys of "object"): the shapes values may have
    values: list[Shape] = field(default_factory=list)
    options: list[Shape] = field(default_factory=list)
    ref: str | None = None


ANY = Shape("any")


class Shapes:
    """Shapes of the places in one schema document; `$ref`s stay lazy (schemas recurse)."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.refs: dict[str, Shape] = {}

    def root(self) -> Shape:
        return self.object_shape(self.document)

    def object_shape(self, schema: dict[str, Any]) -> Shape:
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        return Shape("object", properties={k: self.shape(v) for k, v in props.items()})

    def resolve(self, shape: Shape) -> Shape:
        seen = 0
        while shape.kind == "ref" and seen < 50:
            assert shape.ref is not None
            if shape.ref not in self.refs:
                self.refs[shape.ref] = ANY  # a reference to itself and nothing else
                self.refs[shape.ref] = self.shape(self.pointer(shape.ref))
            shape = self.refs[shape.ref]
            seen += 1
        return shape

    def pointer(self, ref: str) -> Any:
        target: Any = self.document
        for escaped in ref[1:].split("/")[1:]:
            part = escaped.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict):
                target = target.get(part)
            elif isinstance(target, list) and part.isdigit():
                target = target[int(part)]
            else:
                return {}
        return target

    def raw(self, schema: Any, depth: int = 0) -> dict[str, Any]:
        """A schema with references and allOf merged in (for allOf and branch overlays)."""
        if not isinstance(schema, dict) or depth > 30:
            return {}
        if isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#"):
            return self.raw(self.pointer(schema["$ref"]), depth + 1)
        if "allOf" in schema:
            out = {k: v for k, v in schema.items() if k != "allOf"}
            for branch in schema["allOf"]:
                out = overlay(out, self.raw(branch, depth + 1))
            return out
        return schema

    def shape(self, schema: Any) -> Shape:
        if not isinstance(schema, dict):
            return ANY
        if "$ref" in schema:
            ref = schema["$ref"]
            return Shape("ref", ref=ref) if isinstance(ref, str) and ref.startswith("#") else ANY
        if "allOf" in schema:
            branches = [b for b in schema["allOf"] if _structural(b)]
            own = {k: v for k, v in schema.items() if k != "allOf"}
            if len(branches) == 1 and not _structural(own):
                return self.shape({**own, **branches[0]})
            merged = own
            for branch in branches:
                merged = overlay(merged, self.raw(branch))
            schema = merged
        branches = [*schema.get("oneOf", []), *schema.get("anyOf", [])]
        if branches:
            own = {k: v for k, v in schema.items() if k not in ("oneOf", "anyOf")}
            useful = [b for b in branches if _structural(b)]
            if not useful:
                return self.shape(own)
            return union([self.shape(overlay(own, b)) for b in useful])
        types = schema.get("type")
        if isinstance(types, list):
            return union([self.shape({**schema, "type": t}) for t in dict.fromkeys(types)])
        if types is None:
            if any(
                k in schema for k in ("properties", "patternProperties", "additionalProperties")
            ):
                types = "object"
            elif "items" in schema:
                types = "array"
            elif "enum" in schema or "const" in schema:
                values = schema["enum"] if "enum" in schema else [schema["const"]]
                return Shape("scalar", frozenset(_json_type(v) for v in values), list(values))
            else:
                return ANY
        if types == "object":
            props = schema.get("properties")
            values = [self.shape(v) for v in (schema.get("patternProperties") or {}).values()]
            if isinstance(schema.get("additionalProperties"), dict):
                values.append(self.shape(schema["additionalProperties"]))
            if isinstance(props, dict) and props:
                shape = self.object_shape(schema)
                shape.values = values
                return shape
            return Shape("map", values=values or [ANY])
        if types == "array":
            items = schema.get("items")
            if isinstance(items, list):
                return Shape("array", items=union([self.shape(i) for i in items]) if items else ANY)
            return Shape("array", items=self.shape(items) if items is not None else ANY)
        if types not in SCALARS:
            return ANY
        enum = schema.get("enum") if isinstance(schema.get("enum"), list) else None
        if "const" in schema:
            enum = [schema["const"]]
        return Shape("scalar", frozenset({types}), enum or None)


def union(shapes: list[Shape]) -> Shape:
    return shapes[0] if len(shapes) == 1 else Shape("union", options=shapes)


def overlay(base: dict[str, Any], branch: Any) -> dict[str, Any]:
    if not isinstance(branch, dict):
        return base
    if "$ref" in branch and not _structural(base):
        return branch
    out = dict(base)
    for key, value in branch.items():
        if key == "properties" and isinstance(out.get("properties"), dict):
            out["properties"] = {**out["properties"], **(value or {})}
        else:
            out[key] = value
    return out


def _structural(schema: Any) -> bool:
    return isinstance(schema, dict) and bool(_STRUCTURAL & set(schema))


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "any"


# ---------------------------------------------------------------------- CloudFormation's strings


def stringify(value: Any) -> Any:
    """CloudFormation sends every primitive as a string."""
    if isinstance(value, dict):
        return {k: stringify(v) for k, v in value.items()}
    if isinstance(value, list):
        return [stringify(v) for v in value]
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return value


def string_allowed(shapes: Shapes, shape: Shape, text: str) -> bool:
    """Whether the string `text` is a value of its own at this place (then "5" stays "5")."""
    shape = shapes.resolve(shape)
    if shape.kind == "any":
        return True
    if shape.kind == "scalar":
        if shape.enum is not None:
            return text in shape.enum
        return "string" in shape.types
    if shape.kind == "union":
        return any(string_allowed(shapes, option, text) for option in shape.options)
    return False


def expected_leaf(shapes: Shapes, place: Shape, value: Any) -> Any:
    """What reading stringify(value) at `place` must give back."""
    text = stringify(value)
    if value is None or string_allowed(shapes, place, text):
        return text
    return value


# ---------------------------------------------------------------------- the maximal instance


class Maximal:
    """Every property, once fully: a definition met again is filled with its scalars only
    (QuickSight's schemas would otherwise expand into millions of nodes)."""

    MAX_DEPTH = 12

    def __init__(self, schema: dict[str, Any]) -> None:
        self.shapes = Shapes(schema)
        self.counter = 0
        self.expanded: set[str] = set()

    def next(self) -> int:
        self.counter += 1
        return self.counter

    def instance(self) -> tuple[Any, Any]:
        return self.value(
            self.shapes.root(), self.shapes.root(), depth=0, name="Root", index=0, path=set()
        )

    def value(
        self, shape: Shape, place: Shape, *, depth: int, name: str, index: int, path: set[str]
    ) -> tuple[Any, Any]:
        """(typed, expected) for one place; (None, None) leaves it out."""
        ref = shape.ref if shape.kind == "ref" else None
        if ref is not None:
            if ref in path:
                return None, None  # recursion: stop here
            path = path | {ref}
        shape = self.shapes.resolve(shape)
        if depth > self.MAX_DEPTH:
            return None, None
        if shape.kind == "union":
            option = shape.options[index % len(shape.options)] if index else shape.options[0]
            return self.value(option, place, depth=depth, name=name, index=0, path=path)
        if shape.kind == "any":
            value = f"{name}-{self.next()}"
            return value, value
        if shape.kind == "scalar":
            value = self.scalar(shape, name, index)
            return value, expected_leaf(self.shapes, place, value)
        if shape.kind == "array":
            assert shape.items is not None
            items = [
                self.value(shape.items, shape.items, depth=depth + 1, name=name, index=i, path=path)
                for i in (0, 1)
            ]
            items = [pair for pair in items if pair[0] is not None]
            if not items:
                return None, None
            return [typed for typed, _ in items], [expected for _, expected in items]
        if shape.kind == "map":
            typed: dict[str, Any] = {}
            expected: dict[str, Any] = {}
            for i, value_shape in enumerate(shape.values):
                pair = self.value(
                    value_shape, value_shape, depth=depth + 1, name=name, index=0, path=path
                )
                if pair[0] is not None:
                    typed[f"Key{i + 1}"], expected[f"Key{i + 1}"] = pair
            return typed, expected
        # an object with declared properties
        full = ref is None or ref not in self.expanded
        if ref is not None:
            self.expanded.add(ref)
        typed, expected = {}, {}
        for prop, sub in shape.properties.items():
            if not full and self.shapes.resolve(sub).kind not in ("scalar", "any"):
                continue
            pair = self.value(sub, sub, depth=depth + 1, name=prop, index=0, path=path)
            if pair[0] is not None:
                typed[prop], expected[prop] = pair
        if full and shape.values:
            pair = self.value(shape.values[0], ANY, depth=depth + 1, name=name, index=0, path=path)
            if pair[0] is not None:  # a key beyond the declared ones: kept as it came
                typed["ExtraKey1"], expected["ExtraKey1"] = pair[0], stringify(pair[0])
        return typed, expected

    def scalar(self, shape: Shape, name: str, index: int) -> Any:
        if shape.enum:
            return shape.enum[index % len(shape.enum)]
        kind = sorted(shape.types)[0] if len(shape.types) > 1 else next(iter(shape.types))
        n = self.next()
        if kind == "integer":
            return 1 + n % 97
        if kind == "number":
            return 0.5 + n % 97
        if kind == "boolean":
            return index == 0
        if kind == "null":
            return None
        return f"{name}-{n}"


def maximal(schema: dict[str, Any]) -> tuple[Any, Any]:
    """(instance, expected from its stringified form) filling every property."""
    return Maximal(schema).instance()


def empties(schema: dict[str, Any]) -> dict[str, Any]:
    """Every top-level array property `[]` and object property `{}`: empty is kept."""
    shapes = Shapes(schema)
    out: dict[str, Any] = {}
    for prop, sub in shapes.root().properties.items():
        shape = shapes.resolve(sub)
        while shape.kind == "union":
            shape = shapes.resolve(shape.options[0])
        if shape.kind == "array":
            out[prop] = []
        elif shape.kind in ("object", "map"):
            out[prop] = {}
    return out


# ---------------------------------------------------------------------- hypothesis


def strategy(schema: dict[str, Any], max_depth: int = 5) -> Any:
    """A hypothesis strategy of (typed, expected) pairs for a schema."""
    from hypothesis import strategies as st

    shapes = Shapes(schema)
    key = st.text(alphabet="abcXYZ019-_", min_size=1, max_size=6)
    text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)

    def leaf(place: Shape, shape: Shape) -> Any:
        if shape.enum:
            values = st.sampled_from(shape.enum)
        else:
            options = []
            for kind in sorted(shape.types):
                options.append(
                    {
                        "string": text,
                        "integer": st.integers(-(2**40), 2**40),
                        "number": st.floats(allow_nan=False, allow_infinity=False, width=64),
                        "boolean": st.booleans(),
                        "null": st.none(),
                    }[kind]
                )
            values = st.one_of(options)
        return values.map(lambda v: (v, expected_leaf(shapes, place, v)))

    def pairs_of_dict(d: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        return {k: t for k, (t, _) in d.items()}, {k: e for k, (_, e) in d.items()}

    def of(shape: Shape, place: Shape, depth: int) -> Any:
        """A strategy, or None where nothing can be generated within the depth."""
        if shape.kind == "ref" and depth > max_depth:
            return None
        shape = shapes.resolve(shape)
        if shape.kind == "union":
            options = [s for s in (of(o, place, depth) for o in shape.options) if s is not None]
            return st.one_of(options) if options else None
        if shape.kind == "any":
            return st.one_of(text, st.integers(-99, 99), st.booleans()).map(
                lambda v: (v, stringify(v))
            )
        if shape.kind == "scalar":
            return leaf(place, shape)
        if depth > max_depth:
            return None
        if shape.kind == "array":
            assert shape.items is not None
            items = of(shape.items, shape.items, depth + 1)
            if items is None:
                return st.just(([], []))
            return st.lists(items, max_size=3).map(
                lambda pairs: ([t for t, _ in pairs], [e for _, e in pairs])
            )
        if shape.kind == "map":
            values = [s for s in (of(v, v, depth + 1) for v in shape.values) if s is not None]
            if not values:
                return st.just(({}, {}))
            return st.dictionaries(key, st.one_of(values), max_size=3).map(pairs_of_dict)
        fields = {
            prop: strat
            for prop, sub in shape.properties.items()
            if (strat := of(sub, sub, depth + 1)) is not None
        }
        return st.fixed_dictionaries({}, optional=fields).map(pairs_of_dict)

    return of(shapes.root(), shapes.root(), 0)


def first_difference(expected: Any, actual: Any, path: str = "") -> str | None:
    """Where two JSON values differ (bool, int, float and str all distinct), or None."""
    if type(expected) is not type(actual):
        return f"{path or '/'}: {expected!r} came back as {actual!r}"
    if isinstance(expected, dict):
        for key in expected.keys() | actual.keys():
            if key not in actual:
                return f"{path}/{key}: lost"
            if key not in expected:
                return f"{path}/{key}: appeared"
            found = first_difference(expected[key], actual[key], f"{path}/{key}")
            if found:
                return found
        return None
    if isinstance(expected, list):
        if len(expected) != len(actual):
            return f"{path}: {len(expected)} items came back as {len(actual)}"
        for i, (a, b) in enumerate(zip(expected, actual, strict=True)):
            found = first_difference(a, b, f"{path}/{i}")
            if found:
                return found
        return None
    return None if expected == actual else f"{path or '/'}: {expected!r} came back as {actual!r}"


# ---------------------------------------------------------------------- loading generated models


def load_models(files: dict[str, str], package: str) -> Any:
    """Import rendered models.py (with the runtime library's serialisation) as
    `<package>.models`, in memory.

    The runtime library is the same for every schema: it is imported once and shared.
    Call `unload(package)` afterwards.
    """
    import importlib.util
    import sys
    import types

    from cfngen._support.cfngen_runtime import serialisation

    # The runtime library's module, as cfngen's own tree holds it (generate copies it as is).
    sys.modules[package] = types.ModuleType(package)
    sys.modules[package].__path__ = []
    sys.modules[f"{package}.cfngen_runtime"] = types.ModuleType(f"{package}.cfngen_runtime")
    sys.modules[f"{package}.cfngen_runtime.serialisation"] = serialisation
    spec = importlib.util.spec_from_loader(f"{package}.models", loader=None)
    assert spec is not None
    return _exec_module(f"{package}.models", files["models.py"], "models.py", package)


def _exec_module(name: str, text: str, filename: str, package: str | None = None) -> Any:
    import sys
    import types

    module = types.ModuleType(name)
    module.__file__ = filename
    if package is not None:
        module.__package__ = package
    sys.modules[name] = module
    try:
        exec(compile(text, filename, "exec"), module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def unload(package: str) -> None:
    import sys

    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
        del sys.modules[name]
