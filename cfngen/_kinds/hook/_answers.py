"""The answers `cfngen init --artifact-type hook` needs, checked once whatever their source:
target names, invocation points and type configuration settings.

`copier_data` turns them into the data of the hook template (templates/hook/copier.yml),
including the hidden `starter` table the starter inputs are rendered from.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from cfngen._errors import CfngenError
from cfngen._kinds.hook import _targets

#: A hook schema's handlers, in contract order, with the names people also write for them.
INVOCATION_POINTS = ("preCreate", "preUpdate", "preDelete")
_POINT_ALIASES = {
    "precreate": "preCreate",
    "pre_create": "preCreate",
    "create": "preCreate",
    "create_pre_provision": "preCreate",
    "preupdate": "preUpdate",
    "pre_update": "preUpdate",
    "update": "preUpdate",
    "update_pre_provision": "preUpdate",
    "predelete": "preDelete",
    "pre_delete": "preDelete",
    "delete": "preDelete",
    "delete_pre_provision": "preDelete",
}
CONFIG_TYPES = ("string", "integer", "number", "boolean")
_CONFIG_NAME = re.compile(r"^(?!CloudFormation)[A-Za-z0-9]{1,64}$")

DEFAULT_TARGETS = ("AWS::S3::Bucket",)
#: `cfngen init --artifact-type hook --example`: S3 buckets must be encrypted and versioned, and
#: a stack may not hold a bucket that would be deleted with it.
EXAMPLE_TYPE_NAME = "Example::S3::ComplianceHook"
EXAMPLE_FIXED: dict[str, Any] = {
    "targets": ("AWS::S3::Bucket", "STACK"),
    "invocation_points": ("preCreate", "preUpdate"),
    "config_properties": (("EncryptionAlgorithm", "string"),),
}


def parse_targets(value: str | Sequence[str]) -> tuple[str, ...]:
    """`AWS::S3::Bucket,STACK` or a list -> target names, in the order given, without repeats.

    Refused: what the registry refuses (`*?`) and what is not a target name at all. A
    well-formed name cfngen does not know is accepted (the bundled list lags new types; other
    namespaces hold private types): `target_notes` says so.
    """
    items = value.split(",") if isinstance(value, str) else list(value)
    names = list(dict.fromkeys(item.strip() for item in items if item.strip()))
    if not names:
        raise CfngenError("no target given", "name at least one, e.g. --target AWS::S3::Bucket")
    for name in names:
        if "*?" in name:
            raise CfngenError(
                f"target {name!r}: CloudFormation does not allow '*?' in a target name",
                "use '*' alone, e.g. AWS::S3::*",
            )
        if name in _targets.SPECIAL_TARGETS or _targets.is_wildcard(name):
            continue
        if not _targets.is_type_name(name):
            raise CfngenError(
                f"target {name!r} is not a resource type name, a wildcard, STACK or CHANGE_SET",
                "e.g. --target AWS::S3::Bucket --target 'AWS::SQS::*' --target STACK",
            )
    return tuple(names)


def target_notes(targets: Sequence[str]) -> list[str]:
    """What the user should know about well-formed target names cfngen does not recognise."""
    from cfngen._validate._walk import close_match

    known = _targets.bundled_types()
    notes = []
    for name in targets:
        if name in _targets.SPECIAL_TARGETS or not name.startswith("AWS::"):
            continue
        if _targets.is_wildcard(name):
            if not _targets.matches(name, known):
                notes.append(f"target {name}: matches none of the resource types cfngen knows")
        elif name not in known:
            close = close_match(name, known)
            guess = f" (did you mean {close}?)" if close else ""
            notes.append(f"target {name}: not a resource type cfngen knows{guess}")
    return notes


def parse_invocation_points(value: str | Sequence[str]) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else list(value)
    chosen = set()
    for item in items:
        key = item.strip()
        if not key:
            continue
        point = _POINT_ALIASES.get(key.lower())
        if point is None:
            raise CfngenError(
                f"unknown invocation point {key!r}",
                f"choose from {','.join(INVOCATION_POINTS)}",
            )
        chosen.add(point)
    if not chosen:
        raise CfngenError("no invocation point given", f"choose from {','.join(INVOCATION_POINTS)}")
    return tuple(p for p in INVOCATION_POINTS if p in chosen)


def parse_config_property(text: str) -> tuple[str, str]:
    """`Name` or `Name:type` -> (name, JSON type)."""
    name, _, kind = text.strip().partition(":")
    name, kind = name.strip(), (kind.strip() or "string").lower()
    if not _CONFIG_NAME.match(name):
        raise CfngenError(
            f"invalid setting name {name!r}",
            "a setting name is 1 to 64 letters or digits, not starting with CloudFormation",
        )
    if kind not in CONFIG_TYPES:
        raise CfngenError(
            f"setting {name}: unknown type {kind!r}", f"use one of {', '.join(CONFIG_TYPES)}"
        )
    return name, kind


def parse_config_properties(value: str | Sequence[Any]) -> tuple[tuple[str, str], ...]:
    if isinstance(value, str):
        items: list[Any] = [] if value.strip().lower() in ("", "none") else value.split(",")
    else:
        items = list(value)
    out: dict[str, str] = {}
    for item in items:
        if isinstance(item, (tuple, list)) and len(item) == 2:
            name, kind = parse_config_property(f"{item[0]}:{item[1]}")
        else:
            name, kind = parse_config_property(str(item))
        if name.lower() in {n.lower() for n in out}:
            raise CfngenError(f"setting {name} is given twice", "name each setting once")
        out[name] = kind
    return tuple(out.items())


# --------------------------------------------------------------------------- template data


def starter_property(type_name: str) -> str:
    """A top-level string property of a target that takes any text (what the starter rule and
    its inputs use): a `...Name` one if there is one, else `Name`."""
    schema = _targets.bundled_schema(type_name)
    if schema is None:
        return "Name"
    read_only = {str(p).rsplit("/", 1)[-1] for p in schema.get("readOnlyProperties", [])}
    free = [
        str(name)
        for name, node in (schema.get("properties") or {}).items()
        if name not in read_only
        and isinstance(node, dict)
        and node.get("type") == "string"
        and not {"enum", "const", "pattern", "format", "$ref"} & set(node)
    ]
    named = [name for name in free if name.endswith("Name")]
    return (named or free or ["Name"])[0]


def input_targets(targets: Sequence[str]) -> list[str]:
    """The targets the starter inputs name: each type, the first type a wildcard matches."""
    known = _targets.bundled_types()
    out: list[str] = []
    for name in targets:
        if _targets.is_wildcard(name):
            found = _targets.matches(name, known)
            chosen = found[0] if found else None
        else:
            chosen = name
        if chosen is not None and chosen not in out:
            out.append(chosen)
    return out


def copier_data(
    targets: Sequence[str],
    invocation_points: Sequence[str],
    config_properties: Sequence[tuple[str, str]],
) -> dict[str, Any]:
    return {
        "targets": list(targets),
        "invocation_points": list(invocation_points),
        "config_properties": [f"{name}:{kind}" for name, kind in config_properties],
        "starter": {
            name: starter_property(name)
            for name in input_targets(targets)
            if name not in _targets.SPECIAL_TARGETS
        },
    }
