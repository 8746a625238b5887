"""Finding a project on disk, and its kind: the one place that does.

A folder is a project when it holds `.rpdk-config` (the official CloudFormation CLI's layout, so
`cfn` and cfngen work on the same folders), whose `artifact_type` names the kind exactly as the
official tool writes it ("RESOURCE" when absent, as it assumes); or, without `.rpdk-config`, a
folder whose files a kind declares its own (`Kind.project_file`: a SAM/CloudFormation template
that holds a Lambda-backed custom resource, which must not get a `.rpdk-config`, which the
official tool would try to read). Anything else is not a project (exit 2).

What a single file is, kinds decide by `Kind.claims`; a CloudFormation/SAM template no kind
claims (`template_facts`: a `Resources` mapping, no `typeName`) is a stack: no extension at all.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._cfn_template import read_plain
from cfngen._errors import CfngenError
from cfngen._files import read_bytes, recover
from cfngen._kind._kind import Project, require_entrypoint
from cfngen._languages import language_of
from cfngen._rpdk_config import CONFIG_FILE, OFFICIAL_DEFAULT_ARTIFACT_TYPE

if TYPE_CHECKING:
    from cfngen._kind import Kind

__all__ = [
    "CONFIG_FILE",
    "OFFICIAL_DEFAULT_ARTIFACT_TYPE",
    "Project",
    "TemplateFacts",
    "detect",
    "folder_kind",
    "load_project",
    "project_file",
    "require_entrypoint",
]

#: `module.attribute`, each part an identifier (Lambda imports the module, then the attribute).
_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")
#: Larger files are not read while looking for a template (CloudFormation's limit is 1 MB).
_MAX_TEMPLATE_BYTES = 1 << 20


def load_project(root: Path) -> Project:
    """The project in `root` with its kind, or a CfngenError saying why there is none."""
    # Before anything is read: a command killed while writing here is undone first.
    notes = tuple(recover(root))
    config_path = root / CONFIG_FILE
    if os.path.lexists(config_path):
        return dataclasses.replace(_from_config(root, config_path), notes=notes)
    found = detect(root)
    if found is not None:
        # Absolute, as it is when the project is the working folder: a kind joins a relative
        # template to the project folder, which `cfngen test NAME` names relative to the
        # working folder too ("NAME/NAME/template.yaml: no such template").
        template = Path(os.path.abspath(found[1]))
        return Project(root=root, kind=found[0], template=template, notes=notes)
    raise CfngenError(
        f"{root}: not a project folder (no {CONFIG_FILE})",
        "run the command inside a project, pass a project folder or a schema file "
        "(a custom resource's template: --template FILE), or create one with `cfngen init`",
    )


def _from_config(root: Path, config_path: Path) -> Project:
    from cfngen._kind import all_kinds, by_artifact_type
    from cfngen._schema import JsonSyntaxError, loads

    raw = read_bytes(config_path, hint=f"fix {CONFIG_FILE} or recreate the project")
    try:
        config = loads(raw.decode("utf-8")).data
    except (UnicodeDecodeError, JsonSyntaxError) as exc:
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
    artifact_type = config.get("artifact_type", OFFICIAL_DEFAULT_ARTIFACT_TYPE)
    kind = by_artifact_type(artifact_type) if isinstance(artifact_type, str) else None
    if kind is None:
        known = [spelling for k in all_kinds() for spelling in k.artifact_types]
        raise CfngenError(
            f"{config_path}: unknown artifact_type {artifact_type!r}",
            f"use one of {', '.join(known)}",
        )
    try:
        kind.check_type_name(raw_name)
    except CfngenError as exc:
        raise CfngenError(f"{config_path}: {exc.message}", exc.hint) from None
    # Another language's entrypoint has its own form (dist/handlers.entrypoint, bootstrap,
    # com.acme.Handler::handleRequest): cfngen never imports it, so it is not held to Python's.
    for key in ("entrypoint", "testEntrypoint") if language_of(config).handlers else ():
        value = config.get(key)
        if value is not None and not (isinstance(value, str) and _DOTTED.match(value)):
            raise CfngenError(
                f"{config_path}: {key} {value!r} is not a Python module and attribute",
                'write it as "package.handlers.resource"',
            )
    return Project(root=root, kind=kind, config=config)


def folder_kind(root: Path) -> Kind | None:
    """The kind of the project `root` is, by its `.rpdk-config` alone (None when it has none,
    or one cfngen cannot read): nothing is recovered or written."""
    config_path = root / CONFIG_FILE
    if not config_path.is_file():
        return None
    try:
        return _from_config(root, config_path).kind
    except CfngenError:
        return None


# --------------------------------------------------------------------------- without .rpdk-config


def detect(root: Path) -> tuple[Kind, Path] | None:
    """The kind whose files make `root` a project without `.rpdk-config` (a custom resource's
    template), with that file: each kind declares it (`Kind.project_file`); None for none.
    A file that could be one but is no regular file (a named pipe) is refused (exit 2)."""
    from cfngen._kind import all_kinds

    for kind in all_kinds():
        found = kind.project_file(root)
        if found is not None:
            return kind, found
    return None


def project_file(folder: Path) -> Path | None:
    """The file that makes `folder` a project without `.rpdk-config`, or None (also when such
    a file is a pipe: nothing is refused here)."""
    try:
        found = detect(folder)
    except CfngenError:
        return None
    return found[1] if found is not None else None


@dataclasses.dataclass(frozen=True)
class TemplateFacts:
    """What a CloudFormation/SAM template declares that says what it is."""

    #: The template, read.
    document: dict[str, object]
    #: Its `Transform` (one name, or a list), e.g. ("AWS::Serverless-2016-10-31",).
    transforms: tuple[str, ...]

    def as_stack(self) -> str:
        """What a template no kind claims is, in words."""
        if any(name.startswith("AWS::Serverless") for name in self.transforms):
            what = f"a SAM stack (Transform: {', '.join(self.transforms)})"
        elif self.transforms:
            what = f"a CloudFormation stack (Transform: {', '.join(self.transforms)})"
        else:
            what = "a CloudFormation stack"
        return (
            f"taken for {what}: it declares no custom resource and is not in a module "
            "project's fragments/; not an extension, nothing for cfngen to check"
        )


def template_facts(path: Path) -> TemplateFacts | None:
    """What the template at `path` declares, or None when it is no template (a `Resources`
    mapping and no `typeName`; a resource or hook schema has the opposite) or cannot be read."""
    try:
        if not path.is_file() or path.stat().st_size > _MAX_TEMPLATE_BYTES:
            return None
        text = path.read_text(encoding="utf-8")
        document = read_plain(text, as_json=path.suffix == ".json")
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(document, dict) or "typeName" in document:
        return None
    if not isinstance(document.get("Resources"), dict):
        return None
    transform = document.get("Transform")
    names = transform if isinstance(transform, list) else [transform]
    return TemplateFacts(
        document=document, transforms=tuple(name for name in names if isinstance(name, str))
    )


def project_of(path: Path, known: Collection[Path] = ()) -> Path | None:
    """The project folder a path names: itself when it is a project, else the nearest folder
    above it that is one (a file stands for the project that holds it, as pre-commit passes
    files); None when there is none up to the top of its repository. Folders in `known` are
    taken for projects without looking (many files of one project cost one look)."""
    from cfngen._files import repository_root

    start = Path(os.path.abspath(path))
    top = repository_root(start if start.is_dir() else start.parent)
    in_git = os.path.lexists(top / ".git")
    for folder in (start, *start.parents):
        if folder in known:
            return folder
        if folder.is_dir() and (os.path.lexists(folder / CONFIG_FILE) or project_file(folder)):
            return folder
        if in_git and os.path.realpath(folder) == str(top):
            break
    return None
