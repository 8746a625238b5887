"""`cfngen generate`: the derived files of a project, from its schema and answers.

generate_project(root, check=False, force=False) -> GenerateResult
    Validates the schema first (invalid: raises InvalidSchemaError, a CfngenError with exit_code
    FAILED that carries the validation report, and writes nothing), then renders every derived
    file in memory and only then writes them, each atomically. check=True writes nothing and
    lists the drifted files; force=True skips the no-op fast path.

The fast path needs only the standard library: it compares a fingerprint of the inputs and the
hashes of the derived files with the manifest (see `_ownership`) before anything heavy (the
validator, jinja, the models renderer) is imported.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._errors import CfngenError, ExitCode
from cfngen._fsutil import write_atomic
from cfngen._generate import _ownership
from cfngen._project import CONFIG_FILE, Project, load_project
from cfngen._runtimes import DEFAULT_RUNTIME, RUNTIMES, find_runtime

if TYPE_CHECKING:
    from cfngen._validate import FileReport

CALLBACK_CONTEXT_FILE = "callback-context.json"
REQUIREMENTS_FILE = "requirements.txt"
EXAMPLE_INPUTS = ("create", "update", "invalid")


@dataclass
class GenerateResult:
    #: Derived files written (or, with check=True, that would be written: the drift).
    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    #: Files at a derived path that the user owns (no cfngen header): left alone.
    skipped: list[Path] = field(default_factory=list)
    #: Derived files cfngen wrote earlier that the schema no longer produces (with check=True:
    #: that would be removed).
    removed: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: The validation report (None on the no-op path, which does not validate).
    report: FileReport | None = None
    #: Nothing had changed since the last generate: no file was rendered or written.
    up_to_date: bool = False

    @property
    def drift(self) -> list[Path]:
        """What --check reports: files out of date, including stale ones to remove."""
        return sorted([*self.written, *self.removed])


class InvalidSchemaError(CfngenError):
    """The schema did not validate: nothing was generated."""

    def __init__(self, report: FileReport) -> None:
        super().__init__(
            f"{report.path}: the schema is invalid; nothing was generated",
            "fix the problems listed above and run `cfngen generate` again",
            exit_code=ExitCode.FAILED,
        )
        self.report = report


def generate_project(root: Path, *, check: bool = False, force: bool = False) -> GenerateResult:
    project = load_project(root)
    hook = project.artifact_type == "HOOK"
    if project.artifact_type not in ("RESOURCE", "HOOK"):
        raise CfngenError(
            f"{root}: cfngen generate supports resource types and hooks; this project is a "
            f"{project.artifact_type}",
            "use the official `cfn generate` for modules for now",
        )
    if hook:
        # The hook kind renders its own files (cfngen/_kinds/hook/_derived.py); ownership,
        # the manifest and the writes below are the same for every kind.
        from cfngen._kinds.hook import _derived as hook_files

        inputs = hook_files.read_inputs(project)
    else:
        inputs = _read_inputs(project)
    fingerprint = _ownership.fingerprint(inputs)
    manifest = _ownership.load_manifest(root)
    handlers_display = _display(project, project.handlers_path)

    if not force and _ownership.is_up_to_date(root, manifest, fingerprint):
        result = GenerateResult(
            unchanged=[Path(p) for p in sorted(manifest.files)],
            skipped=[Path(p) for p in sorted(manifest.user_files)],
            up_to_date=True,
        )
        if not hook:
            result.warnings += _handler_warnings(project, inputs, handlers_display)
        return result

    if hook:
        rendered_hook = hook_files.render(project, inputs)
        result = GenerateResult(report=rendered_hook.report)
        result.warnings += _runtime_warnings(project) + rendered_hook.warnings
        return _write(root, rendered_hook.files, inputs, manifest, result, check=check)

    # The slow path: validate, render everything in memory, then write. models.py, the slowest
    # file, is rendered in a child process meanwhile when the CLI owns the process (_parallel).
    from cfngen._generate import _parallel

    _import_shared()
    models_job = _parallel.start(_models_from_inputs, project, inputs)
    try:
        report = _validate(project, inputs)
        if not report.valid or report.schema is None:
            raise InvalidSchemaError(report)
        schema = report.schema
        rendered = render_project(
            project,
            schema,
            _callback_context(project, inputs),
            models=models_job.result if models_job else None,
        )
    finally:
        if models_job:
            models_job.cancel()

    result = GenerateResult(report=report)
    result.warnings += _runtime_warnings(project)
    result.warnings += _handler_warnings(project, inputs, handlers_display)
    return _write(root, rendered, inputs, manifest, result, check=check)


def _write(
    root: Path,
    rendered: dict[str, bytes],
    inputs: dict[str, bytes | None],
    manifest: _ownership.Manifest,
    result: GenerateResult,
    *,
    check: bool,
) -> GenerateResult:
    """Compare the rendered files with what is on disk, then (unless `check`) write what
    changed and is cfngen's, remove what cfngen wrote and no longer derives, and record it."""
    fingerprint = _ownership.fingerprint(inputs)
    new_manifest = _ownership.Manifest(fingerprint=fingerprint)
    writes: list[tuple[str, bytes]] = []
    for relpath, data in rendered.items():
        existing = _read_bytes(root / relpath)
        if existing == data:
            result.unchanged.append(Path(relpath))
            new_manifest.files[relpath] = _ownership.sha256(data)
        elif existing is None or _owned(relpath, existing, manifest):
            writes.append((relpath, data))
            result.written.append(Path(relpath))
            new_manifest.files[relpath] = _ownership.sha256(data)
        else:
            result.skipped.append(Path(relpath))
            new_manifest.user_files.append(relpath)
    stale = [
        relpath
        for relpath in sorted(manifest.files)
        if relpath not in rendered
        and (old := _read_bytes(root / relpath)) is not None
        and _owned(relpath, old, manifest)
    ]
    result.removed = [Path(p) for p in stale]
    if check:
        return result

    for relpath, data in writes:
        write_atomic(root / relpath, data)
    for relpath in stale:
        os.unlink(root / relpath)
    manifest_text = new_manifest.render().encode()
    if _read_bytes(root / _ownership.MANIFEST_PATH) != manifest_text:
        write_atomic(root / _ownership.MANIFEST_PATH, manifest_text)
    return result


