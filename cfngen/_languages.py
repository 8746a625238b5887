"""The language axis: what a project's handlers are written in, beside what kind it is.

The official CLI takes a plugin per language and records it in `.rpdk-config`'s `language`
(`python312`, `typescript`, `java`, `go`). What cfngen does with a schema, a fragment or a
template (validate, compare, the docs of the file formats) has nothing to do with the language;
what it does with handlers (models, running them, packaging them) is written for Python. So a
project of another language is recognised as such: its `.rpdk-config` is read without holding
its entrypoint to Python's form, the language-free commands work and leave the plugin's files
alone, and a command that needs Python handlers stops before it writes anything, saying so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cfngen._errors import CfngenError


@dataclass(frozen=True)
class Language:
    #: As `.rpdk-config` spells it, without a version (`python312` is python).
    name: str
    label: str
    #: cfngen derives models for, runs and packages handlers written in it.
    handlers: bool
    #: The official plugin that makes and builds such projects.
    plugin: str

    def refusal(self) -> CfngenError | None:
        """Why a command that needs Python handlers stops here, or None in a Python project."""
        if self.handlers:
            return None
        return CfngenError(
            f"this is a {self.label} project (made by {self.plugin}): cfngen derives models "
            "for, runs and builds Python handlers only",
            f"use the official `cfn` commands with {self.plugin} for its handlers; "
            "`cfngen validate` (and --against) works here",
        )


PYTHON = Language("python", "Python", True, "cloudformation-cli-python-plugin")
_OFFICIAL = {
    language.name: language
    for language in (
        Language("typescript", "TypeScript", False, "cloudformation-cli-typescript-plugin"),
        Language("java", "Java", False, "cloudformation-cli-java-plugin"),
        Language("go", "Go", False, "cloudformation-cli-go-plugin"),
    )
}


def language_of(config: dict[str, Any]) -> Language:
    """The language `.rpdk-config` records; Python when it records none (cfngen's own
    projects before they named one, custom resources, modules)."""
    value = config.get("language")
    if not isinstance(value, str) or not value or value.lower().startswith("python"):
        return PYTHON
    name = value.lower()
    return _OFFICIAL.get(name) or Language(name, value, False, f"the {value} plugin")
