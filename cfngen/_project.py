"""Finding a project on disk: `.rpdk-config` and the schema file it implies.

The layout is the official CloudFormation CLI's, so `cfn` and cfngen work on the same folders.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError
from cfngen._typename import TypeName

CONFIG_FILE = ".rpdk-config"
ARTIFACT_TYPES = ("RESOURCE", "MODULE", "HOOK")


@dataclass(frozen=True)
class Project:
    root: Path
    type_name: TypeName
    artifact_type: str
    config: dict[str, Any]

    @property
    def schema_path(self) -> Path:
        return self.root / self.type_name.schema_filename

    @property
    def runtime(self) -> str | None:
        """The Lambda runtime id (`python3.12`), as the official Python plugin records it."""
        value = self.config.get("runtime")
        return value if isinstance(value, str) else None

    @property
    def package_name(self) -> str:
        """From `entrypoint` (`pkg.handlers.resource`), so a renamed package keeps working."""
        entrypoint = self.config.get("entrypoint")
        if isinstance(entrypoint, str) and entrypoint.count(".") >= 2:
            return entrypoint.split(".")[0]
        return self.type_name.package_name

    @property
    def package_dir(self) -> Path:
        return self.root / "src" / self.package_name


def load_project(root: Path) -> Project:
    """The project in `root`, or a CfngenError saying why there is none."""
    config_path = root / CONFIG_FILE
    if not config_path.is_file():
        raise CfngenError(
            f"{root}: not a project folder (no {CONFIG_FILE})",
            "run the command inside a project, pass a project folder or a schema file, "
            "or create one with `cfngen init`",
        )
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CfngenError(
            f"{config_path}: cannot read it: {exc}", f"fix {CONFIG_FILE} or recreate the project"
        ) from None
    if not isinstance(config, dict):
        raise CfngenError(f"{config_path}: expected a JSON object", f"fix {CONFIG_FILE}")
    raw_name = config.get("typeName")
    if not isinstance(raw_name, str):
        raise CfngenError(
            f'{config_path}: has no "typeName"',
            f'add "typeName": "Org::Service::Resource" to {CONFIG_FILE}',
        )
    try:
        type_name = TypeName(raw_name)
    except CfngenError as exc:
        raise CfngenError(f"{config_path}: {exc.message}", exc.hint) from None
    artifact_type = config.get("artifact_type", "RESOURCE")
    if artifact_type not in ARTIFACT_TYPES:
        raise CfngenError(
            f"{config_path}: unknown artifact_type {artifact_type!r}",
            f"use one of {', '.join(ARTIFACT_TYPES)}",
        )
    return Project(root=root, type_name=type_name, artifact_type=artifact_type, config=config)