def render_project(
    project: Project,
    schema: dict[str, Any],
    callback_context: dict[str, Any] | None,
    *,
    models: Callable[[], dict[str, str] | None] | None = None,
) -> dict[str, bytes]:
    """Every derived file, relative path -> bytes, with cfngen's header where it fits.

    `models`, when given, returns what render_models(schema, callback_context) would (or None:
    then they are rendered here); it is called after everything else is rendered.
    """
    from cfngen._models import render_models

    texts: dict[str, str] = {}
    if models is None:
        texts.update(_render_models(project, render_models(schema, callback_context)))
        texts.update(_render_the_rest(project, schema))
    else:
        try:
            texts.update(_render_the_rest(project, schema))
        except Exception as error:
            the_rest_error: Exception | None = error
        else:
            the_rest_error = None
        # Errors in the order the sequential path meets them: the models' first.
        rendered = models()
        if rendered is None:
            rendered = render_models(schema, callback_context)
        texts.update(_render_models(project, rendered))
        if the_rest_error is not None:
            raise the_rest_error
    return {
        relpath: _ownership.with_header(relpath, text).encode("utf-8")
        for relpath, text in sorted(texts.items())
    }


def _render_models(project: Project, models: dict[str, str]) -> dict[str, str]:
    from cfngen._models import MODELS_FILE, RUNTIME_FILE

    package = f"src/{project.package_name}"
    return {f"{package}/{name}": models[name] for name in (MODELS_FILE, RUNTIME_FILE)}


def _render_the_rest(project: Project, schema: dict[str, Any]) -> dict[str, str]:
    from cfngen._generate._docs import render_docs
    from cfngen._generate._role import render_role
    from cfngen._generate._sam import render_requirements, render_template
    from cfngen._instances import example_inputs

    texts: dict[str, str] = {}
    texts["resource-role.yaml"] = render_role(schema, project.type_name)
    texts["template.yml"] = render_template(
        project.type_name, _runtime_name(project), project.entrypoint, project.test_entrypoint
    )
    texts["src/requirements.txt"] = render_requirements(
        (project.root / REQUIREMENTS_FILE).is_file()
    )
    for name, text in render_docs(schema, project.type_name).items():
        texts[f"docs/{name}"] = text
    inputs = example_inputs(schema)
    for kind in EXAMPLE_INPUTS:
        texts[f"example_inputs/inputs_1_{kind}.json"] = (
            json.dumps(inputs[kind], indent=4, ensure_ascii=False) + "\n"
        )
    return texts


#: Modules that both jsonschema (validation, example inputs) and datamodel-code-generator (the
#: models) import: loaded before the fork, once instead of in both processes (-20 ms of CPU).
_SHARED_MODULES = (
    "email.message",
    "importlib.resources",
    "textwrap",
    "typing_extensions",
    "uuid",
    "zipfile",
)


def _import_shared() -> None:
    import importlib

    for name in _SHARED_MODULES:
        importlib.import_module(name)


