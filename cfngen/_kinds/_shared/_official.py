"""What the official CloudFormation CLI generates in the projects of the kinds with handlers
(resource types and hooks: `cfn init`, `cfn generate`), recognised by its marks, so generate
takes over such a file without cfngen's header and does not take the official tool's rewrite of
cfngen's file for a hand edit. Each kind declares which of its derived files these are
(`Derived.official_outputs`, from `official_outputs` below), so the generate engine knows no
kind's file names.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath

_OFFICIAL_MODELS_HEADER = b"# DO NOT modify this file by hand, changes will be overwritten"
_OFFICIAL_ROLE = b"during CRUDL operations to mutate resources on behalf of the customer."
_OFFICIAL_HOOK_ROLE = b"during Hook operations on behalf of the customer."
_OFFICIAL_HOOK_DOCS = b"To activate a hook in your account, use the following JSON"
_OFFICIAL_DOCS = b"To declare this entity in your AWS CloudFormation template, use the following"


def is_official_output(relpath: str, data: bytes) -> bool:
    """Whether `data` is what the official CLI generated at `relpath` (and would overwrite),
    for the kinds whose files it generates (resource types, hooks)."""
    path = PurePosixPath(relpath)
    if path.name == "models.py" or path.parent.name == "target_models":
        return data.startswith(_OFFICIAL_MODELS_HEADER)
    if relpath == "resource-role.yaml":
        return data.startswith(b"AWSTemplateFormatVersion") and _OFFICIAL_ROLE in data
    if relpath == "hook-role.yaml":
        return data.startswith(b"AWSTemplateFormatVersion") and _OFFICIAL_HOOK_ROLE in data
    if path.parts[0] == "docs" and path.suffix == ".md":
        return data.startswith(b"# ") and (_OFFICIAL_DOCS in data or _OFFICIAL_HOOK_DOCS in data)
    if len(path.parts) == 1 and path.name.endswith("-configuration.json"):
        return _is_official_configuration(data)
    if path.parts[0] == "example_inputs" and path.suffix == ".json":
        return _is_placeholder(data)
    return False


def _is_official_configuration(data: bytes) -> bool:
    """`cfn generate` writes `<type>-configuration.json`: the schema's typeConfiguration with
    its definitions and typeName added."""
    try:
        value = json.loads(data)
    except ValueError:
        return False
    return isinstance(value, dict) and {"properties", "definitions", "typeName"} <= set(value)


def _is_placeholder(data: bytes) -> bool:
    """`cfn init` writes every property as "..." into its example inputs."""
    try:
        value = json.loads(data)
    except ValueError:
        return False
    return isinstance(value, dict) and bool(value) and all(v == "..." for v in value.values())


def official_outputs(relpaths: Iterable[str]) -> dict[str, Callable[[bytes], bool]]:
    """For each of `relpaths` the official CLI also generates: the test of its output."""
    return {
        relpath: functools.partial(is_official_output, relpath)
        for relpath in relpaths
        if _generated_by_official(relpath)
    }


def _generated_by_official(relpath: str) -> bool:
    path = PurePosixPath(relpath)
    return (
        path.name == "models.py"
        or path.parent.name == "target_models"
        or relpath in ("resource-role.yaml", "hook-role.yaml")
        or (path.parts[0] == "docs" and path.suffix == ".md")
        or (len(path.parts) == 1 and path.name.endswith("-configuration.json"))
        or (path.parts[0] == "example_inputs" and path.suffix == ".json")
    )


def official_witness(relpaths: Iterable[str]) -> str | None:
    """The derived file whose official output shows `cfn generate` ran here: models.py (it
    rewrites the role and docs/ with it, wiping docs/ first). Where the handlers are another
    language's, cfngen derives no models.py: the role, which the official core writes for every
    language in its own words, is the evidence there."""
    paths = sorted(relpaths)
    models = next((p for p in paths if PurePosixPath(p).name == "models.py"), None)
    return models or next((p for p in paths if p in ("resource-role.yaml", "hook-role.yaml")), None)
