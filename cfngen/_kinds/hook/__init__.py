"""The hook kind: CloudFormation hooks (preCreate, preUpdate, preDelete checks).

What the engines get from this package, each a plain function:

- `schema_problems(schema, path)`: the problems of a hook schema, or None when the schema is
  not a hook's (`cfngen validate`; `_schema`);
- the derived files of a hook project (`cfngen generate`; `_generate`);
- the hook protocol and its contract tests (`cfngen invoke`, `cfngen test`; `_protocol`,
  `_tests`, `_run`);
- the answers of `cfngen init --artifact-type hook` (`_answers`) and its template
  (`templates/hook/`).

Nothing heavy is imported here: `cfngen validate` on a resource schema asks this package first.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cfngen._validate._semantic import Problem

NAME = "hook"
#: `.rpdk-config` "artifact_type" of a hook project.
ARTIFACT_TYPE = "HOOK"
CONFIG_FILE = ".rpdk-config"


def project_type_name(schema_path: Path) -> tuple[str, str] | None:
    """(artifact_type, typeName) of the project whose schema file is `schema_path`, or None
    when the file is not the schema of a project beside it."""
    config = schema_path.parent / CONFIG_FILE
    try:
        data: Any = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("typeName"), str):
        return None
    type_name: str = data["typeName"]
    expected = "-".join(type_name.split("::")).lower() + ".json"
    if schema_path.name != expected:
        return None
    return str(data.get("artifact_type", "RESOURCE")), type_name


def schema_problems(schema: Any, path: Path | None) -> list[Problem] | None:
    """The problems of a hook schema, or None when `schema` is another kind's.

    A file that is the schema of a project is the project's kind; a file on its own is a hook
    schema when it looks like one (`_schema.looks_like_hook`).
    """
    from cfngen._kinds.hook import _schema

    owner = project_type_name(path) if path is not None else None
    if owner is not None:
        artifact_type, type_name = owner
        if artifact_type != ARTIFACT_TYPE:
            return None
        return _schema.check(schema, base_dir=path.parent if path else None, type_name=type_name)
    if not _schema.looks_like_hook(schema):
        return None
    return _schema.check(schema, base_dir=path.parent if path else None)
