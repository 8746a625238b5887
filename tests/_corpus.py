"""The corpus: 1898 real AWS resource schemas that cfn-lint bundles.

cfn-lint adds annotations of its own that are not part of the resource schema language; the
official tool rejects them, so they are removed before either tool sees a schema.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

CFNLINT_KEYWORDS = frozenset(
    {
        "enumCaseInsensitive",
        "requiredXor",
        "requiredOr",
        "dependentExcluded",
        "uniqueKeys",
        "maxUniqueItems",
    }
)
#: Keys whose values are maps of user-chosen names: a name there is never a keyword.
_NAME_MAPS = frozenset({"properties", "definitions", "patternProperties"})


def corpus_dir() -> Path:
    import cfnlint

    return Path(cfnlint.__file__).parent / "data" / "schemas" / "resources"


def strip_cfnlint(value: Any, *, names: bool = False) -> Any:
    if isinstance(value, dict):
        return {
            k: strip_cfnlint(v, names=not names and k in _NAME_MAPS)
            for k, v in value.items()
            if names or k not in CFNLINT_KEYWORDS
        }
    if isinstance(value, list):
        return [strip_cfnlint(v) for v in value]
    return value


def clean_schema(raw: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = strip_cfnlint(raw)
    schema.pop("lifecycle", None)
    return schema


@functools.cache
def corpus() -> dict[str, dict[str, Any]]:
    """typeName -> cleaned schema, sorted by type name."""
    out = {}
    for path in sorted(corpus_dir().glob("*.json")):
        schema = clean_schema(json.loads(path.read_text(encoding="utf-8")))
        out[schema["typeName"]] = schema
    return dict(sorted(out.items()))


def corpus_text(type_name: str) -> str:
    """A cleaned schema as a file a user would have written (4-space indent)."""
    return json.dumps(corpus()[type_name], indent=4) + "\n"
