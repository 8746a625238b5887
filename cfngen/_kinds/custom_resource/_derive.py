"""What `cfngen generate` derives for a custom resource: the protocol helper (the runtime
library's `custom_resource` module, cfngen/_support/, as one standard-library file,
`cfngen_custom_resource.py`) beside the handler of every function in the template whose code
imports it, and, when the custom type that function serves has a properties schema
(_type_files.py), typed property models there too (`properties_model.py` with `Properties`,
through cfngen/_models, and the runtime library as the package `cfngen_runtime/` it imports:
`Properties._deserialize(request.properties)` turns CloudFormation's strings into the schema's
types; earlier versions wrote it as one file, `cfngen_runtime.py`, which generate removes). A
folder whose functions serve types with different schemas gets none (one `Properties` cannot be
both). A SAM project that does not use the helper gets nothing."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from cfngen._kinds.custom_resource import HELPER_MODULE
from cfngen._project import Project

if TYPE_CHECKING:
    from cfngen._kind import Derived

_MODULE = HELPER_MODULE.removesuffix(".py")
MODELS_MODULE = "properties_model.py"
#: The runtime library as one file, from earlier versions: generate removes it (the package of
#: the same import name replaced it).
LEGACY_RUNTIME = "cfngen_runtime.py"


def _template(project: Project) -> Path | None:
    from cfngen._errors import CfngenError
    from cfngen._kinds.custom_resource._template import find_template

    try:
        return project.template or find_template(project.root, None)
    except CfngenError:  # no template: nothing to derive
        return None


@dataclass(frozen=True)
class HelperFolder:
    """A local code folder whose code imports the helper."""

    #: Relative to the project root (posix).
    folder: str
    runtime: str | None
    #: The properties schema its models come from (relative to the root), if one applies.
    schema: str | None = None
    #: Why it gets no models although its types have schemas (several different ones).
    why_no_models: str | None = None


def helper_folders(project: Project) -> list[HelperFolder]:
    """Every local code folder that imports the helper, with the schema of the custom types
    its functions serve."""
    from cfngen._errors import CfngenError
    from cfngen._kinds.custom_resource._template import FUNCTION_TYPES, load_template

    path = _template(project)
    if path is None:
        return []
    try:
        document = load_template(path)
    except CfngenError:
        return []
    globals_ = (document.get("Globals") or {}).get("Function") or {}
    served = _served_types(document)
    out: dict[str, tuple[str | None, set[str]]] = {}
    root = project.root.resolve()
    for name, body in (document.get("Resources") or {}).items():
        if not isinstance(body, dict) or body.get("Type") not in FUNCTION_TYPES:
            continue
        properties = {**globals_, **(body.get("Properties") or {})}
        code = properties.get("CodeUri", properties.get("Code"))
        if not isinstance(code, str) or code.startswith("s3://"):
            continue
        folder = (path.parent / code).resolve()
        if not folder.is_dir() or not folder.is_relative_to(root):
            continue
        generated = (HELPER_MODULE, MODELS_MODULE, LEGACY_RUNTIME)
        if any(
            _MODULE in p.read_text(encoding="utf-8", errors="replace")
            for p in folder.glob("*.py")
            if p.name not in generated
        ):
            rel = folder.relative_to(root).as_posix()
            runtime = properties.get("Runtime")
            known = out.setdefault(rel, (runtime if isinstance(runtime, str) else None, set()))
            known[1].update(served.get(str(name), ()))
    types = {t for kinds in served.values() for t in kinds} | set(_all_types(document))
    return [
        _with_schema(project.root, path.parent, HelperFolder(rel, runtime), kinds, types)
        for rel, (runtime, kinds) in out.items()
    ]


def _with_schema(
    root: Path, folder: Path, found: HelperFolder, kinds: set[str], types: set[str]
) -> HelperFolder:
    """`found` with the one schema of the types it serves (every type's, with one type)."""
    from cfngen._kinds.custom_resource._type_files import type_files

    wanted = types if len(types) == 1 else kinds
    schemas = {
        t: path for t in sorted(wanted) if (path := type_files(folder, t, types).schema) is not None
    }
    distinct = sorted(
        {p.resolve().relative_to(root.resolve()).as_posix() for p in schemas.values()}
    )
    if len(distinct) == 1:
        return dataclasses.replace(found, schema=distinct[0])
    if not distinct:
        return found
    why = (
        f"{found.folder or '.'}: no {MODELS_MODULE}: its functions serve "
        f"{', '.join(schemas)}, whose schemas differ ({', '.join(distinct)}); one Properties "
        "cannot be both"
    )
    return dataclasses.replace(found, why_no_models=why)


def _all_types(document: Mapping[str, Any]) -> list[str]:
    from cfngen._kinds.custom_resource._detect import is_custom_resource_type

    return [
        str(body["Type"])
        for body in (document.get("Resources") or {}).values()
        if isinstance(body, dict) and is_custom_resource_type(body.get("Type"))
    ]


def _served_types(document: Mapping[str, Any]) -> dict[str, set[str]]:
    """Function logical id -> the custom types whose ServiceToken reaches it (directly, or
    through the SNS topic it subscribes to)."""
    from cfngen._kinds.custom_resource._detect import is_custom_resource_type
    from cfngen._kinds.custom_resource._template import _subscriber, _token_target

    resources = document.get("Resources") or {}
    served: dict[str, set[str]] = {}
    for body in resources.values():
        if not isinstance(body, dict) or not is_custom_resource_type(body.get("Type")):
            continue
        token = (body.get("Properties") or {}).get("ServiceToken")
        target = _token_target(token, resources)
        if target and (resources.get(target) or {}).get("Type") == "AWS::SNS::Topic":
            target = _subscriber(target, resources)
        if target:
            served.setdefault(target, set()).add(str(body["Type"]))
    return served


def generate_inputs(project: Project) -> dict[str, bytes | None]:
    from cfngen._files import read_optional
    from cfngen._support import module_source

    folders = helper_folders(project)
    inputs: dict[str, bytes | None] = {
        "helper": module_source("custom_resource").encode(),
        "folders": json.dumps(
            [[f.folder, f.runtime, f.schema, f.why_no_models] for f in folders]
        ).encode(),
    }
    for schema in sorted({f.schema for f in folders if f.schema is not None}):
        inputs[f"schema:{schema}"] = read_optional(project.root / schema)
    return inputs


def notes(project: Project, inputs: Mapping[str, bytes | None]) -> list[str]:
    """Why a folder gets no models although its types have schemas; the runtime library's
    single file of earlier versions, found where the package replaces it."""
    from cfngen._support import PACKAGE, VERSION

    folders = json.loads((inputs.get("folders") or b"[]").decode())
    found = [why for _, _, _, why in folders if why]
    for folder, _, schema, _ in folders:
        legacy = _join(folder, LEGACY_RUNTIME)
        if schema and (project.root / legacy).is_file():
            found.append(
                f"{legacy}: cfngen's runtime library is now the package {PACKAGE} {VERSION} "
                f"beside it ({_join(folder, PACKAGE)}/, the same import name: `from {PACKAGE} "
                "import CfnModel` keeps working): generate removes the single file when it is "
                "as cfngen wrote it"
            )
    return found


def _join(folder: str, name: str) -> str:
    return name if folder in ("", ".") else f"{folder}/{name}"


def render(inputs: Mapping[str, bytes | None]) -> dict[str, bytes]:
    from cfngen._files._ownership import with_header
    from cfngen._support import vendored

    text = (inputs.get("helper") or b"").decode()
    folders = json.loads((inputs.get("folders") or b"[]").decode())
    files = {}
    for folder, runtime, schema_path, _ in folders:
        rel = _join(folder, HELPER_MODULE)
        files[rel] = with_header(rel, text).encode()
        schema = inputs.get(f"schema:{schema_path}") if schema_path else None
        if schema is not None:
            texts = {
                _join(folder, MODELS_MODULE): _models(schema, schema_path, runtime),
                **vendored(folder),
            }
            for rel, source_text in texts.items():
                files[rel] = with_header(rel, source_text).encode()
    return files


def _models(schema_bytes: bytes, schema_path: str, runtime: str | None) -> str:
    """properties_model.py for the properties schema (a broken schema stops generate with
    validate's report)."""
    from cfngen._generate import InvalidSchemaError
    from cfngen._kinds.custom_resource._validate import check_text
    from cfngen._languages._python_runtimes import find_runtime
    from cfngen._models import models_source

    report = check_text(
        schema_bytes.decode("utf-8", "replace"), path=Path(schema_path), strict=False
    )
    if not report.valid or report.schema is None:
        raise InvalidSchemaError(report)
    found = find_runtime(runtime) if runtime else None
    python = found.version_info if found is not None else (3, 12)
    text = models_source(report.schema, root="Properties", python=python)
    # The function's code folder is no package: the runtime library is imported by its name.
    return text.replace("from .cfngen_runtime.", "from cfngen_runtime.", 1)


def may_derive(project: Project, relpath: str) -> bool:
    from cfngen._support import PACKAGE

    path = PurePosixPath(relpath)
    if path.parent.name == PACKAGE and path.suffix == ".py" and ".." not in path.parts:
        return True  # the runtime library, beside a function's models
    return path.name in (HELPER_MODULE, MODELS_MODULE, LEGACY_RUNTIME)


def derive(project: Project, inputs: Mapping[str, bytes | None]) -> Derived:
    from cfngen._kind import Derived

    return Derived(files=render(inputs))


def generate_notes(project: Project, inputs: Mapping[str, bytes | None]) -> list[str]:
    if inputs.get("folders") not in (None, b"[]"):
        return notes(project, inputs)
    return [
        f"no function of the template imports {HELPER_MODULE.removesuffix('.py')}: "
        "nothing to generate"
    ]
