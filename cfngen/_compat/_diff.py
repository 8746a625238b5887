"""What changed between two versions of a schema, judged by who it breaks.

A change is breaking when a template or a stack that worked with the old version can fail
with the new one: consumers auto-update minor versions, so a breaking change needs a major
one. Narrowing what a property accepts breaks; widening it is a new feature (minor); words
alone (descriptions, documentation links) are a patch. docs/validate.md lists every rule with
its code, and where AWS's schema guard rail judges differently and why.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from cfngen._compat._patterns import widens
from cfngen._compat._walk import Node, Schema, properties

Bump = Literal["major", "minor", "patch"]
BUMPS: tuple[Bump, ...] = ("patch", "minor", "major")

#: Limits whose larger value accepts less (a minimum), and whose smaller value accepts less.
_LOWER = ("minLength", "minItems", "minProperties", "minimum", "exclusiveMinimum")
_UPPER = ("maxLength", "maxItems", "maxProperties", "maximum", "exclusiveMaximum")
_WORDS = ("description", "title", "examples", "$comment", "markdownDescription")
_ROOT_WORDS = ("description", "documentationUrl", "sourceUrl", "$comment")
_POINTER_LISTS = {
    "createOnlyProperties": ("create-only", "an update that sets it now replaces the resource"),
    "readOnlyProperties": ("read-only", "a template that sets it is now rejected"),
    "writeOnlyProperties": ("write-only", "GetAtt and read no longer return it"),
}
#: What CloudFormation assumes when `tagging` leaves a flag out.
_TAGGING_DEFAULTS = {
    "taggable": True,
    "tagOnCreate": True,
    "tagUpdatable": True,
    "cloudFormationSystemTags": True,
}


@dataclass(frozen=True)
class Change:
    code: str
    bump: Bump
    #: Where in the new schema the change shows (for a removal, the nearest part still there).
    pointer: str
    message: str
    #: Breaking unless the user accepts it (`--accept POINTER`): a changed pattern.
    possibly: bool = False

    @property
    def breaking(self) -> bool:
        return self.bump == "major"


def compare(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """Every change from `old` to `new`, in the order of the new schema's sections."""
    changes = list(_root(old, new))
    for base in ("/properties", "/typeConfiguration/properties"):
        changes.extend(_properties(properties(old, base), properties(new, base), base))
    changes.extend(_pointer_lists(old, new))
    changes.extend(_handlers(old, new))
    changes.extend(_tagging(old, new))
    return changes


def _c(code: str, bump: Bump, pointer: str, message: str, *, possibly: bool = False) -> Change:
    return Change(f"cfngen/compat-{code}", bump, pointer, message, possibly)


def _root(old: dict[str, Any], new: dict[str, Any]) -> Iterator[Change]:
    if old.get("typeName") != new.get("typeName"):
        yield _c(
            "type-name-changed",
            "major",
            "/typeName",
            f"typeName changed from {old.get('typeName')!r}: it is another type",
        )
    for key in _ROOT_WORDS:
        if old.get(key) != new.get(key):
            yield _c(
                "documentation-changed", "patch", f"/{key}" if key in new else "", f"{key} changed"
            )
    if old.get("primaryIdentifier") != new.get("primaryIdentifier"):
        yield _c(
            "primary-identifier-changed",
            "major",
            "/primaryIdentifier",
            f"primaryIdentifier changed from {old.get('primaryIdentifier')}: resources already "
            "made are found by the old one",
        )


def _properties(old: dict[str, Node], new: dict[str, Node], base: str) -> Iterator[Change]:
    for path in old:
        if path in new or _below_any(path, old, new):
            continue
        if path.endswith("/*"):
            yield _c(
                "items-widened",
                "minor",
                _nearest(path, new, base),
                f"{path} is no longer constrained",
            )
            continue
        yield _c(
            "property-removed",
            "major",
            _nearest(path, new, base),
            f"{path} was removed: templates that set it are rejected",
        )
    for path, node in new.items():
        if path in old:
            yield from _node(path, old[path], node)
        elif _parent(path) != base and _parent(path) not in old:
            continue  # inside a new property: the new property is the change
        elif path.endswith("/*"):
            yield _c("items-narrowed", "major", node.at, f"{path}: items must now match a schema")
        elif node.required:
            yield _c(
                "required-property-added",
                "major",
                node.at,
                f"{path} is new and required: templates written before lack it",
            )
        else:
            yield _c("property-added", "minor", node.at, f"{path} is a new optional property")


