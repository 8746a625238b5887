"""What `cfngen generate` derives for a custom resource: the protocol helper
(cfngen/_support/cfngen_custom_resource.py) beside the handler of every function in the template
whose code imports it. A SAM project that does not use the helper gets nothing."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from cfngen._kinds.custom_resource import HELPER_MODULE
from cfngen._project import Project

_MODULE = HELPER_MODULE.removesuffix(".py")


def _template(project: Project) -> Path | None:
    from cfngen._errors import CfngenError
    from cfngen._kinds.custom_resource._lambda import find_template

    try:
        return project.template or find_template(project.root, None)
    except CfngenError:  # no template: nothing to derive
        return None


def helper_paths(project: Project) -> list[str]:
    """Relative paths of the helper: one per local code folder that imports it."""
    from cfngen._errors import CfngenError
    from cfngen._kinds.custom_resource._lambda import FUNCTION_TYPES, load_template

    path = _template(project)
    if path is None:
        return []
    try:
        document = load_template(path)
    except CfngenError:
        return []
    globals_ = (document.get("Globals") or {}).get("Function") or {}
    out: list[str] = []
    for body in (document.get("Resources") or {}).values():
        if not isinstance(body, dict) or body.get("Type") not in FUNCTION_TYPES:
            continue
        properties = {**globals_, **(body.get("Properties") or {})}
        code = properties.get("CodeUri", properties.get("Code"))
        if not isinstance(code, str) or code.startswith("s3://"):
            continue
        folder = (path.parent / code).resolve()
        root = project.root.resolve()
        if not folder.is_dir() or not folder.is_relative_to(root):
            continue
        if any(
            _MODULE in p.read_text(encoding="utf-8", errors="replace")
            for p in folder.glob("*.py")
            if p.name != HELPER_MODULE
        ):
            rel = (folder / HELPER_MODULE).relative_to(root).as_posix()
            if rel not in out:
                out.append(rel)
    return out


def read_inputs(project: Project) -> dict[str, bytes | None]:
    from cfngen._support import source

    paths = helper_paths(project)
    return {"helper": source(HELPER_MODULE).encode(), "paths": "\n".join(paths).encode()}


def render(inputs: Mapping[str, bytes | None]) -> dict[str, bytes]:
    from cfngen._generate._ownership import with_header

    text = (inputs.get("helper") or b"").decode()
    paths = [p for p in (inputs.get("paths") or b"").decode().splitlines() if p]
    return {p: with_header(p, text).encode() for p in paths}


def may_derive(project: Project, relpath: str) -> bool:
    return PurePosixPath(relpath).name == HELPER_MODULE
