"""Python's layout of a project: where its handlers are, as the official Python plugin lays
them out (`src/<package>/handlers.py`) and `.rpdk-config` names them (dotted entrypoints), and
the Lambda runtime it records.

`cfngen._kind.Project` is language-neutral (a folder, its `.rpdk-config`, its kind); what is
Python's is read here, through `project.language.layout(project)`, so a command that needs
Python handlers in a TypeScript, Java or Go project stops with the language's refusal instead
of reading a package that is not there. The Python runtimes table is
cfngen/_languages/_python_runtimes.py, the entrypoint check cfngen/_languages/_python_handler.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from cfngen._errors import CfngenError
from cfngen._typename import TypeName

if TYPE_CHECKING:
    from cfngen._languages import Language


class Located(Protocol):
    """What the layout reads of a project (cfngen._kind.Project has it)."""

    @property
    def root(self) -> Path: ...
    @property
    def config(self) -> dict[str, Any]: ...
    @property
    def type_name(self) -> TypeName: ...
    @property
    def language(self) -> Language: ...


def declared_runtime(config: dict[str, Any]) -> str | None:
    """`.rpdk-config`'s runtime (`python3.12`), as the official plugins record it."""
    value = config.get("runtime")
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class PythonLayout:
    project: Located

    @property
    def root(self) -> Path:
        return self.project.root

    @property
    def config(self) -> dict[str, Any]:
        return self.project.config

    @property
    def language(self) -> Language:
        return self.project.language

    @property
    def runtime(self) -> str | None:
        """The Lambda runtime id (`python3.12`), as the official Python plugin records it."""
        return declared_runtime(self.config)

    @property
    def entrypoint(self) -> str:
        """The Lambda handler, `pkg.handlers.resource`: `.rpdk-config`'s, so a renamed package
        keeps working, else the official default for the type name."""
        value = self.config.get("entrypoint")
        if isinstance(value, str) and value:
            return value
        return f"{self.project.type_name.package_name}.handlers.resource"

    @property
    def test_entrypoint(self) -> str:
        value = self.config.get("testEntrypoint")
        if isinstance(value, str) and value:
            return value
        return self.handlers_module + ".test_entrypoint"

    @property
    def handlers_module(self) -> str:
        """`pkg.handlers`: the module the entrypoint lives in."""
        return self.entrypoint.rpartition(".")[0]

    @property
    def handlers_path(self) -> Path:
        """The file of handlers_module: `src/pkg/handlers.py`."""
        return self.src_dir.joinpath(*self.handlers_module.split(".")).with_suffix(".py")

    @property
    def package_name(self) -> str:
        return self.entrypoint.split(".")[0]

    @property
    def src_dir(self) -> Path:
        return self.root / "src"

    @property
    def package_dir(self) -> Path:
        return self.src_dir / self.package_name

    def entrypoint_problem(self) -> CfngenError | None:
        """Why the handlers `.rpdk-config` names cannot be imported from src/, or None (see
        cfngen/_languages/_python_handler.py)."""
        from cfngen._languages._python_handler import entrypoint_problem

        return entrypoint_problem(self)
