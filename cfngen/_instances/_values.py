"""Values for a schema: generate optimistically, validate once, repair only where it failed.

The first pass fills every value from its schema alone (the required properties, the cheap
optional ones, the first alternative of a oneOf). One Draft 7 validation of the whole instance
then names the paths that fail, and only those are generated again with the next strategy
(another variant, another alternative, required properties only, adding optional properties one
at a time); a path out of strategies hands the problem to its parent. Most schemas validate on
the first pass, so a typical schema costs one generation and one validation.

No JSON Schema instance generator does this for us: hypothesis-jsonschema (84 % of a corpus
sample) breaks on current hypothesis and cannot read Java patterns or cfn-lint's formats.
"""

from __future__ import annotations

import math
from typing import Any

from cfngen._instances import _conformance
from cfngen._instances._scalars import (
    _ARRAY_FORMATS,
    MISSING,
    _canonical,
    _dependencies,
    _map_key,
    _merge,
    _types,
    enum_value,
    number_value,
    string_value,
)
from cfngen._schema import Resolver, pointer_tokens

# MISSING is part of this module's interface (code written before _scalars.py imports it here).
__all__ = ["MAX_DEPTH", "MAX_ROUNDS", "MISSING", "OPTIONAL_DEPTH", "VALUE_BUDGET", "Builder"]

Path = tuple[str | int, ...]


#: Optional properties are filled down to this depth (the resource's properties are depth 1).
OPTIONAL_DEPTH = 3
#: ...and while fewer values than this were generated (230 KB schemas stay quick).
VALUE_BUDGET = 400
#: Below this depth only what is required is generated (recursive definitions end here).
MAX_DEPTH = 12
MAX_ROUNDS = 40


class _Node:
    """How the value at one path was made: its schema and what to try next."""

    def __init__(self, schema: Any, depth: int, required: bool) -> None:
        self.schema = schema
        self.depth = depth
        self.required = required


