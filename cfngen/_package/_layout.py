"""What each kind's registry package holds: one small declaration per kind.

The file sets are the official `cfn submit --dry-run`'s (cloudformation-cli 0.2.41,
`Project.submit` and the Python plugin's `package`), which the registry reads:

    resource  .rpdk-config, schema.json, configuration-schema.json (with a typeConfiguration),
              inputs/*, ResourceProvider.zip, src/<pkg>/**, .cfn_metadata.json, overrides.json
    hook      the same, plus target-info.json and target-schemas/<target>.json
    module    .rpdk-config, schema.json, fragments/<the one fragment>, overrides.json

A part is a function from the project to archive names and bytes; each kind lists its parts in
its own `FileSet` (`Kind.packaging`, cfngen/_kind/_kind.py), with its own parts beside these
(a hook's target-info.json, a module's derived schema.json).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cfngen import __version__
from cfngen._errors import CfngenError
from cfngen._kind import Entries, PackageContext
from cfngen._project import CONFIG_FILE, Project
from cfngen._schema import load_object


def registered_name(project: Project) -> str:
    """The type name as `.rpdk-config` spells it: what RegisterType gets. (Read as written: a
    module's `Org::Service::Name::MODULE` has four parts.)"""
    raw = project.config.get("typeName")
    return raw if isinstance(raw, str) else str(project.type_name)


def hyphenated(project: Project) -> str:
    """`acme-svc-widget`, `acme-svc-stack-module`: the official tool's name for files and
    stacks of this type (`Project.hypenated_name`)."""
    return "-".join(registered_name(project).split("::")).lower()


def package_name(project: Project) -> str:
    """`acme-svc-widget.zip`: the official dry-run's file name."""
    return hyphenated(project) + ".zip"


# ------------------------------------------------------------------------------ parts


def rpdk_config(context: PackageContext) -> Entries:
    return {CONFIG_FILE: context.files.read(context.project.root / CONFIG_FILE)}


def schema(context: PackageContext) -> Entries:
    return {"schema.json": context.files.read(context.project.schema_path)}


def configuration_schema(context: PackageContext) -> Entries:
    derived = configuration_schema_of(context.project)
    if derived is None:
        return {}
    return {"configuration-schema.json": json.dumps(derived, indent=4).encode("utf-8")}


def configuration_schema_of(project: Project) -> dict[str, Any] | None:
    """The type configuration's schema, as the official tool derives it: typeConfiguration with
    the schema's definitions and typeName added (so its `$ref`s resolve); None without one."""
    loaded = load_object(project.schema_path, "fix the schema (`cfngen validate` says how)")
    configuration = loaded.get("typeConfiguration")
    if not isinstance(configuration, dict):
        return None
    derived = dict(configuration)
    derived["definitions"] = loaded.get("definitions", {})
    derived["typeName"] = loaded.get("typeName", registered_name(project))
    return derived


def inputs(context: PackageContext) -> Entries:
    folder = context.project.root / "inputs"
    if not folder.is_dir():
        return {}
    files = context.files.tree(folder, recursive=False)
    return {f"inputs/{name}": path.read_bytes() for name, path in files.items()}


def handler(context: PackageContext) -> Entries:
    """ResourceProvider.zip, and the handler package's source beside it as `src/<pkg>/...`."""
    entries = {"ResourceProvider.zip": context.handler_zip()}
    for name, path in source_files(context).items():
        entries[f"src/{name}"] = path.read_bytes()
    return entries


def metadata(context: PackageContext) -> Entries:
    """.cfn_metadata.json: which tool built the package (the official one names its versions)."""
    data = {"cli-version": f"cfngen {__version__}", "plugin-name": "python"}
    data["plugin-tool-version"] = f"cfngen {__version__}"
    return {".cfn_metadata.json": json.dumps(data, sort_keys=True).encode("utf-8")}


def overrides(context: PackageContext) -> Entries:
    path = context.project.root / "overrides.json"
    return {"overrides.json": context.files.read(path)} if path.is_file() else {}


# ------------------------------------------------------------------------------ helpers


def source_files(context: PackageContext) -> dict[str, Path]:
    """The handler package's files, by their name inside the handler zip (`pkg/handlers.py`):
    everything in src/<pkg>/, links followed as Python imports them, less what is never
    packed (cfngen/_package/_sources.py)."""
    layout = context.project.language.layout(context.project)
    root = layout.package_dir
    if not root.is_dir():
        raise CfngenError(
            f"{root}: no such folder; the entrypoint {layout.entrypoint} lives there",
            f'fix "entrypoint" in {CONFIG_FILE} or restore the package',
        )
    files = context.files.tree(root)
    return {f"{layout.package_name}/{name}": path for name, path in files.items()}
