"""The Python runtimes a project can target: one table drives the wizard, template.yml, docs
and tests. A runtime is a row, not a class.

Sources (checked 2026-11-21, see `AS_OF`): the AWS Lambda runtimes page
(https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtimes.html) and the copy of its dates
that cfn-lint 1.58.0 ships (`cfnlint/data/AdditionalSpecs/LmbdRuntimeLifecycle.json`).
python3.8 and python3.9 are in the table although Lambda deprecated them: existing projects
declare them, Lambda still runs (and, until the create block, deploys) them, and cfngen's models
and runtime module run on Python 3.8 and newer (the oldest cloudformation-cli-python-lib
2.1.20 installs on). A new project never starts on a deprecated runtime. python3.7 and older are
refused with a hint to move (`cfngen runtime set`): the library does not install there.

`language` is what `.rpdk-config` must say for the official toolchain: its Python plugin
(cloudformation-cli-python-plugin 2.1.10) only registers python38..python312 and crashes on any
other name, but it never reads `runtime` beyond copying it into the package it submits. So a
python3.13 or python3.14 project records `"language": "python312"` and its real Lambda runtime in
`"runtime"`; `cfn validate`, `cfn generate` and `cfn submit --dry-run` then work unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from cfngen._errors import CfngenError


class Declared(Protocol):
    """What `project_python` reads of a project: its `.rpdk-config` and declared runtime
    (cfngen/_languages/_python.py's `PythonLayout` has both)."""

    @property
    def config(self) -> dict[str, Any]: ...
    @property
    def runtime(self) -> str | None: ...


#: The day the statuses below were last checked against Lambda's dates.
AS_OF = "2026-11-21"


@dataclass(frozen=True)
class Runtime:
    #: Lambda's runtime identifier, as in template.yml and `.rpdk-config` "runtime".
    name: str
    #: The official Python plugin's language name for `.rpdk-config` "language".
    language: str
    #: As of `AS_OF`; commands that act on a date ask `phase(today)`.
    status: Literal["supported", "deprecated"]
    #: Lambda's end-of-support dates (ISO): deprecated, then no new functions, then no updates.
    deprecated_on: str = ""
    create_blocked_on: str = ""
    update_blocked_on: str = ""
    #: The Amazon Linux release Lambda runs this runtime on ("2" or "2023"): it decides which
    #: manylinux wheels `cfngen build` may ship (the runtimes page's "Operating system" column).
    amazon_linux: Literal["2", "2023"] = "2023"

    @property
    def python_version(self) -> str:
        """`3.12` for python3.12."""
        return self.name.removeprefix("python")

    @property
    def version_info(self) -> tuple[int, int]:
        """`(3, 12)` for python3.12: the oldest Python that code for this runtime must run on."""
        major, minor = self.python_version.split(".")
        return int(major), int(minor)

    def phase(self, today: str) -> Literal["supported", "deprecated", "create-blocked", "blocked"]:
        """Where Lambda's end of support stands on `today` (ISO date): "create-blocked" means
        no new functions (existing ones still update), "blocked" no updates either."""
        if self.update_blocked_on and today >= self.update_blocked_on:
            return "blocked"
        if self.create_blocked_on and today >= self.create_blocked_on:
            return "create-blocked"
        if self.deprecated_on and today >= self.deprecated_on:
            return "deprecated"
        return "supported"


# Newest first: the first supported row is the default for new projects.
RUNTIMES: tuple[Runtime, ...] = (
    Runtime("python3.14", "python312", "supported", "2029-06-30", "2029-07-31", "2029-08-31"),
    Runtime("python3.13", "python312", "supported", "2029-06-30", "2029-07-31", "2029-08-31"),
    Runtime("python3.12", "python312", "supported", "2028-10-31", "2028-11-30", "2029-01-10"),
    Runtime("python3.11", "python311", "supported", "2027-06-30", "2027-07-31", "2027-08-31", "2"),
    # Deprecated by Lambda on 2026-10-31; existing projects still build until the blocks.
    Runtime("python3.10", "python310", "deprecated", "2026-10-31", "2027-02-01", "2027-03-03", "2"),
    Runtime("python3.9", "python39", "deprecated", "2025-12-15", "2027-02-01", "2027-03-03", "2"),
    Runtime("python3.8", "python38", "deprecated", "2024-10-14", "2027-02-01", "2027-03-03", "2"),
)

#: The oldest runtime cfngen's models and runtime module run on (the oldest row above).
OLDEST_RUNTIME = RUNTIMES[-1]
#: Where to go when leaving an old runtime; also what `cfngen runtime set` suggests.
UPGRADE_HINT = "run `cfngen runtime set {runtime}` to move the project to a supported runtime"
_PYTHON = re.compile(r"python(\d)\.?(\d+)")

DEFAULT_RUNTIME = next(r for r in RUNTIMES if r.status == "supported")


def find_runtime(name: str) -> Runtime | None:
    """A runtime by Lambda id (`python3.12`) or compact name (`python312`), or None.

    The compact name means the Python version it spells: `python312` is python3.12 even though
    python3.13 and python3.14 record the same plugin language.
    """
    for runtime in RUNTIMES:
        if name in (runtime.name, runtime.name.replace(".", "")):
            return runtime
    return None


def get_runtime(name: str) -> Runtime:
    """A runtime by Lambda id (`python3.12`) or plugin language (`python312`)."""
    runtime = find_runtime(name)
    if runtime is None:
        raise CfngenError(
            f"unknown runtime {name!r}", f"use one of {', '.join(r.name for r in RUNTIMES)}"
        )
    return runtime


def python_of(name: str) -> tuple[int, int] | None:
    """The Python version a Lambda runtime id or plugin language names: (3, 7) for python3.7 or
    python37; None for anything else (nodejs22.x, java21)."""
    found = _PYTHON.fullmatch(name)
    return (int(found.group(1)), int(found.group(2))) if found else None


def check_supported_python(name: str, where: str) -> None:
    """Refuse a Python runtime older than the oldest row: models cannot run there.

    `where` names the file that declares it, for the message.
    """
    version = python_of(name)
    if version is not None and version < OLDEST_RUNTIME.version_info:
        raise CfngenError(
            f"{where} declares runtime {name}, older than {OLDEST_RUNTIME.name}: the models "
            "cfngen generates (and cloudformation-cli-python-lib, which they run on) need "
            f"Python {OLDEST_RUNTIME.python_version} or newer, and Lambda no longer accepts new "
            f"{name} functions",
            UPGRADE_HINT.format(runtime=DEFAULT_RUNTIME.name),
        )


def declared_python(runtime: str | None, language: str | None, where: str) -> tuple[int, int]:
    """The oldest Python a project's code must run on, from `.rpdk-config`'s "runtime" (else
    its "language", as the official plugin writes both): (3, 9) for python3.9.

    A runtime that names no Python version cfngen knows (missing, nodejs22.x) means the default
    runtime's, which template.yml then uses. Raises CfngenError for python3.7 and older.
    """
    for name in (runtime, language):
        if name is None:
            continue
        check_supported_python(name, where)
        version = python_of(name)
        if version is not None:
            return version
    return DEFAULT_RUNTIME.version_info


def project_python(project: Declared) -> tuple[int, int]:
    """The Python version a project's code must run on (its Lambda runtime's), from
    `.rpdk-config`; CfngenError for python3.7 and older, whatever the kind."""
    from cfngen._rpdk_config import CONFIG_FILE

    language = project.config.get("language")
    return declared_python(
        project.runtime, language if isinstance(language, str) else None, CONFIG_FILE
    )


def runtime_name(declared: str | None) -> str:
    """The Lambda runtime for generated files: the project's declared one, else the default."""
    return declared or DEFAULT_RUNTIME.name


def runtime_warnings(declared: str | None) -> list[str]:
    """What to tell the user about the runtime `.rpdk-config` declares (None: none)."""
    from cfngen._rpdk_config import CONFIG_FILE

    if declared is None:
        return [
            f'{CONFIG_FILE} has no "runtime"; template.yml uses {DEFAULT_RUNTIME.name} '
            f'(add "runtime": "{DEFAULT_RUNTIME.name}")'
        ]
    runtime = find_runtime(declared)
    known = ", ".join(r.name for r in RUNTIMES)
    if runtime is None or runtime.name != declared:
        return [f'{CONFIG_FILE}: runtime "{declared}" is not one cfngen supports ({known})']
    if runtime.status == "deprecated":
        return [
            f"{CONFIG_FILE}: Lambda deprecated {declared} on {runtime.deprecated_on} and blocks "
            f"new functions from {runtime.create_blocked_on}; "
            + UPGRADE_HINT.format(runtime=DEFAULT_RUNTIME.name)
        ]
    return []
