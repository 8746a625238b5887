"""What `cfngen generate` derives for a custom resource: the protocol helper
(cfngen/_support/cfngen_custom_resource.py) beside the handler of every function in the template
whose code imports it, and, when `properties-schema.json` exists, typed property models there
too (`properties_model.py` with `Properties`, through cfngen/_models, and its runtime
`cfngen_runtime.py`: `Properties._deserialize(request.properties)` turns CloudFormation's
strings into the schema's types). A SAM project that does not use the helper gets nothing."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from cfngen._kinds.custom_resource import HELPER_MODULE
from cfngen._project import Project

_MODULE = HELPER_MODULE.removesuffix(".py")
MODELS_MODULE = "properties_model.py"
RUNTIME_MODULE = "cfngen_runtime.py"


def _template(project: Project) -> Path | None:
    from cfngen._errors import CfngenError
    from cfngen._kinds.custom_resource._template import find_template

    try:
        return project.template or find_template(project.root, None)
    except CfngenError:  # no template: nothing to derive
        return None


def helper_folders(project: Project) -> list[tuple[str, str | None]]:
    """(folder relative to the root, the function's Runtime) of every local code folder that
    imports the helper."""
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
    out: list[tuple[str, str | None]] = []
    root = project.root.resolve()
    for body in (document.get("Resources") or {}).values():
        if not isinstance(body, dict) or body.get("Type") not in FUNCTION_TYPES:
            continue
        properties = {**globals_, **(body.get("Properties") or {})}
        code = properties.get("CodeUri", properties.get("Code"))
        if not isinstance(code, str) or code.startswith("s3://"):
            continue
        folder = (path.parent / code).resolve()
        if not folder.is_dir() or not folder.is_relative_to(root):
            continue
        generated = (HELPER_MODULE, MODELS_MODULE, RUNTIME_MODULE)
        if any(
            _MODULE in p.read_text(encoding="utf-8", errors="replace")
            for p in folder.glob("*.py")
            if p.name not in generated
        ):
            rel = folder.relative_to(root).as_posix()
            runtime = properties.get("Runtime")
            if rel not in [r for r, _ in out]:
                out.append((rel, runtime if isinstance(runtime, str) else None))
    return out


def read_inputs(project: Project) -> dict[str, bytes | None]:
    from cfngen._files import read_optional
    from cfngen._kinds.custom_resource import PROPERTIES_SCHEMA
    from cfngen._support import source

    folders = helper_folders(project)
    return {
        "helper": source(HELPER_MODULE).encode(),
        "folders": json.dumps(folders).encode(),
        "properties_schema": read_optional(project.root / PROPERTIES_SCHEMA),
    }


def _join(folder: str, name: str) -> str:
    return name if folder in ("", ".") else f"{folder}/{name}"


def render(inputs: Mapping[str, bytes | None]) -> dict[str, bytes]:
    from cfngen._generate._ownership import with_header

    text = (inputs.get("helper") or b"").decode()
    folders = [tuple(f) for f in json.loads((inputs.get("folders") or b"[]").decode())]
    files = {}
    for folder, runtime in folders:
        rel = _join(folder, HELPER_MODULE)
        files[rel] = with_header(rel, text).encode()
        schema = inputs.get("properties_schema")
        if schema is not None:
            for name, source_text in _models(schema, runtime).items():
                rel = _join(folder, name)
                files[rel] = with_header(rel, source_text).encode()
    return files


def _models(schema_bytes: bytes, runtime: str | None) -> dict[str, str]:
    """properties_model.py and cfngen_runtime.py for the properties schema (a broken schema
    stops generate with validate's report)."""
    from cfngen._generate import InvalidSchemaError
    from cfngen._kinds.custom_resource import PROPERTIES_SCHEMA
    from cfngen._kinds.custom_resource._validate import check_text
    from cfngen._models import models_source, runtime_source
    from cfngen._runtimes import find_runtime

    report = check_text(
        schema_bytes.decode("utf-8", "replace"), path=Path(PROPERTIES_SCHEMA), strict=False
    )
    if not report.valid or report.schema is None:
        raise InvalidSchemaError(report)
    found = find_runtime(runtime) if runtime else None
    python = found.version_info if found is not None else (3, 12)
    text = models_source(report.schema, root="Properties", python=python)
    # The function's code folder is no package: import the runtime module by its name.
    text = text.replace("from .cfngen_runtime import", "from cfngen_runtime import")
    return {MODELS_MODULE: text, RUNTIME_MODULE: runtime_source()}


def may_derive(project: Project, relpath: str) -> bool:
    return PurePosixPath(relpath).name in (HELPER_MODULE, MODELS_MODULE, RUNTIME_MODULE)
