"""The derived files of a hook project, offline: a pure function of its inputs.

generate_inputs(project) -> {name: bytes | None}   everything the files depend on (the fingerprint)
render(project, inputs) -> Rendered            the validation report and every derived file

The files (`cfngen generate` writes them through its ownership and atomic-write rules):
- `src/<pkg>/models.py`: TypeConfigurationModel (typed; in projects made by `cfn init`, None for
  an empty configuration, as their handlers expect) and HookHandlerRequest;
- `src/<pkg>/target_models/<type>.py`: a typed model per target, named as the official plugin
  names it (`aws_s3_bucket.py`, `AwsS3Bucket`), and `target_models/__init__.py`, the table the
  `typed_target` helper reads; the runtime library as the package `src/cfngen_runtime/`
  (cfngen/_support/), and a shim in `src/<pkg>/` for each single file of earlier versions
  (`cfngen_hook.py`, ...) the project's code still imports;
- `hook-role.yaml`, `template.yml`, `src/requirements.txt`, the configuration schema
  `<type-name>-configuration.json` and `docs/README.md`;
- `target-schemas/<type>.json`, the bundled schema of each modelled target: derived until the
  user edits it (then it is theirs, and the model follows it). With them, `cfn generate
  --local-only` and `cfn submit --dry-run` work offline, as they need a local schema for every
  target.

Which targets get a model, and from which schema: _target_schemas.py. The models' source:
_model_source.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from cfngen._errors import CfngenError
from cfngen._files import read_optional
from cfngen._kinds._shared import _targets
from cfngen._kinds.hook._model_source import (
    models_module,
    target_module,
    target_table,
)
from cfngen._kinds.hook._other_files import (
    _POINTS,
    _handlers,
    configuration_file,
    configuration_schema,
    render_docs,
    render_role,
)
from cfngen._kinds.hook._target_schemas import TARGET_INFO, TARGET_SCHEMAS, modelled_targets
from cfngen._project import CONFIG_FILE, Project
from cfngen._support import LEGACY_MODULES, PACKAGE

if TYPE_CHECKING:
    from cfngen._kind import Derived
    from cfngen._validate._file_report import FileReport

ANSWERS_FILE = ".copier-answers.yml"
REQUIREMENTS_FILE = "requirements.txt"
#: Files in src/<pkg>/ that cfngen derives (models.py, and the shims that stand for the runtime
#: library's single files of earlier versions): never scanned for imports.
_DERIVED_SOURCES = ("models.py", *LEGACY_MODULES)
_TARGET_IMPORT = re.compile(
    r"target_models\.(\w+)|from\s+\S*target_models\s+import\s+\(?([\w\s,]+)\)?"
)


@dataclass
class Rendered:
    report: FileReport
    #: Relative path -> bytes, with cfngen's header where the file kind allows one.
    files: dict[str, bytes]
    warnings: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- inputs

_read_bytes = read_optional


def may_derive(project: Project, relpath: str) -> bool:
    """Whether `relpath` is a path generate may write or remove in this hook project."""
    from cfngen._support import is_vendored_path

    path = PurePosixPath(relpath)
    if ".." in path.parts:
        return False
    # Another language's project has no Python package of cfngen's making.
    handlers = project.language.handlers
    package = f"src/{project.language.layout(project).package_name}" if handlers else None
    if package is not None and is_vendored_path(relpath, package):
        return True
    if relpath in (
        "hook-role.yaml",
        "template.yml",
        "src/requirements.txt",
        configuration_file(str(project.type_name)),
        *(f"{package}/{name}" for name in _DERIVED_SOURCES if package),
    ):
        return True
    if path.parent.as_posix() in (f"{package}/target_models" if package else "", TARGET_SCHEMAS):
        return path.suffix in (".py", ".json")
    return path.parts[:1] == ("docs",) and path.suffix == ".md"


def official_style(project: Project) -> bool:
    """A project `cfn init` made (no copier answers): its handlers expect the official shapes."""
    return not (project.root / ANSWERS_FILE).is_file()


def generate_inputs(project: Project) -> dict[str, bytes | None]:
    from cfngen._languages._python_handler import require_handler

    # As for a resource type: a python3.7 hook cannot run the models, and a typo in the
    # entrypoint would put them in a second package (exit 2, the fix named).
    require_handler(project.language.layout(project))
    root = project.root
    schema = _read_bytes(project.schema_path)
    if schema is None:
        raise CfngenError(
            f"{project.schema_path.name}: no such file",
            f"{CONFIG_FILE} names the type {project.type_name}, whose schema is this file; "
            "create it or fix typeName",
        )
    inputs: dict[str, bytes | None] = {
        CONFIG_FILE: _read_bytes(root / CONFIG_FILE),
        "schema": schema,
        TARGET_INFO: _read_bytes(root / TARGET_INFO),
        "bundle": _targets.bundled_version().encode(),
        "style": b"official" if official_style(project) else b"cfngen",
        REQUIREMENTS_FILE: b"exists" if (root / REQUIREMENTS_FILE).is_file() else None,
        "imports": "\n".join(sorted(imported_modules(project))).encode(),
        # The single files of earlier versions that the project's code imports get a shim.
        "legacy imports": "\n".join(legacy_imports(project)).encode(),
    }
    folder = root / TARGET_SCHEMAS
    if folder.is_dir():
        bundled = {_targets.schema_file_name(t): t for t in _targets.bundled_types()}
        for path in sorted(folder.glob("*.json")):
            data = _read_bytes(path)
            # cfngen's own copy of a bundled schema is an output, not an input.
            copy = bundled.get(path.name)
            if data is not None and copy is not None:
                text = _targets.bundled_schema_text(copy)
                if text is not None and data == text.encode("utf-8"):
                    continue
            inputs[f"{TARGET_SCHEMAS}/{path.name}"] = data
    return inputs


def legacy_imports(project: Project) -> list[str]:
    """The runtime library's single files of earlier versions that the package's modules and
    the project's tests import."""
    from cfngen._support import legacy_imports, project_code

    package = project.language.layout(project).package_dir
    skip = {package / name for name in _DERIVED_SOURCES}
    return legacy_imports(project_code([package, project.root / "tests"], skip))


