"""`cfngen drift explain`: how drift detection reads one property through the schema's
`propertyTransform`, for a template value and a read value (docs/drift.md)."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError
from cfngen._kinds._shared._pointers import PropertyIndex
from cfngen._kinds._shared._transforms import Judgement, Transform, covers, judge
from cfngen._kinds.resource._view import ResourceSchema
from cfngen._render import Paint, plain
from cfngen._schema import load_object, pointer_tokens

_SCOPE_WORDS = {"root": "on the root:  ", "parent": "on the parent:"}


@dataclass
class Explanation:
    pointer: str
    template: Any
    read: Any
    transform: Transform | None
    judgement: Judgement | None

    @property
    def equal(self) -> bool:
        return json.dumps(self.template, sort_keys=True) == json.dumps(self.read, sort_keys=True)

    @property
    def in_sync(self) -> bool:
        return self.equal or (self.judgement is not None and self.judgement.in_sync is not None)

    @property
    def verdict(self) -> str:
        return "IN_SYNC" if self.in_sync else "MODIFIED"

    def as_json(self) -> dict[str, Any]:
        return {
            "pointer": self.pointer,
            "key": self.transform.key if self.transform else None,
            "expression": self.transform.expression if self.transform else None,
            "template": self.template,
            "read": self.read,
            "equal": self.equal,
            "evaluations": [e.as_json() for e in self.judgement.evaluations]
            if self.judgement
            else [],
            "verdict": self.verdict,
        }

    def render(self, paint: Paint = plain) -> str:
        lines = []
        if self.transform is None:
            lines.append(f"{self.pointer}: no propertyTransform; compared as they are")
        else:
            lines.append(f"{self.pointer}: propertyTransform {self.transform.expression}")
        lines.append(f"  template: {_shown(self.template)}")
        lines.append(f"  read:     {_shown(self.read)}")
        if self.equal:
            lines.append("  equal as they are")
        if self.judgement is not None:
            number = 0
            for e in self.judgement.evaluations:
                if e.alternative.number != number:
                    number = e.alternative.number
                    lines.append(f"  alternative {number}: {e.alternative.text}")
                scope = _SCOPE_WORDS[e.scope]
                if e.error is not None:
                    word = paint("MODIFIED", "error")
                    lines.append(f"    {scope} {word} (it failed: {e.error})")
                    continue
                word = paint("IN_SYNC", "ok") if e.by else paint("MODIFIED", "error")
                how = ""
                if e.by == "pattern":
                    how = f" (matches {_shown(self.read)} as a pattern)"
                elif e.by == "equal":
                    how = " (equal)"
                lines.append(f"    {scope} {_shown(e.result)}  {word}{how}")
        verdict = paint(self.verdict, "ok" if self.in_sync else "error")
        found = self.judgement.in_sync if self.judgement is not None else None
        if found is not None and not self.equal:
            verdict += f" by alternative {found.alternative.number} on the {found.scope}"
        lines.append(verdict)
        return "\n".join(lines) + "\n"


def _shown(value: Any) -> str:
    return "(undefined)" if value is None else json.dumps(value)


def explain_drift(
    schema_path: Path,
    pointer: str,
    template: str,
    read: str,
    *,
    model: dict[str, Any] | None = None,
) -> Explanation:
    """Judge `read` against `template` at `pointer` (`*` stands for the first item) with the
    schema's transform for it; raises CfngenError for a pointer naming no property or a value
    that must be JSON and is not."""
    schema = load_object(schema_path, "give a resource schema file or a project folder")
    info = ResourceSchema(schema, base_dir=schema_path.parent)
    path = _property_path(pointer)
    found = PropertyIndex(schema, info.resolver).property_problem(pointer)
    if found is not None:
        raise CfngenError(found[0], found[1] or "give a pointer such as /properties/Name")
    concrete = tuple("0" if token == "*" else token for token in path)
    node = info.subschema(concrete) or {}
    template_value = _value(template, node, "the template value")
    read_value = _value(read, node, "the read value")
    root = _placed(copy.deepcopy(model or {}), concrete, template_value)
    transform = next((t for t in info.transforms if covers(t.path or (), concrete)), None)
    judgement = None
    if transform is not None:
        parent = _at(root, concrete[:-1])
        judgement = judge(transform, root, parent, read_value)
    return Explanation(pointer, template_value, read_value, transform, judgement)


def _property_path(pointer: str) -> tuple[str, ...]:
    tokens = pointer_tokens(pointer) if pointer.startswith("/") else []
    if len(tokens) < 2 or tokens[0] != "properties" or not all(tokens[1:]):
        raise CfngenError(
            f"{pointer!r} is not a property pointer",
            "write it as the schema does: /properties/Name",
        )
    return tuple(tokens[1:])


def _value(text: str, node: dict[str, Any], what: str) -> Any:
    """Text where the schema declares a string (a version such as 5.7 stays text), else JSON,
    else text when the schema says nothing."""
    kind = node.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind} if isinstance(kind, str) else set()
    if kinds == {"string"}:
        return text
    try:
        return json.loads(text)
    except ValueError:
        if kinds and "string" not in kinds:
            raise CfngenError(
                f"{what} {text!r} is not JSON, and the property is {' or '.join(sorted(kinds))}",
                'give it as JSON, e.g. 5, true, ["a"] or {"Key": "a"}',
            ) from None
        return text


def _placed(root: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    """`root` with `value` at `path`, the objects and lists on the way made as needed."""
    node: Any = root
    for position, token in enumerate(path):
        last = position == len(path) - 1
        # What a missing step becomes: a list when the next token is an index.
        fresh: Any = [] if not last and path[position + 1].isdigit() else {}
        if isinstance(node, list):
            if not token.isdigit():
                raise CfngenError(
                    f"--model holds a list where the pointer names {token!r}",
                    "give the template's model as the schema describes it",
                )
            index = int(token)
            while len(node) <= index:
                node.append({})
            if last:
                node[index] = value
            elif not isinstance(node[index], (dict, list)):
                node[index] = fresh
            node = node[index]
            continue
        if last:
            node[token] = value
        elif not isinstance(node.get(token), (dict, list)):
            node[token] = fresh
        node = node[token]
    return root


def _at(root: Any, path: tuple[str, ...]) -> Any:
    node = root
    for token in path:
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node
