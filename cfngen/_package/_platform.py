"""Which interpreter and machine a project's handler runs on in Lambda.

The registry creates the handler's function with `.rpdk-config`'s "runtime" (the official
Python plugin writes it from "language" when it is missing), so that decides the Python version
and, through the runtime table, the Amazon Linux release. The architecture is template.yml's
`Architectures` for the function whose Handler is the entrypoint: x86_64 unless it says arm64.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError
from cfngen._languages._python_runtimes import (
    DEFAULT_RUNTIME,
    RUNTIMES,
    find_runtime,
    runtime_warnings,
)
from cfngen._project import CONFIG_FILE, Project

TEMPLATE_FILE = "template.yml"

#: glibc of each Amazon Linux release Lambda runs Python on: a manylinux_2_N wheel runs there
#: when N is at most this minor version (PEP 600).
_GLIBC_MINOR = {"2": 26, "2023": 34}
#: The legacy manylinux names and the glibc they stand for (PEPs 513, 571, 599).
_LEGACY = (("manylinux2014", 17), ("manylinux2010", 12), ("manylinux1", 5))
#: The oldest glibc a manylinux wheel exists for, per architecture.
_OLDEST = {"x86_64": 5, "aarch64": 17}


@dataclass(frozen=True)
class Platform:
    """The interpreter and machine a handler runs on in Lambda."""

    python_version: str
    #: `x86_64` or `aarch64` (Lambda's `arm64`).
    arch: str
    amazon_linux: str

    @property
    def tags(self) -> tuple[str, ...]:
        """Every manylinux platform tag this Amazon Linux accepts, newest first."""
        newest = _GLIBC_MINOR[self.amazon_linux]
        tags = []
        for minor in range(newest, _OLDEST[self.arch] - 1, -1):
            tags.append(f"manylinux_2_{minor}_{self.arch}")
            tags.extend(f"{name}_{self.arch}" for name, m in _LEGACY if m == minor)
        return tuple(tags)

    @property
    def abi(self) -> str:
        return "cp" + self.python_version.replace(".", "")

    def describe(self) -> str:
        glibc = _GLIBC_MINOR[self.amazon_linux]
        return (
            f"CPython {self.python_version} on {self.arch} "
            f"(Amazon Linux {self.amazon_linux}, glibc 2.{glibc})"
        )


_PYTHON = re.compile(r"^python3\.?(\d+)$")


def handler_platform(project: Project) -> tuple[Platform, list[str]]:
    """The platform to install the handler's dependencies for, and warnings about it."""
    warnings: list[str] = []
    layout = project.language.layout(project)
    name = layout.runtime
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
        if runtime.status == "deprecated":
            warnings.extend(runtime_warnings(runtime.name))
    else:
        version, amazon_linux = _unlisted(name)
        known = ", ".join(r.name for r in RUNTIMES)
        warnings.append(
            f'{CONFIG_FILE}: runtime "{name}" is not one cfngen supports ({known}); '
            f"building for CPython {version} on Amazon Linux {amazon_linux} anyway"
        )
    arch = architecture(project.root / TEMPLATE_FILE, layout.entrypoint)
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


def architecture(template: Path, entrypoint: str) -> str:
    """`aarch64` when the entrypoint's function in `template` declares arm64, else `x86_64`."""
    try:
        text = template.read_text(encoding="utf-8")
    except FileNotFoundError:
        return "x86_64"
    except (OSError, UnicodeDecodeError) as exc:
        raise CfngenError(
            f"{template}: cannot read it: {exc}", "fix the file or delete it"
        ) from None
    if "arm64" not in text:
        return "x86_64"
    from cfngen._cfn_template import read_plain

    try:
        data = read_plain(text)
    except ValueError as exc:
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