def _models_from_inputs(project: Project, inputs: dict[str, bytes | None]) -> dict[str, str] | None:
    """render_models on the schema bytes as read (None when they do not parse: validation,
    which reads the same bytes, then says why). Runs in the child process of _parallel."""
    from cfngen import _jsonsource
    from cfngen._models import render_models

    try:
        doc = _jsonsource.loads((inputs["schema"] or b"").decode("utf-8"))
    except (UnicodeDecodeError, _jsonsource.JsonSyntaxError):
        return None
    if not isinstance(doc.data, dict):
        return None
    return render_models(doc.data, _callback_context(project, inputs))


def _validate(project: Project, inputs: dict[str, bytes | None]) -> FileReport:
    """The schema's report, from the bytes the fingerprint (and the models' child) saw."""
    from cfngen._validate import validate_file, validate_text

    display = _display(project, project.schema_path)
    try:
        text = (inputs["schema"] or b"").decode("utf-8")
    except UnicodeDecodeError:  # validate_file turns it into a diagnostic with its position
        return validate_file(project.schema_path, display=display)
    return validate_text(text, path=project.schema_path, display=display)


# --------------------------------------------------------------------------- helpers


def _read_inputs(project: Project) -> dict[str, bytes | None]:
    root = project.root
    schema = _read_bytes(project.schema_path)
    if schema is None:
        raise CfngenError(
            f"{_display(project, project.schema_path)}: no such file",
            f"{CONFIG_FILE} names the type {project.type_name}, whose schema is this file; "
            "create it or fix typeName",
        )
    return {
        CONFIG_FILE: _read_bytes(root / CONFIG_FILE),
        "schema": schema,
        CALLBACK_CONTEXT_FILE: _read_bytes(root / CALLBACK_CONTEXT_FILE),
        # src/requirements.txt includes the project's own requirements only when they exist.
        REQUIREMENTS_FILE: b"exists" if (root / REQUIREMENTS_FILE).is_file() else None,
    }


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def _owned(relpath: str, data: bytes, manifest: _ownership.Manifest) -> bool:
    return (
        _ownership.has_header(data)
        or manifest.files.get(relpath) == _ownership.sha256(data)
        or _ownership.is_official_output(relpath, data)
    )


def _display(project: Project, path: Path) -> str:
    try:
        return path.relative_to(project.root).as_posix()
    except ValueError:
        return str(path)


def _callback_context(project: Project, inputs: dict[str, bytes | None]) -> dict[str, Any] | None:
    data = inputs[CALLBACK_CONTEXT_FILE]
    if data is None:
        return None
    from cfngen import _jsonsource

    try:
        doc = _jsonsource.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise CfngenError(f"{CALLBACK_CONTEXT_FILE}: is not UTF-8", "save it as UTF-8") from None
    except _jsonsource.JsonSyntaxError as exc:
        raise CfngenError(
            f"{CALLBACK_CONTEXT_FILE}:{exc.line}:{exc.column}: invalid JSON: {exc.message}",
            "fix the file (a JSON schema of the callback context) or delete it",
        ) from None
    if not isinstance(doc.data, dict):
        raise CfngenError(
            f"{CALLBACK_CONTEXT_FILE}: expected a JSON object (a JSON schema)",
            'write a schema such as {"type": "object", "properties": {...}}',
        )
    return doc.data


def _runtime_name(project: Project) -> str:
    """The Lambda runtime for template.yml: `.rpdk-config` "runtime", else the default."""
    return project.runtime or DEFAULT_RUNTIME.name


def _runtime_warnings(project: Project) -> list[str]:
    name = project.runtime
    if name is None:
        return [
            f'{CONFIG_FILE} has no "runtime"; template.yml uses {DEFAULT_RUNTIME.name} '
            f'(add "runtime": "{DEFAULT_RUNTIME.name}")'
        ]
    runtime = find_runtime(name)
    known = ", ".join(r.name for r in RUNTIMES)
    if runtime is None or runtime.name != name:
        return [f'{CONFIG_FILE}: runtime "{name}" is not one cfngen supports ({known})']
    if runtime.status == "deprecated":
        return [
            f"{CONFIG_FILE}: Lambda deprecated {name} on {runtime.deprecated_on} and blocks new "
            f"functions from {runtime.create_blocked_on}; move to {DEFAULT_RUNTIME.name}"
        ]
    return []


def _handler_warnings(project: Project, inputs: dict[str, bytes | None], display: str) -> list[str]:
    from cfngen._generate._handlers import handler_warnings

    try:
        schema = json.loads(inputs["schema"] or b"")
    except ValueError:
        return []
    if not isinstance(schema, dict):
        return []
    return handler_warnings(schema, project.handlers_path, display)