def imported_modules(project: Project) -> set[str]:
    """The `target_models` modules the project's own code names."""
    found: set[str] = set()
    package = project.language.layout(project).package_dir
    for path in package.rglob("*.py") if package.is_dir() else []:
        relative = path.relative_to(package).parts
        if relative[0] in ("target_models", PACKAGE) or path.name in _DERIVED_SOURCES:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for match in _TARGET_IMPORT.finditer(text):
            if match.group(1):
                found.add(match.group(1))
            else:
                found.update(n.strip() for n in match.group(2).split(",") if n.strip())
    return found


# --------------------------------------------------------------------------- targets


# --------------------------------------------------------------------------- rendering


def derive(project: Project, inputs: Mapping[str, bytes | None]) -> Derived:
    """Every derived file (`Kind.derive`), with the official outputs among them."""
    from cfngen._kind import Derived
    from cfngen._kinds._shared._official import official_outputs, official_witness
    from cfngen._languages._python_runtimes import runtime_warnings

    rendered = render(project, dict(inputs))
    return Derived(
        files=rendered.files,
        report=rendered.report,
        warnings=runtime_warnings(project.language.layout(project).runtime) + rendered.warnings,
        official_outputs=official_outputs(rendered.files),
        official_witness=official_witness(rendered.files),
    )


