"""Finding a project on disk, and its kind: the one place that does.

A folder is a project when it holds `.rpdk-config` (the official CloudFormation CLI's layout, so
`cfn` and cfngen work on the same folders), whose `artifact_type` names the kind exactly as the
official tool writes it ("RESOURCE" when absent, as it assumes); or, without `.rpdk-config`, a
SAM/CloudFormation template that holds a Lambda-backed custom resource (`Custom::Name` or
`AWS::CloudFormation::CustomResource`): such a project must not get a `.rpdk-config`, which the
official tool would try to read. Anything else is not a project (exit 2).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._errors import CfngenError
from cfngen._files import read_bytes, recover
from cfngen._typename import TypeName

if TYPE_CHECKING:
    from cfngen._kinds import Kind

CONFIG_FILE = ".rpdk-config"
#: What the official tool assumes when `.rpdk-config` has no artifact_type.
OFFICIAL_DEFAULT_ARTIFACT_TYPE = "RESOURCE"
#: `module.attribute`, each part an identifier (Lambda imports the module, then the attribute).
_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")
#: Template files that may declare a custom resource, in the order they are looked at: SAM's
#: default names first, then any other template at the top of the folder.
_TEMPLATE_NAMES = ("template.yaml", "template.yml", "template.json")
_TEMPLATE_SUFFIXES = (".yaml", ".yml", ".json", ".template")
#: Larger files are not read while looking for a template (CloudFormation's limit is 1 MB).
_MAX_TEMPLATE_BYTES = 1 << 20
_CUSTOM_RESOURCE = re.compile(
    r"^(Custom::[A-Za-z0-9_@-]{1,60}|AWS::CloudFormation::CustomResource)$"
)
CUSTOM_RESOURCE_KIND = "custom-resource"


@dataclass(frozen=True)
class Project:
    root: Path
    kind: Kind
    #: `.rpdk-config`, as read ({} for a project that has none).
    config: dict[str, Any] = field(default_factory=dict)
    #: For a project without `.rpdk-config`: the template that makes it one.
    template: Path | None = None
    #: What recovering from an earlier command killed while writing here did (cfngen._files).
    notes: tuple[str, ...] = ()

    @functools.cached_property
    def type_name(self) -> TypeName:
        """`.rpdk-config`'s typeName (the loader has checked it)."""
        raw = self.config.get("typeName")
        if not isinstance(raw, str):
            raise CfngenError(
                f"{self.root}: this {self.kind.label} project has no type name",
                f'add "typeName" to {CONFIG_FILE}',
            )
        return TypeName(raw)

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
    """The project in `root` with its kind, or a CfngenError saying why there is none."""
    # Before anything is read: a command killed while writing here is undone first.
    notes = tuple(recover(root))
    config_path = root / CONFIG_FILE
    if os.path.lexists(config_path):
        return dataclasses.replace(_from_config(root, config_path), notes=notes)
    template = custom_resource_template(root)
    if template is not None:
        from cfngen._kinds import named

        return Project(root=root, kind=named(CUSTOM_RESOURCE_KIND), template=template, notes=notes)
    raise CfngenError(
        f"{root}: not a project folder (no {CONFIG_FILE})",
        "run the command inside a project, pass a project folder or a schema file, "
        "or create one with `cfngen init`",
    )


def _from_config(root: Path, config_path: Path) -> Project:
    from cfngen._kinds import all_kinds, by_artifact_type
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
    # A kind whose type names differ (a module's end in ::MODULE) checks its own.
    check_type_name = getattr(kind, "check_type_name", TypeName)
    try:
        check_type_name(raw_name)
    except CfngenError as exc:
        raise CfngenError(f"{config_path}: {exc.message}", exc.hint) from None
    for key in ("entrypoint", "testEntrypoint"):
        value = config.get(key)
        if value is not None and not (isinstance(value, str) and _DOTTED.match(value)):
            raise CfngenError(
                f"{config_path}: {key} {value!r} is not a Python module and attribute",
                'write it as "package.handlers.resource"',
            )
    return Project(root=root, kind=kind, config=config)


# --------------------------------------------------------------------------- custom resources


def custom_resource_template(root: Path) -> Path | None:
    """The first template at the top of `root` that declares a Lambda-backed custom resource."""
    try:
        entries = sorted(p for p in root.iterdir() if p.suffix in _TEMPLATE_SUFFIXES)
    except OSError:
        return None
    ordered = [root / name for name in _TEMPLATE_NAMES] + [
        p for p in entries if p.name not in _TEMPLATE_NAMES
    ]
    for path in ordered:
        if custom_resources(path):
            return path
    return None


def custom_resources(path: Path) -> dict[str, str]:
    """Logical id -> type of every custom resource a template declares ({} when `path` is not a
    readable template)."""
    try:
        if not path.is_file() or path.stat().st_size > _MAX_TEMPLATE_BYTES:
            return {}
        document = _load_template(path.read_text(encoding="utf-8"), json=path.suffix == ".json")
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    resources = document.get("Resources") if isinstance(document, dict) else None
    if not isinstance(resources, dict):
        return {}
    return {
        str(logical_id): resource["Type"]
        for logical_id, resource in resources.items()
        if isinstance(resource, dict)
        and isinstance(resource.get("Type"), str)
        and _CUSTOM_RESOURCE.match(resource["Type"])
    }


def _load_template(text: str, *, json: bool) -> Any:
    """A CloudFormation template in JSON, or in YAML with short-form intrinsics (`!Ref x`) read
    as plain values: only the resource types matter here. PyYAML's safe loader refuses unknown
    tags, and cfn-lint's decoder (which accepts them) is too heavy a dependency for this.
    Raises ValueError when the text is neither."""
    if json:
        from cfngen._schema import loads

        return loads(text).data  # JsonSyntaxError is a ValueError
    import yaml

    class _Loader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no types
        pass

    def any_tag(loader: yaml.SafeLoader, _suffix: str, node: yaml.Node) -> Any:
        if isinstance(node, yaml.ScalarNode):
            return loader.construct_scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node)
        return loader.construct_mapping(node)

    _Loader.add_multi_constructor("!", any_tag)
    try:
        return yaml.load(text, Loader=_Loader)  # a SafeLoader subclass: safe
    except yaml.YAMLError as exc:
        raise ValueError(str(exc)) from None
