"""The Python runtimes a project can target: one table drives the wizard, template.yml, docs
and tests. A runtime is a row, not a class.

Sources (checked 2026-11-21, see `AS_OF`): the AWS Lambda runtimes page
(https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtimes.html) and the copy of its dates
that cfn-lint 1.58.0 ships (`cfnlint/data/AdditionalSpecs/LmbdRuntimeLifecycle.json`).
python3.9 and older are left out: Lambda deprecated them (python3.9 on 2025-12-15) and cfngen's
generated models need Python >= 3.10.

`language` is what `.rpdk-config` must say for the official toolchain: its Python plugin
(cloudformation-cli-python-plugin 2.1.10) only registers python38..python312 and crashes on any
other name, but it never reads `runtime` beyond copying it into the package it submits. So a
python3.13 or python3.14 project records `"language": "python312"` and its real Lambda runtime in
`"runtime"`; `cfn validate`, `cfn generate` and `cfn submit --dry-run` then work unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from cfngen._errors import CfngenError

#: The day the statuses below were last checked against Lambda's dates.
AS_OF = "2026-11-21"


@dataclass(frozen=True)
class Runtime:
    #: Lambda's runtime identifier, as in template.yml and `.rpdk-config` "runtime".
    name: str
    #: The official Python plugin's language name for `.rpdk-config` "language".
    language: str
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


# Newest first: the first supported row is the default for new projects.
RUNTIMES: tuple[Runtime, ...] = (
    Runtime("python3.14", "python312", "supported", "2029-06-30", "2029-07-31", "2029-08-31"),
    Runtime("python3.13", "python312", "supported", "2029-06-30", "2029-07-31", "2029-08-31"),
    Runtime("python3.12", "python312", "supported", "2028-10-31", "2028-11-30", "2029-01-10"),
    Runtime("python3.11", "python311", "supported", "2027-06-30", "2027-07-31", "2027-08-31", "2"),
    # Deprecated by Lambda on 2026-10-31; existing projects still build until the blocks.
    Runtime("python3.10", "python310", "deprecated", "2026-10-31", "2027-02-01", "2027-03-03", "2"),
)

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


def runtime_name(declared: str | None) -> str:
    """The Lambda runtime for generated files: the project's declared one, else the default."""
    return declared or DEFAULT_RUNTIME.name


def runtime_warnings(declared: str | None) -> list[str]:
    """What to tell the user about the runtime `.rpdk-config` declares (None: none)."""
    from cfngen._project import CONFIG_FILE

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
            f"new functions from {runtime.create_blocked_on}; move to {DEFAULT_RUNTIME.name}"
        ]
    return []
