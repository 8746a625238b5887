"""The files `cfngen generate` derives for a resource type, from its schema and answers.

models.py, the runtime library (the package src/cfngen_runtime/, and a shim in src/<package>/
for each single file of earlier versions the project's code still imports), resource-role.yaml,
template.yml,
src/requirements.txt, docs/, example_inputs/ and inputs/ (the contract tests' inputs, derived
only until the user edits one: then it is theirs for good): each a pure function of the inputs that
`generate_inputs` reads (the schema, callback-context.json, .rpdk-config, whether
requirements.txt exists), each with cfngen's header where the format allows one.

In a project whose handlers are in another language (the official TypeScript, Java and Go
plugins), only the language-free files are derived: resource-role.yaml, docs/ and inputs/. The
plugin's files (its models, template.yml, example_inputs/ from `cfn init`, its build files) are
never cfngen's there. The official `cfn generate` rewrites the role and docs/ too (the core
writes them for every language, emptying docs/ first): what it writes is recognised as the
official tool's output (cfngen/_files/_ownership.py), so neither tool takes the other's files
for a hand edit.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from cfngen._errors import CfngenError
from cfngen._files import read_bytes, read_optional
from cfngen._kind._kind import Derived
from cfngen._kinds._shared._official import official_outputs, official_witness
from cfngen._kinds.resource import CALLBACK_CONTEXT_FILE
from cfngen._languages._python_handler import require_handler
from cfngen._languages._python_runtimes import project_python, runtime_name, runtime_warnings
from cfngen._progress import phase
from cfngen._project import CONFIG_FILE, Project

if TYPE_CHECKING:
    from cfngen._validate._file_report import FileReport

REQUIREMENTS_FILE = "requirements.txt"
EXAMPLE_INPUTS = ("create", "update", "invalid")
#: The contract tests' inputs: written like example_inputs/ until the user edits one.
CONTRACT_INPUTS = "inputs"
ROLE_FILE = "resource-role.yaml"
SAM_FILE = "template.yml"
SRC_REQUIREMENTS = "src/requirements.txt"


def may_derive(project: Project, relpath: str) -> bool:
    """Whether `relpath` is one of the paths generate writes for this project."""
    if not project.language.handlers:
        return _language_free(relpath)
    from cfngen._models import MODELS_FILE
    from cfngen._support import LEGACY_MODULES, is_vendored_path

    path = PurePosixPath(relpath)
    package = project.language.layout(project).package_name
    if relpath in (ROLE_FILE, SAM_FILE, SRC_REQUIREMENTS) or is_vendored_path(
        relpath, f"src/{package}"
    ):
        return True
    modules = (MODELS_FILE, *LEGACY_MODULES)
    if relpath in {f"src/{package}/{name}" for name in modules}:
        return True
    if path.parts[:1] == ("docs",) and path.suffix == ".md" and ".." not in path.parts:
        return True
    return relpath in {
        f"{folder}/inputs_1_{kind}.json"
        for folder in ("example_inputs", CONTRACT_INPUTS)
        for kind in EXAMPLE_INPUTS
    }


def _language_free(relpath: str) -> bool:
    """The paths derived whatever the handlers' language: the role, docs/, inputs/."""
    path = PurePosixPath(relpath)
    if relpath == ROLE_FILE:
        return True
    if path.parts[:1] == ("docs",) and path.suffix == ".md" and ".." not in path.parts:
        return True
    return relpath in {f"{CONTRACT_INPUTS}/inputs_1_{kind}.json" for kind in EXAMPLE_INPUTS}


def generate_inputs(project: Project) -> dict[str, bytes | None]:
    # Before anything else: a python3.7 project cannot run the models, and a typo in the
    # entrypoint would make every derived path point at another package (exit 2, fix named).
    # Another language's handlers are the plugin's: nothing derived depends on them.
    if project.language.handlers:
        require_handler(project.language.layout(project))
    root = project.root
    schema = read_bytes(
        project.schema_path,
        display=_display(project, project.schema_path),
        hint=f"{CONFIG_FILE} names the type {project.type_name}, whose schema is this file; "
        "create it or fix typeName",
    )
    return {
        CONFIG_FILE: read_optional(root / CONFIG_FILE),
        "schema": schema,
        CALLBACK_CONTEXT_FILE: read_optional(
            root / CALLBACK_CONTEXT_FILE, display=CALLBACK_CONTEXT_FILE
        ),
        # src/requirements.txt includes the project's own requirements only when they exist.
        REQUIREMENTS_FILE: b"exists" if (root / REQUIREMENTS_FILE).is_file() else None,
        # The single files of earlier versions that the project's code imports get a shim.
        "legacy imports": "\n".join(legacy_imports(project)).encode()
        if project.language.handlers
        else b"",
    }


def legacy_imports(project: Project) -> list[str]:
    """The runtime library's single files of earlier versions that the package's modules and
    the project's tests import."""
    from cfngen._models import MODELS_FILE
    from cfngen._support import LEGACY_MODULES, legacy_imports, project_code

    package = project.language.layout(project).package_dir
    skip = {package / name for name in (MODELS_FILE, *LEGACY_MODULES)}
    return legacy_imports(project_code([package, project.root / "tests"], skip))


