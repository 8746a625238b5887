"""Synthetic resource schemas of any size, for the scale benchmark and the progress-line test.

- `flat(n)`: n top-level properties (a quarter strings with patterns, a quarter integers, a
  quarter objects with four enum properties, a quarter arrays of one of n/20 definitions);
- `wide(n)`: n properties spread over n/50 definitions of 50 properties, nested as a tree
  (definition d holds arrays of d*2+1 and d*2+2), the shape of the biggest real schemas.
"""

from __future__ import annotations

from typing import Any


def _envelope(properties: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    return {
        "typeName": "Acme::Scale::Thing",
        "description": "A synthetic schema for measuring how cfngen scales.",
        "definitions": definitions,
        "properties": {**properties, "Id": {"type": "string"}},
        "additionalProperties": False,
        "primaryIdentifier": ["/properties/Id"],
        "readOnlyProperties": ["/properties/Id"],
        "handlers": {
            "create": {"permissions": ["s3:GetObject"]},
            "read": {"permissions": ["s3:GetObject"]},
        },
        "tagging": {"taggable": False},
    }


def flat(n: int) -> dict[str, Any]:
    count = max(1, n // 20)
    definitions = {
        f"Def{d}": {
            "type": "object",
            "description": f"Definition {d}.",
            "additionalProperties": False,
            "properties": {
                f"Field{k}": {"type": "string", "description": f"Field {k}.", "maxLength": 64}
                for k in range(4)
            },
        }
        for d in range(count)
    }
    properties: dict[str, Any] = {}
    for i in range(n):
        kind = i % 4
        if kind == 0:
            prop: dict[str, Any] = {
                "type": "string",
                "description": f"String property {i}.",
                "pattern": "^[a-z0-9-]+$",
                "maxLength": 128,
            }
        elif kind == 1:
            prop = {"type": "integer", "description": f"Integer property {i}.", "minimum": 0}
        elif kind == 2:
            prop = {
                "type": "object",
                "description": f"Object property {i}.",
                "additionalProperties": False,
                "properties": {
                    f"Inner{k}": {"type": "string", "enum": ["A", "B", "C"]} for k in range(4)
                },
            }
        else:
            prop = {
                "type": "array",
                "insertionOrder": False,
                "description": f"Array property {i}.",
                "items": {"$ref": f"#/definitions/Def{i % count}"},
            }
        properties[f"Prop{i}"] = prop
    return _envelope(properties, definitions)


def wide(n: int, per: int = 50) -> dict[str, Any]:
    count = max(1, n // per)
    definitions = {}
    for d in range(count):
        props: dict[str, Any] = {}
        for k in range(per - 2):
            if k % 3 == 0:
                props[f"Name{k}"] = {"type": "string", "pattern": "^[a-z]+$", "maxLength": 64}
            elif k % 3 == 1:
                props[f"Count{k}"] = {"type": "integer", "minimum": 0}
            else:
                props[f"Mode{k}"] = {"type": "string", "enum": ["ONE", "TWO", "THREE"]}
        for j in (1, 2):
            if 2 * d + j < count:
                props[f"Child{j}"] = {
                    "type": "array",
                    "insertionOrder": False,
                    "items": {"$ref": f"#/definitions/Def{2 * d + j}"},
                }
        definitions[f"Def{d}"] = {
            "type": "object",
            "description": f"Definition {d}.",
            "additionalProperties": False,
            "properties": props,
        }
    top = {f"Top{i}": {"$ref": f"#/definitions/Def{i}"} for i in range(min(per, count))}
    return _envelope(top, definitions)
