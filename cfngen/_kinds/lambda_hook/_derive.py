"""`cfngen generate` for a Lambda hook: nothing to derive (the template, the function and the
inputs are the user's)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from cfngen._kind import Derived

if TYPE_CHECKING:
    from cfngen._kind import Project


def may_derive(project: Project, relpath: str) -> bool:
    return False


def generate_inputs(project: Project) -> dict[str, bytes | None]:
    return {}


def derive(project: Project, inputs: Mapping[str, bytes | None]) -> Derived:
    return Derived(files={})


def generate_notes(project: Project, inputs: Mapping[str, bytes | None]) -> list[str]:
    return ["a Lambda hook project has no derived files: nothing to generate"]
