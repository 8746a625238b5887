"""The Python runtimes a project can target: one table drives the wizard, template.yml, docs
and tests. A runtime is a row, not a class.

STUB values (issue 3 checks them against Lambda and cloudformation-cli-python-lib).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from cfngen._errors import CfngenError


@dataclass(frozen=True)
class Runtime:
    #: Lambda's runtime identifier, as in template.yml and `.rpdk-config` "runtime".
    name: str
    #: The official Python plugin's language name for `.rpdk-config` "language".
    language: str
    python_version: str
    status: Literal["supported", "deprecated"]


RUNTIMES: tuple[Runtime, ...] = (
    Runtime("python3.12", "python312", "3.12", "supported"),
    Runtime("python3.11", "python311", "3.11", "supported"),
    Runtime("python3.10", "python310", "3.10", "supported"),
)

DEFAULT_RUNTIME = next(r for r in RUNTIMES if r.status == "supported")


def get_runtime(name: str) -> Runtime:
    """A runtime by Lambda id (`python3.12`) or plugin language (`python312`)."""
    for runtime in RUNTIMES:
        if name in (runtime.name, runtime.language):
            return runtime
    raise CfngenError(
        f"unknown runtime {name!r}", f"use one of {', '.join(r.name for r in RUNTIMES)}"
    )