def render(project: Project, inputs: Mapping[str, bytes | None]) -> Rendered:
    """Validate the schema (InvalidSchemaError, nothing rendered, when it is invalid), then
    render every derived file."""
    from cfngen._files._ownership import with_header
    from cfngen._generate import InvalidSchemaError

    report = _validate(project, inputs)
    if not report.valid or report.schema is None:
        raise InvalidSchemaError(report)
    schema = report.schema
    targets, local, warnings = modelled_targets(schema, inputs)
    texts = _texts(project, schema, targets, official=inputs.get("style") == b"official")
    for name in targets:
        bundled = _targets.bundled_schema_text(name)
        if name not in local and bundled is not None:
            texts[f"{TARGET_SCHEMAS}/{_targets.schema_file_name(name)}"] = bundled
    files = {
        relpath: with_header(relpath, text).encode("utf-8")
        for relpath, text in sorted(texts.items())
    }
    # The user's own target schemas (pinned, or cfngen's copy edited) stay as they are: given
    # back byte for byte, so that generate records them as they are instead of taking an
    # edited copy for a file it no longer makes. Deleted, the bundled copy comes back.
    for key, data in inputs.items():
        if key.startswith(TARGET_SCHEMAS + "/") and data is not None:
            files[key] = data
    return Rendered(report, dict(sorted(files.items())), warnings)


def _validate(project: Project, inputs: Mapping[str, bytes | None]) -> FileReport:
    kind = project.kind
    display = project.schema_path.name
    try:
        text = (inputs["schema"] or b"").decode("utf-8")
    except UnicodeDecodeError:
        return kind.check_file(project.schema_path, strict=False, display=display)
    return kind.check_text(text, path=project.schema_path, strict=False, display=display)


def _texts(
    project: Project,
    schema: dict[str, Any],
    targets: dict[str, dict[str, Any]],
    *,
    official: bool,
) -> dict[str, str]:
    from cfngen._kinds._shared._sam import render_requirements, render_template
    from cfngen._languages._python_runtimes import project_python
    from cfngen._support import shims, vendored

    layout = project.language.layout(project)
    package = f"src/{layout.package_name}"
    python = project_python(layout)
    texts = {
        f"{package}/models.py": models_module(schema, official=official, python=python),
        # The runtime library: Hook and its helpers, and waiters, retries, error codes and
        # clients for handlers that call AWS (within one invocation for a hook:
        # `Waiter.wait_here`, `retry_here`).
        **vendored(package),
        **shims(package, legacy_imports(project)),
        f"{package}/target_models/__init__.py": target_table(targets),
        "hook-role.yaml": render_role(schema, str(project.type_name)),
        "template.yml": render_template(
            str(project.type_name),
            layout.runtime or _default_runtime(),
            layout.entrypoint,
            layout.test_entrypoint,
            kind="hook",
        ),
        "src/requirements.txt": render_requirements((project.root / REQUIREMENTS_FILE).is_file()),
        configuration_file(str(project.type_name)): configuration_schema(
            schema, str(project.type_name)
        ),
        "docs/README.md": render_docs(schema, str(project.type_name)),
    }
    for name, target_schema in targets.items():
        module = _targets.module_name(name)
        texts[f"{package}/target_models/{module}.py"] = target_module(
            target_schema, name, python=python
        )
    return texts


def _default_runtime() -> str:
    from cfngen._languages._python_runtimes import DEFAULT_RUNTIME

    return DEFAULT_RUNTIME.name


# --------------------------------------------------------------------------- models


def generate_notes(project: Project, inputs: Mapping[str, bytes | None]) -> list[str]:
    """A declared invocation point the handlers module never registers (only where the module
    registers handlers with HookInvocationPoint itself, unlike GuardHook's subclasses)."""
    from cfngen._support import legacy_notes

    if not project.language.handlers:
        return []  # another language's handlers: not Python cfngen reads
    imported = (inputs.get("legacy imports") or b"").decode().split()
    package = project.language.layout(project).package_name
    notes = legacy_notes(project.root, f"src/{package}", imported)
    try:
        schema = json.loads(inputs.get("schema") or b"")
        handlers_path = project.language.layout(project).handlers_path
        text = handlers_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError, CfngenError):
        return notes
    if not isinstance(schema, dict):
        return notes
    if "HookInvocationPoint" not in text:
        return notes
    handlers = _handlers(schema)
    shown = handlers_path.relative_to(project.root).as_posix()
    return notes + [
        f"the schema declares {point}, but {shown} registers no handler for "
        f"HookInvocationPoint.{_POINTS[point]}: the hook answers FAILED to it"
        for point in handlers
        if point in _POINTS and _POINTS[point] not in text
    ]
