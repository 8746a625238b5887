"""Packaging and registration (`cfngen build`, `cfngen submit`): the engine.

The package is the official `cfn submit --dry-run`'s file set for the project's kind (declared
in _layout), with a handler zip whose dependencies are cross-installed for the Lambda runtime
(_deps), cached on their inputs (_cache) and checked against the size limits (_limits).
"""

from __future__ import annotations

from cfngen._kind import FileSet
from cfngen._package._aws import Clients, Clock, make_clients
from cfngen._package._build import BuildResult, build_package
from cfngen._package._messages import build_json, render_build
from cfngen._package._submit import (
    SubmitOptions,
    SubmitResult,
    prepare_configuration,
    submit_package,
)

__all__ = [
    "BuildResult",
    "Clients",
    "Clock",
    "FileSet",
    "SubmitOptions",
    "SubmitResult",
    "build_json",
    "build_package",
    "make_clients",
    "prepare_configuration",
    "render_build",
    "submit_package",
]
