"""Which interpreter and machine a project's handler runs on in Lambda.

The registry creates the handler's function with `.rpdk-config`'s "runtime" (the official
Python plugin writes it from "language" when it is missing), so that decides the Python version
and, through the runtime table, the Amazon Linux release. The architecture is template.yml's
`Architectures` for the function whose Handler is the entrypoint: x86_64 unless it says arm64.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from cfngen._errors import CfngenError
from cfngen._package._deps import Platform
from cfngen._project import CONFIG_FILE, Project
from cfngen._runtimes import DEFAULT_RUNTIME, RUNTIMES, find_runtime

TEMPLATE_FILE = "template.yml"
_PYTHON = re.compile(r"^python3\.?(\d+)$")


def handler_platform(project: Project) -> tuple[Platform, list[str]]:
    """The platform to install the handler's dependencies for, and warnings about it."""
    warnings: list[str] = []
    name = project.runtime
    if name is None:
        language = project.config.get("language")
        name = language if isinstance(language, str) else None
    if name is None:
        warnings.append(
            f'{CONFIG_FILE} has no "runtime": building for {DEFAULT_RUNTIME.name} '
            f'(add "runtime": "{DEFAULT_RUNTIME.name}")'
        )
        name = DEFAULT_RUNTIME.name
    runtime = find_runtime(name)
    amazon_linux: str
    if runtime is not None:
        version, amazon_linux = runtime.python_version, runtime.amazon_linux
    else:
        version, amazon_linux = _unlisted(name)
        known = ", ".join(r.name for r in RUNTIMES)
        warnings.append(
            f'{CONFIG_FILE}: runtime "{name}" is not one cfngen supports ({known}); '
            f"building for CPython {version} on Amazon Linux {amazon_linux} anyway"
        )
    arch = architecture(project.root / TEMPLATE_FILE, project.entrypoint)
    return Platform(python_version=version, arch=arch, amazon_linux=amazon_linux), warnings


def _unlisted(name: str) -> tuple[str, str]:
    """A Python runtime the table leaves out (retired ones such as python3.9): Lambda ran
    python3.8 to python3.11 on Amazon Linux 2, and runs python3.12 and later on 2023."""
    match = _PYTHON.match(name)
    if match is None or int(match.group(1)) < 8:
        raise CfngenError(
            f'{CONFIG_FILE}: runtime "{name}" is not a Python runtime Lambda runs',
            f'set "runtime" to one of {", ".join(r.name for r in RUNTIMES)}',
        )
    minor = int(match.group(1))
    return f"3.{minor}", "2" if minor <= 11 else "2023"


class _AnyTagLoader(yaml.SafeLoader):  # type: ignore[misc]
    """Reads CloudFormation's short-form intrinsics (`!Ref`, `!Sub`) as plain values."""


def _any_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_mapping(node)


_AnyTagLoader.add_multi_constructor("!", _any_tag)


def architecture(template: Path, entrypoint: str) -> str:
    """`aarch64` when the entrypoint's function in `template` declares arm64, else `x86_64`."""
    try:
        data = yaml.load(template.read_text(encoding="utf-8"), Loader=_AnyTagLoader)
    except FileNotFoundError:
        return "x86_64"
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise CfngenError(
            f"{template}: cannot read it: {exc}", "fix the file or delete it"
        ) from None
    if not isinstance(data, dict):
        return "x86_64"
    declared = _get(data, "Globals", "Function", "Architectures")
    resources = data.get("Resources")
    for resource in resources.values() if isinstance(resources, dict) else ():
        properties = _get(resource, "Properties")
        if isinstance(properties, dict) and properties.get("Handler") == entrypoint:
            declared = properties.get("Architectures", declared)
            break
    if isinstance(declared, list) and declared == ["arm64"]:
        return "aarch64"
    return "x86_64"


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data
