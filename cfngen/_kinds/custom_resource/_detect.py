"""What makes a folder a custom resource's project, and a template a custom resource's: a
SAM/CloudFormation template that declares a Lambda-backed custom resource (`Custom::Name` or
`AWS::CloudFormation::CustomResource`). Such a project has no `.rpdk-config` (the official
tool would try to read one), so the project loader asks this kind (`Kind.project_file`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

#: Template files that may declare a custom resource, in the order they are looked at: SAM's
#: default names first, then any other template at the top of the folder.
TEMPLATE_NAMES = ("template.yaml", "template.yml", "template.json")
TEMPLATE_SUFFIXES = (".yaml", ".yml", ".json", ".template")
#: What declares a custom resource, valid name or not: a `Custom::` type CloudFormation refuses
#: (over 60 characters, a dot) still makes its template the project, which validate then names.
_CUSTOM_RESOURCE = re.compile(r"^(Custom::.+|AWS::CloudFormation::CustomResource)$", re.S)


def project_template(root: Path) -> Path | None:
    """The first template at the top of `root` that declares a Lambda-backed custom resource;
    with none, a candidate that is no regular file (a named pipe, a device) is refused (exit 2):
    reading a pipe would wait forever. (A folder named like a template is just a folder.)"""
    found = custom_resource_template(root)
    if found is None:
        from cfngen._files import read_optional

        for path in _candidates(root):
            if os.path.exists(path) and not path.is_file() and not path.is_dir():
                read_optional(path, hint="a template is a regular file: replace it with one")
    return found


def custom_resource_template(root: Path) -> Path | None:
    """`project_template` without the refusal: the template, or None."""
    for path in _candidates(root):
        if custom_resources(path):
            return path
    return None


def _candidates(root: Path) -> list[Path]:
    """The files at the top of `root` that may be templates, SAM's default names first."""
    try:
        entries = sorted(p for p in root.iterdir() if p.suffix in TEMPLATE_SUFFIXES)
    except OSError:
        return []
    return [root / name for name in TEMPLATE_NAMES] + [
        p for p in entries if p.name not in TEMPLATE_NAMES
    ]


def is_custom_resource_type(value: object) -> bool:
    """Whether a resource's Type declares a Lambda-backed custom resource."""
    return isinstance(value, str) and _CUSTOM_RESOURCE.match(value) is not None


def custom_resources(path: Path) -> dict[str, str]:
    """Logical id -> type of every custom resource a template declares ({} when `path` is not a
    readable template)."""
    from cfngen._project import template_facts

    facts = template_facts(path)
    if facts is None:
        return {}
    resources = facts.document.get("Resources")
    assert isinstance(resources, dict)  # template_facts checked it
    return {
        str(logical_id): resource["Type"]
        for logical_id, resource in resources.items()
        if isinstance(resource, dict) and is_custom_resource_type(resource.get("Type"))
    }