class Builder:
    """Instances of one resource schema. `variant` picks among equally good values."""

    def __init__(self, root: dict[str, Any], variant: int = 0) -> None:
        from cfngen._schema import without_ref_loops

        self.root = without_ref_loops(root)  # a $ref loop alone accepts any value
        self.resolver = Resolver(self.root)
        self.variant = variant
        self.validator = _conformance.validator(root, "input")
        self.nodes: dict[Path, _Node] = {}
        self.attempts: dict[Path, int] = {}
        self.count = 0
        self.read_only = [
            tuple(pointer_tokens(p)[1:])
            for p in root.get("readOnlyProperties", [])
            if p.startswith("/properties/")
        ]
        self.deprecated = {
            pointer_tokens(p)[1]
            for p in root.get("deprecatedProperties", [])
            if p.startswith("/properties/") and p.count("/") == 2
        }

    # -- schema plumbing

    def resolve(self, schema: Any) -> dict[str, Any]:
        return self.resolver.follow(schema)

    def effective(self, schema: Any) -> dict[str, Any]:
        """The schema with $ref followed and allOf merged into one set of constraints."""
        return self.resolver.all_of(schema, _merge)

    def is_read_only(self, path: Path) -> bool:
        names = tuple("*" if isinstance(p, int) else p for p in path)
        return any(ro == names for ro in self.read_only)

    def valid(self, schema: Any, value: Any) -> bool:
        return _conformance.is_valid(self.validator.evolve(schema=schema), value)

    # -- generation

    def value(self, schema: Any, path: Path, depth: int, required: bool = True) -> Any:
        self.nodes[path] = _Node(schema, depth, required)
        self.count += 1
        if depth > MAX_DEPTH + 20:
            return MISSING
        return self.dispatch(self.effective(schema), path, depth, self.attempts.get(path, 0))

    def dispatch(self, s: dict[str, Any], path: Path, depth: int, attempt: int) -> Any:
        if "const" in s:
            return s["const"]
        if "enum" in s:
            return self.enum(s, attempt)
        for keyword in ("oneOf", "anyOf"):
            if isinstance(s.get(keyword), list) and s[keyword]:
                return self.alternative(s, keyword, path, depth, attempt)
        types = _types(s)
        kind = types[attempt // 4 % len(types)] if types else "string"
        if kind == "object":
            return self.object(s, path, depth, attempt)
        if kind == "array":
            return self.array(s, path, depth, attempt)
        if kind in ("integer", "number"):
            return self.number(s, kind, attempt)
        if kind == "boolean":
            return (self.variant + attempt) % 2 == 0
        if kind == "null":
            return None
        return self.string(s, attempt)

    def enum(self, s: dict[str, Any], attempt: int) -> Any:
        return enum_value(s, self.variant + attempt, self.valid)

    def alternative(
        self, s: dict[str, Any], keyword: str, path: Path, depth: int, attempt: int
    ) -> Any:
        """attempt // 3 picks the alternative, attempt % 3 the object mode within it."""
        branches = s[keyword]
        index = (attempt // 3) % len(branches)
        branch = self.effective(branches[index])
        combined = _merge({k: v for k, v in s.items() if k != keyword}, branch)
        # A property that only another alternative requires could make that one match too.
        mine = set(branch.get("required", []))
        avoid = [
            r
            for i, other in enumerate(branches)
            if i != index and keyword == "oneOf"
            for r in self.effective(other).get("required", [])
            if r not in mine
        ]
        if avoid:
            combined["x-cfngen-avoid"] = [*combined.get("x-cfngen-avoid", []), *avoid]
        return self.dispatch(combined, path, depth, attempt % 3)

    def string(self, s: dict[str, Any], attempt: int) -> Any:
        return string_value(s, self.variant + attempt)

    def number(self, s: dict[str, Any], kind: str, attempt: int) -> Any:
        return number_value(s, kind, self.variant + attempt)

    def array(self, s: dict[str, Any], path: Path, depth: int, attempt: int) -> Any:
        lo = int(s.get("minItems", 0))
        hi = s.get("maxItems")
        optional_ok = depth <= MAX_DEPTH and self.count < VALUE_BUDGET * 4
        count = max(lo, 1 if optional_ok and attempt < 2 else 0)
        if hi is not None:
            count = min(count, int(hi))
        items = s.get("items", {})
        fmt = s.get("format")
        if fmt in _ARRAY_FORMATS and not (isinstance(items, dict) and items):
            items = {"type": "string", "format": _ARRAY_FORMATS[fmt]}
        unique = s.get("uniqueItems", False)
        out: list[Any] = []
        seen: set[str] = set()
        contains = s.get("contains")
        for i in range(count):
            item_schema = items[i] if isinstance(items, list) and i < len(items) else items
            if isinstance(items, list) and i >= len(items):
                item_schema = s.get("additionalItems", {})
            if i == 0 and contains is not None:
                item_schema = {"allOf": [item_schema, contains]}
            value = MISSING
            for extra in range(8 if unique else 1):
                saved = self.variant
                # Distinct variants make distinct items (uniqueItems) and vary long lists.
                self.variant = saved + i + max(count, 1) * (extra + attempt)
                try:
                    value = self.value(item_schema, (*path, i), depth + 1)
                finally:
                    self.variant = saved
                if value is MISSING or not unique or _canonical(value) not in seen:
                    break
            if value is MISSING or (unique and _canonical(value) in seen):
                if len(out) >= lo:
                    break
                return MISSING
            seen.add(_canonical(value))
            out.append(value)
        return out

    def object(self, s: dict[str, Any], path: Path, depth: int, attempt: int) -> Any:
        properties: dict[str, Any] = s.get("properties", {}) or {}
        required = [r for r in s.get("required", []) if isinstance(r, str)]
        avoid = set(s.get("x-cfngen-avoid", []))
        mode = attempt % 3  # 0: fill optional properties, 1: required only, 2: add one at a time
        fill = (
            mode == 0
            and depth <= OPTIONAL_DEPTH
            and self.count < VALUE_BUDGET
            and len(path) <= MAX_DEPTH
        )
        for name, needs in _dependencies(s):
            if name in required:
                required += [n for n in needs if n not in required]
        names = list(required)
        if fill:
            names += [
                n
                for n in properties
                if n not in required and n not in avoid and not (not path and n in self.deprecated)
            ]
        out: dict[str, Any] = {}
        for name in names:
            child = (*path, name)
            if self.is_read_only(child) and (name not in required or not path):
                continue
            schema = properties.get(name, self.extra_schema(s, name))
            value = self.value(schema, child, depth + 1, required=name in required)
            if value is MISSING:
                if name in required:
                    return MISSING
                continue
            out[name] = value
        # Optional properties can pull in others (dependencies / dependentRequired).
        for name, needs in _dependencies(s):
            if name in out:
                for need in needs:
                    if need not in out and need not in avoid:
                        child = (*path, need)
                        value = self.value(properties.get(need, {}), child, depth + 1)
                        if value is not MISSING:
                            out[need] = value
        self.add_map_entries(s, out=out, path=path, depth=depth, attempt=attempt, fill=fill)
        out = self.apply_conditionals(s, out, path, depth)
        if mode == 2:
            out = self.add_one_at_a_time(s, out=out, avoid=avoid, path=path, depth=depth)
        while len(out) > s.get("maxProperties", math.inf):
            optional = [k for k in out if k not in required]
            if not optional:
                break
            del out[optional[-1]]
        return out

    def extra_schema(self, s: dict[str, Any], name: str) -> Any:
        for pattern, schema in (s.get("patternProperties") or {}).items():
            if _conformance._key_matches(pattern, name):
                return schema
        extra = s.get("additionalProperties", {})
        return extra if isinstance(extra, dict) else {}

    def add_map_entries(
        self,
        s: dict[str, Any],
        *,
        out: dict[str, Any],
        path: Path,
        depth: int,
        attempt: int,
        fill: bool,
    ) -> None:
        """Keys for maps (`patternProperties`, `additionalProperties: {...}`), and minProperties."""
        patterns = s.get("patternProperties") or {}
        extra = s.get("additionalProperties")
        properties = s.get("properties") or {}
        need = int(s.get("minProperties", 0)) - len(out)
        # A map, or a free-form object (a JSON document): one entry shows what goes in it.
        is_map = not properties and (bool(patterns) or extra is not False)
        if is_map and fill and not out:
            need = max(need, 1)
        for name in properties:
            if need <= 0:
                return
            if name not in out and not self.is_read_only((*path, name)):
                value = self.value(properties[name], (*path, name), depth + 1, required=False)
                if value is not MISSING:
                    out[name] = value
                    need -= 1
        sources: list[tuple[str | None, Any]] = list(patterns.items())
        if extra is None or extra is True or isinstance(extra, dict):
            sources.append((None, extra if isinstance(extra, dict) else {}))
        name_schema = self.effective(s.get("propertyNames", {}))
        lo = max(1, int(name_schema.get("minLength", 1)))
        hi = int(name_schema.get("maxLength", 128))
        i = 0
        while need > 0 and sources and i < 16:
            pattern, schema = sources[i % len(sources)]
            key = _map_key(pattern, name_schema, lo, hi, self.variant + attempt + i)
            i += 1
            if key is None or key in out:
                continue
            value = self.value(schema, (*path, key), depth + 1)
            if value is not MISSING:
                out[key] = value
                need -= 1

    def apply_conditionals(
        self, s: dict[str, Any], out: dict[str, Any], path: Path, depth: int
    ) -> dict[str, Any]:
        if "if" not in s:
            return out
        branch = s.get("then") if self.valid(s["if"], out) else s.get("else")
        if not branch:
            return out
        rest = {k: v for k, v in s.items() if k not in ("if", "then", "else")}
        merged = _merge(rest, self.effective(branch))
        value = self.object(merged, path, depth, 0)
        return out if value is MISSING else value

    def add_one_at_a_time(
        self,
        s: dict[str, Any],
        *,
        out: dict[str, Any],
        avoid: set[str],
        path: Path,
        depth: int,
    ) -> dict[str, Any]:
        for name, schema in (s.get("properties") or {}).items():
            if name in out or name in avoid or self.is_read_only((*path, name)):
                continue
            if self.count >= VALUE_BUDGET or depth > OPTIONAL_DEPTH:
                break
            value = self.value(schema, (*path, name), depth + 1, required=False)
            if value is MISSING:
                continue
            trial = {**out, name: value}
            if self.valid(s, trial):
                out = trial
        return out