def _below_any(path: str, old: dict[str, Node], new: dict[str, Node]) -> bool:
    """Whether a parent of `path` is itself removed (then only the parent is reported)."""
    parent = _parent(path)
    while parent in old:
        if parent not in new:
            return True
        parent = _parent(parent)
    return False


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0]


def _nearest(path: str, new: dict[str, Node], base: str) -> str:
    parent = _parent(path)
    while parent not in new and parent != base and "/" in parent:
        parent = _parent(parent)
    return new[parent].at if parent in new else base


def _node(path: str, old: Node, new: Node) -> Iterator[Change]:
    a, b, at = old.schema, new.schema, new.at
    if new.required and not old.required:
        yield _c("property-made-required", "major", at, f"{path} is now required")
    elif old.required and not new.required:
        yield _c("property-made-optional", "minor", at, f"{path} is no longer required")
    yield from _types(path, a, b, at)
    yield from _choices(path, a, b, at)
    yield from _pattern(path, a, b, at)
    yield from _limits(path, a, b, at)
    if a.get("additionalProperties") is not False and b.get("additionalProperties") is False:
        yield _c(
            "additional-properties-closed",
            "major",
            at,
            f"{path} no longer accepts keys it does not declare",
        )
    elif a.get("additionalProperties") is False and b.get("additionalProperties") is not False:
        yield _c("additional-properties-opened", "minor", at, f"{path} accepts more keys")
    if a.get("uniqueItems") is not True and b.get("uniqueItems") is True:
        yield _c("unique-items-added", "major", at, f"{path} no longer accepts repeated items")
    if "default" in a and a.get("default") != b.get("default"):
        yield _c(
            "default-changed",
            "major",
            at,
            f"{path}'s default changed from {_short(a['default'])}: stacks that leave it out "
            "get another value on their next update",
        )
    for key in ("oneOf", "anyOf", "allOf"):
        if _json(a.get(key)) != _json(b.get(key)):
            yield _c(
                "combiner-changed",
                "major",
                at,
                f"{path}'s {key} changed: cfngen cannot tell whether it accepts less",
                possibly=True,
            )
    if any(a.get(k) != b.get(k) for k in _WORDS):
        yield _c("documentation-changed", "patch", at, f"{path}'s description changed")


def _types(path: str, a: Schema, b: Schema, at: str) -> Iterator[Change]:
    before, after = _type_set(a.get("type")), _type_set(b.get("type"))
    if before == after:
        return
    if after is None or (before is not None and before < after):
        yield _c(
            "type-widened", "minor", at, f"{path} accepts more types than {sorted(before or [])}"
        )
    else:
        shown = "no type" if before is None else "/".join(sorted(before))
        yield _c(
            "type-changed",
            "major",
            at,
            f"{path}'s type changed from {shown} to {'/'.join(sorted(after))}",
        )


def _type_set(value: Any) -> frozenset[str] | None:
    if value is None:
        return None
    values = value if isinstance(value, list) else [value]
    kinds = {str(v) for v in values}
    if "number" in kinds:
        kinds.add("integer")  # a number accepts every integer: integer -> number widens
    return frozenset(kinds)


def _choices(path: str, a: Schema, b: Schema, at: str) -> Iterator[Change]:
    for key in ("enum", "const"):
        before = None if key not in a else _values(a[key], key)
        after = None if key not in b else _values(b[key], key)
        if before == after:
            continue
        if after is not None and (before is None or not before <= after):
            lost = "" if before is None else f": {', '.join(sorted(before - after))} no longer"
            yield _c(f"{key}-narrowed", "major", at, f"{path} accepts fewer values{lost}".rstrip())
        else:
            yield _c(f"{key}-widened", "minor", at, f"{path} accepts more values")


def _values(value: Any, key: str) -> frozenset[str]:
    items = value if key == "enum" and isinstance(value, list) else [value]
    return frozenset(_json(v) for v in items)


