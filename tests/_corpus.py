"""The corpus: 1898 real AWS resource schemas that cfn-lint bundles.

cfn-lint adds annotations of its own that are not part of the resource schema language; the
official tool rejects them, so they are removed before either tool sees a schema.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
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
    # Found without importing cfnlint (half a second), as test modules read it while collected.
    spec = importlib.util.find_spec("cfnlint")
    assert spec is not None and spec.submodule_search_locations, "cfn-lint is not installed"
    return Path(spec.submodule_search_locations[0]) / "data" / "schemas" / "resources"


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


#: The top-level `typeName` in cfn-lint's files (one-space indent, keys sorted).
_TOP_TYPE_NAME = re.compile(rb'\n "typeName": "([^"]+)"')


@functools.cache
def _paths_by_type_name() -> dict[str, Path]:
    out = {}
    for path in corpus_dir().glob("*.json"):
        found = _TOP_TYPE_NAME.search(path.read_bytes())
        if found:
            out[found.group(1).decode()] = path
    return out


def corpus_names() -> list[str]:
    """The corpus's type names, sorted, as `list(corpus())` without parsing 18 MB of JSON (test
    modules parametrize with them while collected, also when -m deselects them)."""
    paths = _paths_by_type_name()
    if len(paths) != len(list(corpus_dir().glob("*.json"))):  # a file laid out otherwise
        return list(corpus())
    return sorted(paths)


def corpus_file_size(type_name: str) -> int:
    """The size of the type's file in cfn-lint: how big its schema is, without parsing it."""
    path = _paths_by_type_name().get(type_name)
    return path.stat().st_size if path else len(json.dumps(corpus()[type_name]))


@functools.cache
def corpus_schema(type_name: str) -> dict[str, Any]:
    """One cleaned schema of the corpus, without reading the other 1897 (1.4 s while collecting)."""
    path = _paths_by_type_name().get(type_name)
    if path is None:
        return corpus()[type_name]
    schema = clean_schema(json.loads(path.read_text(encoding="utf-8")))
    assert schema["typeName"] == type_name, path
    return schema


def corpus_text(type_name: str) -> str:
    """A cleaned schema as a file a user would have written (4-space indent)."""
    return json.dumps(corpus()[type_name], indent=4) + "\n"