def derive(project: Project, inputs: Mapping[str, bytes | None]) -> Derived:
    """Validate, then render everything in memory. models.py, the slowest file, is rendered in
    a child process meanwhile when the CLI owns the process (cfngen._generate._parallel)."""
    from cfngen._generate import InvalidSchemaError, _parallel

    if not project.language.handlers:
        return _derive_language_free(project, inputs)
    _import_shared()
    models_job = _parallel.start(_models_from_inputs, project, inputs)
    try:
        with phase("validating the schema"):
            report = _validate(project, inputs)
        if not report.valid or report.schema is None:
            raise InvalidSchemaError(report)
        _check_callback_context(project, inputs)
        files = render_project(
            project,
            report.schema,
            _callback_context(inputs),
            models=models_job.result if models_job else None,
        )
    finally:
        if models_job:
            models_job.cancel()
    return Derived(
        files=files,
        report=report,
        warnings=runtime_warnings(project.language.layout(project).runtime),
        official_outputs=official_outputs(files),
        official_witness=official_witness(files),
        until_edited=frozenset(
            f"{CONTRACT_INPUTS}/inputs_1_{kind}.json" for kind in EXAMPLE_INPUTS
        ),
    )


def _derive_language_free(project: Project, inputs: Mapping[str, bytes | None]) -> Derived:
    """The role, docs/ and inputs/ of a project whose handlers another language's plugin
    makes: no models, no support files, no SAM template, no runtime of cfngen's."""
    from cfngen._files._ownership import with_header
    from cfngen._generate import InvalidSchemaError

    with phase("validating the schema"):
        report = _validate(project, inputs)
    if not report.valid or report.schema is None:
        raise InvalidSchemaError(report)
    texts = _render_the_rest(project, report.schema, language_free=True)
    files = {
        relpath: with_header(relpath, text).encode("utf-8")
        for relpath, text in sorted(texts.items())
        if _language_free(relpath)
    }
    until_edited = frozenset(f"{CONTRACT_INPUTS}/inputs_1_{kind}.json" for kind in EXAMPLE_INPUTS)
    return Derived(
        files=files,
        report=report,
        official_outputs=official_outputs(files),
        official_witness=official_witness(files),
        until_edited=until_edited,
    )


def generate_notes(project: Project, inputs: Mapping[str, bytes | None]) -> list[str]:
    """The single files of earlier runtime libraries found; handlers the schema declares that
    handlers.py does not register."""
    if not project.language.handlers:
        return []  # the plugin's handlers: not Python cfngen reads
    from cfngen import _schema
    from cfngen._kinds.resource._registered import handler_warnings
    from cfngen._support import legacy_notes

    imported = (inputs.get("legacy imports") or b"").decode().split()
    package = project.language.layout(project).package_name
    notes = legacy_notes(project.root, f"src/{package}", imported)
    try:
        schema = _schema.loads((inputs["schema"] or b"").decode("utf-8")).data
    except (UnicodeDecodeError, _schema.JsonSyntaxError):
        return notes
    if not isinstance(schema, dict):
        return notes
    handlers = project.language.layout(project).handlers_path
    return [*notes, *handler_warnings(schema, handlers, _display(project, handlers))]


