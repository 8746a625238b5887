"""Finding a project on disk: `.rpdk-config` and the schema file it implies.

The layout is the official CloudFormation CLI's, so `cfn` and cfngen work on the same folders.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError
from cfngen._files import read_bytes, recover
from cfngen._typename import TypeName

CONFIG_FILE = ".rpdk-config"
#: `module.attribute`, each part an identifier (Lambda imports the module, then the attribute).
_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")
ARTIFACT_TYPES = ("RESOURCE", "MODULE", "HOOK")


@dataclass(frozen=True)
class Project:
    root: Path
    type_name: TypeName
    artifact_type: str
    config: dict[str, Any]
    #: What recovering from an interrupted earlier command did here (see cfngen._files).
    notes: tuple[str, ...] = ()

    @property
    def schema_path(self) -> Path:
        return self.root / self.type_name.schema_filename

    @property
    def runtime(self) -> str | None:
        """The Lambda runtime id (`python3.12`), as the official Python plugin records it."""
        value = self.config.get("runtime")
        return value if isinstance(value, str) else None

    @property
    def entrypoint(self) -> str:
        """The Lambda handler, `pkg.handlers.resource`: `.rpdk-config`'s, so a renamed package
        keeps working, else the official default for the type name."""
        value = self.config.get("entrypoint")
        if isinstance(value, str) and value:
            return value
        return f"{self.type_name.package_name}.handlers.resource"

    @property
    def test_entrypoint(self) -> str:
        value = self.config.get("testEntrypoint")
        if isinstance(value, str) and value:
            return value
        return self.handlers_module + ".test_entrypoint"

    @property
    def handlers_module(self) -> str:
        """`pkg.handlers`: the module the entrypoint lives in."""
        return self.entrypoint.rpartition(".")[0]

    @property
    def handlers_path(self) -> Path:
        """The file of handlers_module: `src/pkg/handlers.py`."""
        return self.src_dir.joinpath(*self.handlers_module.split(".")).with_suffix(".py")

    @property
    def package_name(self) -> str:
        return self.entrypoint.split(".")[0]

    @property
    def src_dir(self) -> Path:
        return self.root / "src"

    @property
    def package_dir(self) -> Path:
        return self.src_dir / self.package_name

    def entrypoint_problem(self) -> CfngenError | None:
        """Why the handlers `.rpdk-config` names cannot be imported from src/, or None.

        A typo there (or `os.system`) would otherwise make generate write models for a
        package that does not exist, and test import something that is not the project."""
        for key, dotted in (
            ("entrypoint", self.entrypoint),
            ("testEntrypoint", self.test_entrypoint),
        ):
            module = dotted.rpartition(".")[0]
            package = module.split(".")[0]
            where = f'{CONFIG_FILE}: {key} "{dotted}"'
            if not (self.src_dir / package).is_dir():
                return CfngenError(
                    f"{where} names the package {package}, but src/{package}/ does not exist",
                    _entrypoint_hint(self.src_dir),
                )
            base = self.src_dir.joinpath(*module.split("."))
            if not (base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()):
                shown = base.with_suffix(".py").relative_to(self.root).as_posix()
                return CfngenError(
                    f"{where} names the module {module}, but {shown} does not exist",
                    f"restore {shown} (`git checkout -- {shown}`), or "
                    + _entrypoint_hint(self.src_dir),
                )
        return None


def _entrypoint_hint(src: Path) -> str:
    """The fix, naming the handlers modules that do exist under src/."""
    found = sorted(p.parent.name for p in src.glob("*/handlers.py")) if src.is_dir() else []
    if found:
        return f'set "entrypoint" in {CONFIG_FILE} to one of: ' + ", ".join(
            f'"{name}.handlers.resource"' for name in found
        )
    return (
        f'fix "entrypoint" in {CONFIG_FILE} ("package.handlers.resource", with the package in src/)'
    )


def require_entrypoint(project: Project) -> None:
    """Stop (exit 2, before anything is written or imported) when the entrypoint is broken."""
    problem = project.entrypoint_problem()
    if problem is not None:
        raise problem


def load_project(root: Path) -> Project:
    """The project in `root`, or a CfngenError saying why there is none."""
    config_path = root / CONFIG_FILE
    if not os.path.lexists(config_path):
        raise CfngenError(
            f"{root}: not a project folder (no {CONFIG_FILE})",
            "run the command inside a project, pass a project folder or a schema file, "
            "or create one with `cfngen init`",
        )
    # Before anything is read: a command killed while writing here is undone first.
    notes = tuple(recover(root))
    raw = read_bytes(config_path, hint=f"fix {CONFIG_FILE} or recreate the project")
    try:
        config = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
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
    for key in ("entrypoint", "testEntrypoint"):
        value = config.get(key)
        if value is not None and not (isinstance(value, str) and _DOTTED.match(value)):
            raise CfngenError(
                f"{config_path}: {key} {value!r} is not a Python module and attribute",
                'write it as "package.handlers.resource"',
            )
    return Project(
        root=root, type_name=type_name, artifact_type=artifact_type, config=config, notes=notes
    )
