"""Hook targets: the resource types a hook names, found offline in the schemas cfn-lint bundles.

cfn-lint (a runtime dependency, pinned) ships an index of the public resource types of each
region (`cfnlint/data/schemas/providers/us-east-1.json`: type name -> file hash) and the schemas
themselves (`cfnlint/data/schemas/resources/<hash>.json`), with a few annotations of its own that
are not part of the schema language and are removed here. The index is read without importing
cfnlint (its import costs ~0.5 s): only the package's folder is looked up.

A target name is a type name (`AWS::S3::Bucket`), a wildcard over type names (`AWS::S3::*`,
matched as the official tool does, with fnmatch), or one of the special targets STACK and
CHANGE_SET (the whole template, the change set).
"""

from __future__ import annotations

import fnmatch
import functools
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError

SPECIAL_TARGETS = ("STACK", "CHANGE_SET")
#: The region whose list of types cfngen uses: it has the most types and is the one cfn-lint's
#: schemas are collected from first.
INDEX_REGION = "us-east-1"
#: cfn-lint's own keywords: not part of the resource schema language.
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
#: Keys whose values map user-chosen names: a name there is never a keyword.
_NAME_MAPS = frozenset({"properties", "definitions", "patternProperties"})
_TYPE_NAME = re.compile(r"^[A-Za-z0-9]{2,64}::[A-Za-z0-9]{2,64}::[A-Za-z0-9]{2,64}$")


def is_wildcard(name: str) -> bool:
    """As the official tool decides (`contains_wildcard`): `*` or `?` anywhere."""
    return "*" in name or "?" in name


def is_type_name(name: str) -> bool:
    return bool(_TYPE_NAME.match(name))


def matches(pattern: str, type_names: list[str]) -> list[str]:
    """The type names a target name stands for: itself, or what its wildcard matches."""
    if not is_wildcard(pattern):
        return [pattern] if pattern in type_names else []
    return [name for name in type_names if fnmatch.fnmatchcase(name, pattern)]


# --------------------------------------------------------------------------- the bundle


def _data_dir() -> Path:
    spec = importlib.util.find_spec("cfnlint")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        folder = Path(location) / "data" / "schemas"
        if (folder / "providers" / f"{INDEX_REGION}.json").is_file():
            return folder
    raise CfngenError(
        "the resource schemas cfngen reads hook targets from are missing (cfn-lint is not "
        "installed or is incomplete)",
        "reinstall cfngen: `python -m pip install --force-reinstall cfngen`",
    )


@functools.cache
def _index() -> dict[str, str]:
    path = _data_dir() / "providers" / f"{INDEX_REGION}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    return {str(k): str(v) for k, v in sorted(data.items())}


def bundled_types() -> list[str]:
    """Every public resource type cfngen knows, sorted."""
    return list(_index())


def bundled_version() -> str:
    """A string naming the bundle (cfn-lint's schema snapshot): part of generate's inputs."""
    path = _data_dir() / "version.json"
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return "unknown"


@functools.cache
def bundled_schema_text(type_name: str) -> str | None:
    """The bundled schema of a type as JSON text, cleaned; None when the bundle lacks it."""
    digest = _index().get(type_name)
    if digest is None:
        return None
    raw = json.loads((_data_dir() / "resources" / f"{digest}.json").read_text(encoding="utf-8"))
    return json.dumps(clean_schema(raw), indent=4) + "\n"


def bundled_schema(type_name: str) -> dict[str, Any] | None:
    text = bundled_schema_text(type_name)
    return None if text is None else json.loads(text)


def clean_schema(raw: dict[str, Any]) -> dict[str, Any]:
    """A cfn-lint schema as the registry publishes it: cfn-lint's keywords and `lifecycle`
    (not part of the schema language either) removed."""
    schema: dict[str, Any] = _strip(raw)
    schema.pop("lifecycle", None)
    return schema


def _strip(value: Any, *, names: bool = False) -> Any:
    if isinstance(value, dict):
        return {
            k: _strip(v, names=not names and k in _NAME_MAPS)
            for k, v in value.items()
            if names or k not in CFNLINT_KEYWORDS
        }
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


# --------------------------------------------------------------------------- names


def module_name(type_name: str) -> str:
    """`aws_s3_bucket`: the official plugin's module for a target's model."""
    return "_".join(part.lower() for part in type_name.split("::"))


def class_name(type_name: str) -> str:
    """`AwsS3Bucket`: the official plugin's class name (each part capitalized as a whole)."""
    return "".join(part.lower().capitalize() for part in type_name.split("::"))


def schema_file_name(type_name: str) -> str:
    """`aws-s3-bucket.json`: the official name of a target's schema in `target-schemas/`."""
    return "-".join(part.lower() for part in type_name.split("::")) + ".json"


def target_names(schema: dict[str, Any]) -> list[str]:
    """Every target name the handlers list, in first-seen order."""
    names: list[str] = []
    handlers = schema.get("handlers")
    for handler in handlers.values() if isinstance(handlers, dict) else []:
        targets = handler.get("targetNames") if isinstance(handler, dict) else None
        for name in targets if isinstance(targets, list) else []:
            if isinstance(name, str) and name not in names:
                names.append(name)
    return names
