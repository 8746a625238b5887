"""Extensions "available locally": the projects beside this one, which a module may use.

A module may use other modules (`Org::Svc::Name::MODULE`) and private types that are not in
cfn-lint's bundle. cfngen finds them in the folders beside the module's project (a checkout of
several extensions side by side) and in the folders named by `CFNGEN_MODULE_PATH`
(os.pathsep-separated; each a project, or a folder of projects). Only `.rpdk-config` is read to
learn a project's type name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from cfngen import _schema
from cfngen._kinds.module._fragment import MODULE_SUFFIX, fragment_files

ENV_PATH = "CFNGEN_MODULE_PATH"
CONFIG_FILE = ".rpdk-config"


@dataclass(frozen=True)
class LocalType:
    type_name: str
    root: Path

    @property
    def is_module(self) -> bool:
        return self.type_name.endswith(MODULE_SUFFIX)

    def fragment(self) -> Path | None:
        found = fragment_files(self.root)
        return found[0] if len(found) == 1 else None


def _type_name(folder: Path) -> str | None:
    try:
        data = _schema.loads((folder / CONFIG_FILE).read_text(encoding="utf-8")).data
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    name = data.get("typeName") if isinstance(data, dict) else None
    return name if isinstance(name, str) else None


def _candidates(root: Path | None) -> list[Path]:
    folders: list[Path] = []
    if root is not None:
        folders.append(root.resolve().parent)
    for entry in os.environ.get(ENV_PATH, "").split(os.pathsep):
        if entry.strip():
            folders.append(Path(entry.strip()))
    found: list[Path] = []
    for folder in folders:
        if (folder / CONFIG_FILE).is_file():
            found.append(folder)
            continue
        try:
            children = sorted(p for p in folder.iterdir() if p.is_dir())
        except OSError:
            continue
        found += [p for p in children if (p / CONFIG_FILE).is_file()]
    return found


def local_types(root: Path | None) -> dict[str, LocalType]:
    """Type name -> the local project of that type (the first found wins)."""
    out: dict[str, LocalType] = {}
    for folder in _candidates(root):
        name = _type_name(folder)
        if name is not None and name not in out:
            out[name] = LocalType(name, folder)
    return out