def _pattern(path: str, a: Schema, b: Schema, at: str) -> Iterator[Change]:
    before, after = a.get("pattern"), b.get("pattern")
    if before == after:
        return
    if not isinstance(after, str):
        yield _c("pattern-removed", "minor", at, f"{path} no longer has a pattern")
    elif not isinstance(before, str):
        yield _c("pattern-added", "major", at, f"{path} must now match {after}")
    elif widens(before, after):
        yield _c("pattern-widened", "minor", at, f"{path}'s pattern accepts what it did and more")
    else:
        yield _c(
            "pattern-changed",
            "major",
            at,
            f"{path}'s pattern changed from {before} to {after}: values the old one accepted "
            "may be rejected",
            possibly=True,
        )


def _limits(path: str, a: Schema, b: Schema, at: str) -> Iterator[Change]:
    for key in (*_LOWER, *_UPPER, "multipleOf"):
        before, after = _number(a.get(key)), _number(b.get(key))
        if before == after:
            continue
        lower = key in _LOWER
        if after is None:
            narrowed = False
        elif before is None:
            narrowed = True
        elif key == "multipleOf":
            narrowed = (after / before) % 1 != 0 or after > before
        else:
            narrowed = after > before if lower else after < before
        if narrowed:
            shown = "none" if before is None else _short(before)
            yield _c(
                "limit-narrowed",
                "major",
                at,
                f"{path}'s {key} went from {shown} to {_short(after)}: it accepts less",
            )
        else:
            yield _c("limit-widened", "minor", at, f"{path}'s {key} accepts more")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def _pointer_lists(old: dict[str, Any], new: dict[str, Any]) -> Iterator[Change]:
    existing = set(properties(old))
    for key, (what, effect) in _POINTER_LISTS.items():
        before = {_plain(p) for p in old.get(key) or [] if isinstance(p, str)}
        after = {_plain(p) for p in new.get(key) or [] if isinstance(p, str)}
        for ptr in sorted(after - before):
            if ptr in existing:
                yield _c(f"{what}-added", "major", f"/{key}", f"{ptr} was made {what}: {effect}")
        for ptr in sorted(before - after):
            yield _c(f"{what}-removed", "minor", f"/{key}", f"{ptr} is no longer {what}")


def _plain(pointer: str) -> str:
    """A pointer as the walk spells it: `/properties/A/properties/B` -> `/properties/A/B`."""
    parts = pointer.split("/")
    kept = parts[:3] + [p for p in parts[3:] if p != "properties"]
    return "/".join(kept)


def _handlers(old: dict[str, Any], new: dict[str, Any]) -> Iterator[Change]:
    before, after = _dict(old.get("handlers")), _dict(new.get("handlers"))
    for action in before:
        here = f"/handlers/{action}"
        if action not in after:
            yield _c(
                "handler-removed",
                "major",
                "/handlers" if "handlers" in new else "",
                f"the {action} handler was removed: CloudFormation can no longer {action}",
            )
            continue
        had = set(_dict(before[action]).get("permissions") or [])
        has = set(_dict(after[action]).get("permissions") or [])
        if has - had:
            yield _c(
                "permissions-added",
                "major",
                f"{here}/permissions",
                f"the {action} handler needs {', '.join(sorted(map(str, has - had)))}: execution "
                "roles built from the old schema lack it",
            )
        if had - has:
            yield _c(
                "permissions-removed",
                "minor",
                f"{here}/permissions",
                f"the {action} handler needs fewer permissions",
            )
    for action in after:
        if action not in before:
            yield _c("handler-added", "minor", f"/handlers/{action}", f"a new {action} handler")


def _tagging(old: dict[str, Any], new: dict[str, Any]) -> Iterator[Change]:
    before, after = _tags(old), _tags(new)
    at = "/tagging" if "tagging" in new else ""
    for flag, default in _TAGGING_DEFAULTS.items():
        if before.get(flag, default) is True and after.get(flag, default) is not True:
            yield _c("tagging-narrowed", "major", at, f"tagging.{flag} is no longer true")
        elif before.get(flag, default) is not True and after.get(flag, default) is True:
            yield _c("tagging-widened", "minor", at, f"tagging.{flag} is now true")
    if before.get("tagProperty") != after.get("tagProperty") and "tagProperty" in before:
        yield _c(
            "tag-property-changed",
            "major",
            at,
            f"tagging.tagProperty changed from {before['tagProperty']}",
        )


def _tags(schema: dict[str, Any]) -> dict[str, Any]:
    tagging = _dict(schema.get("tagging"))
    if "taggable" in schema and "taggable" not in tagging:
        tagging = {**tagging, "taggable": schema["taggable"]}
    return tagging


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."