def render_project(
    project: Project,
    schema: dict[str, Any],
    callback_context: dict[str, Any] | None,
    *,
    models: Callable[[], dict[str, str] | None] | None = None,
    render_models: Callable[..., dict[str, str]] | None = None,
    example_inputs: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> dict[str, bytes]:
    """Every derived file, relative path -> bytes, with cfngen's header where it fits.

    `models`, when given, returns what render_models(schema, callback_context) would (or None:
    then they are rendered here); it is called after everything else is rendered.
    `render_models` and `example_inputs` replace cfngen._models.render_models and
    cfngen._instances.example_inputs (tests pass stand-ins to check the rest on its own).
    """
    from cfngen._files._ownership import with_header
    from cfngen._models import render_models as real_render_models

    render = render_models or real_render_models
    python = project_python(project.language.layout(project))
    texts: dict[str, str] = {}
    if models is None:
        with phase("generating models.py"):
            rendered = render(schema, callback_context, python=python)
        texts.update(_render_models(project, rendered))
        texts.update(_render_the_rest(project, schema, example_inputs))
    else:
        try:
            texts.update(_render_the_rest(project, schema, example_inputs))
        except Exception as error:
            the_rest_error: Exception | None = error
        else:
            the_rest_error = None
        # Errors in the order the sequential path meets them: the models' first.
        with phase("generating models.py"):
            got = models()
            rendered = got if got is not None else render(schema, callback_context, python=python)
        texts.update(_render_models(project, rendered))
        if the_rest_error is not None:
            raise the_rest_error
    return {
        relpath: with_header(relpath, text).encode("utf-8")
        for relpath, text in sorted(texts.items())
    }


def _render_models(project: Project, models: dict[str, str]) -> dict[str, str]:
    """models.py, the runtime library beside its package, and shims for the library's single
    files of earlier versions that the project's code still imports."""
    from cfngen._models import MODELS_FILE
    from cfngen._support import shims, vendored

    package = f"src/{project.language.layout(project).package_name}"
    texts = {f"{package}/{MODELS_FILE}": models[MODELS_FILE], **vendored(package)}
    texts.update(shims(package, legacy_imports(project)))
    return texts


def _render_the_rest(
    project: Project,
    schema: dict[str, Any],
    example_inputs: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    *,
    language_free: bool = False,
) -> dict[str, str]:
    from cfngen._instances import example_inputs as real_example_inputs
    from cfngen._kinds._shared._role import render_role
    from cfngen._kinds._shared._sam import render_requirements, render_template
    from cfngen._kinds.resource._docs import render_docs

    texts: dict[str, str] = {}
    texts[ROLE_FILE] = render_role(schema, project.type_name)
    if not language_free:  # the SAM template and requirements run Python handlers
        layout = project.language.layout(project)
        texts[SAM_FILE] = render_template(
            project.type_name,
            runtime_name(layout.runtime),
            layout.entrypoint,
            layout.test_entrypoint,
        )
        texts[SRC_REQUIREMENTS] = render_requirements((project.root / REQUIREMENTS_FILE).is_file())
    with phase("writing docs/"):
        for name, text in render_docs(schema, project.type_name).items():
            texts[f"docs/{name}"] = text
    with phase("making example inputs"):
        inputs = (example_inputs or real_example_inputs)(schema)
    for kind in EXAMPLE_INPUTS:
        text = json.dumps(inputs[kind], indent=4, ensure_ascii=False) + "\n"
        texts[f"example_inputs/inputs_1_{kind}.json"] = text
        # What `cfn test` and `cfngen test` read: derived until the user's first edit.
        texts[f"{CONTRACT_INPUTS}/inputs_1_{kind}.json"] = text
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


def _models_from_inputs(
    project: Project, inputs: Mapping[str, bytes | None]
) -> dict[str, str] | None:
    """render_models on the schema bytes as read (None when they do not parse: validation,
    which reads the same bytes, then says why). Runs in the child process of _parallel."""
    from cfngen import _schema
    from cfngen._models import render_models

    try:
        doc = _schema.loads((inputs["schema"] or b"").decode("utf-8"))
    except (UnicodeDecodeError, _schema.JsonSyntaxError):
        return None
    if not isinstance(doc.data, dict):
        return None
    return render_models(
        doc.data, _callback_context(inputs), python=project_python(project.language.layout(project))
    )


def _validate(project: Project, inputs: Mapping[str, bytes | None]) -> FileReport:
    """The schema's report, from the bytes the fingerprint (and the models' child) saw."""
    display = _display(project, project.schema_path)
    try:
        text = (inputs["schema"] or b"").decode("utf-8")
    except UnicodeDecodeError:  # check_file turns it into a diagnostic with its position
        return project.kind.check_file(project.schema_path, strict=False, display=display)
    return project.kind.check_text(text, path=project.schema_path, strict=False, display=display)


def _check_callback_context(project: Project, inputs: Mapping[str, bytes | None]) -> None:
    """A callback context that takes the runtime library's reserved key would break the models."""
    from cfngen._generate import InvalidSchemaError
    from cfngen._kinds.resource import callback_context_rules
    from cfngen._validate import check_json_schema

    if _callback_context(inputs) is None:  # unreadable: a usage error, said there
        return
    text = (inputs[CALLBACK_CONTEXT_FILE] or b"").decode("utf-8")
    path = project.root / CALLBACK_CONTEXT_FILE
    report = check_json_schema(
        text, callback_context_rules(), path=path, display=CALLBACK_CONTEXT_FILE
    )
    if not report.valid:
        raise InvalidSchemaError(report)


def _display(project: Project, path: Path) -> str:
    try:
        return path.relative_to(project.root).as_posix()
    except ValueError:
        return str(path)


def _callback_context(inputs: Mapping[str, bytes | None]) -> dict[str, Any] | None:
    data = inputs[CALLBACK_CONTEXT_FILE]
    if data is None:
        return None
    from cfngen import _schema

    try:
        doc = _schema.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise CfngenError(f"{CALLBACK_CONTEXT_FILE}: is not UTF-8", "save it as UTF-8") from None
    except _schema.JsonSyntaxError as exc:
        raise CfngenError(
            f"{CALLBACK_CONTEXT_FILE}:{exc.line}:{exc.column}: invalid JSON: {exc.message}",
            "fix the file (a JSON schema of the callback context) or delete it",
        ) from None
    if not isinstance(doc.data, dict):
        raise CfngenError(
            f"{CALLBACK_CONTEXT_FILE}: expected a JSON object (a JSON schema)",
            'write a schema such as {"type": "object", "properties": {...}}',
        )
    deep = _schema.nesting_too_deep(doc.data)
    if deep is not None:
        raise CfngenError(
            f"{CALLBACK_CONTEXT_FILE}: {deep}: nested more than {_schema.MAX_NESTING} levels deep",
            "name the inner objects in definitions and refer to them with $ref",
        )
    return doc.data
