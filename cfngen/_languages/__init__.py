"""The language axis: what a project's handlers are written in, beside what kind it is.

The official CLI takes a plugin per language and records it in `.rpdk-config`'s `language`
(`python312`, `typescript`, `java`, `go`). What cfngen does with a schema, a fragment or a
template (validate, compare, the docs of the file formats) has nothing to do with the language.
What it does with handlers depends on it, and a `Language` says what:

- Python: cfngen derives models for its handlers, imports them into its own process to run
  them, and packages them (`handlers`);
- TypeScript: cfngen runs the handler the plugin built (`dist/handlers.js`) in a runtime of
  its own, out of process (`runtime`: a `node` child speaking the Lambda Runtime API,
  cfngen/_contract/_runtime_api.py); the build stays the user's (`npm run build`), and
  cfngen says so when the built file is missing or older than the sources;
- Go: the same, with the `bootstrap` the plugin's Makefile builds (`make`): it speaks the
  Runtime API itself (cfngen/_languages/_go.py);
- Java: the same, with the jar `mvn package` builds, run by AWS's Lambda runtime client for
  Java (cfngen/_languages/_java.py).

The language-free commands work in every one of them and leave the plugin's files alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._errors import CfngenError
from cfngen._languages import _lambda_runtimes as _lambda
from cfngen._languages._lambda_runtimes import Family
from cfngen._languages._runtime import Built, Launch, OutOfProcess

if TYPE_CHECKING:
    from cfngen._languages._python import Located, PythonLayout

__all__ = [
    "GO",
    "JAVA",
    "PYTHON",
    "TYPESCRIPT",
    "Built",
    "Language",
    "Launch",
    "OutOfProcess",
    "language_of",
]


@dataclass(frozen=True)
class Language:
    #: As `.rpdk-config` spells it, without a version (`python312` is python).
    name: str
    label: str
    #: Python handlers: cfngen derives models for, imports, runs and packages them.
    handlers: bool
    #: The official plugin that makes and builds such projects.
    plugin: str
    #: How cfngen runs its built handlers out of process; None: it does not (or, for Python,
    #: runs them in its own process).
    runtime: OutOfProcess | None = None
    #: The Lambda runtimes its handlers run on, with Lambda's dates (`cfngen runtime`); None
    #: for Python, whose table is cfngen/_languages/_python_runtimes.py.
    runtimes: Family | None = None
    #: Finds its built handlers newer than their sources (`cfngen build`, and the runtime
    #: before it starts them); None: cfngen builds them (Python) or knows no rule.
    built: Callable[[Path, dict[str, Any]], Built] | None = None

    @property
    def runs_handlers(self) -> bool:
        """Whether `cfngen test` and `cfngen invoke` run this language's handlers."""
        return self.handlers or self.runtime is not None

    def refusal(self) -> CfngenError | None:
        """Why a command that needs Python handlers (models, packaging) stops here, or None in
        a Python project."""
        if self.handlers:
            return None
        runs = " (`cfngen test` and `cfngen invoke` run them)" if self.runtime else ""
        return CfngenError(
            f"this is a {self.label} project (made by {self.plugin}): cfngen derives models "
            f"for and builds Python handlers only{runs}",
            f"use the official `cfn` commands with {self.plugin} for its handlers; "
            "`cfngen validate` (and --against) works here",
        )

    def run_refusal(self) -> CfngenError | None:
        """Why `cfngen test` / `invoke` cannot run this language's handlers, or None."""
        if self.runs_handlers:
            return None
        return CfngenError(
            f"this is a {self.label} project (made by {self.plugin}): cfngen runs Python, "
            "TypeScript, Go and Java handlers only",
            f"use the official `cfn test` with {self.plugin} for its handlers "
            "(docs/languages.md says what works per language); `cfngen validate` works here",
        )

    def layout(self, project: Located) -> PythonLayout:
        """Where the project's Python handlers are (its package, entrypoints and runtime:
        cfngen/_languages/_python.py); the refusal in a project of another language, whose
        handlers cfngen derives models for and packages not."""
        refusal = self.refusal()
        if refusal is not None:
            raise refusal
        from cfngen._languages._python import PythonLayout

        return PythonLayout(project)

    def handler_problem(self, project: Located) -> CfngenError | None:
        """Why cfngen cannot import the project's handlers into its own process (the
        refusal, or a broken entrypoint), or None."""
        try:
            layout = self.layout(project)
        except CfngenError as refusal:
            return refusal
        return layout.entrypoint_problem()

    def launch(self, root: Path, config: dict[str, Any]) -> Launch:
        """How to start the runtime of the built handlers of the project in `root` (a
        CfngenError saying which build command to run when the built file is missing or older
        than its sources)."""
        if self.runtime is None:
            raise self.run_refusal() or CfngenError(f"{self.label} handlers run in-process")
        return self.runtime.launch(root, config)


PYTHON = Language("python", "Python", True, "cloudformation-cli-python-plugin")


def _typescript() -> OutOfProcess:
    from cfngen._languages._typescript import TYPESCRIPT_RUNTIME

    return TYPESCRIPT_RUNTIME


def _go() -> OutOfProcess:
    from cfngen._languages._go import GO_RUNTIME

    return GO_RUNTIME


def _typescript_built(root: Path, config: dict[str, Any]) -> Built:
    from cfngen._languages._typescript import check_built

    return check_built(root, config)


def _go_built(root: Path, config: dict[str, Any]) -> Built:
    from cfngen._languages._go import check_built

    return check_built(root, config)


def _java_built(root: Path, config: dict[str, Any]) -> Built:
    from cfngen._languages._java_build import check_built

    return check_built(root, config)


def _java() -> OutOfProcess:
    from cfngen._languages._java import JAVA_RUNTIME

    return JAVA_RUNTIME


TYPESCRIPT = Language(
    "typescript",
    "TypeScript",
    False,
    "cloudformation-cli-typescript-plugin",
    _typescript(),
    _lambda.NODE,
    _typescript_built,
)
GO = Language("go", "Go", False, "cloudformation-cli-go-plugin", _go(), _lambda.GO, _go_built)
JAVA = Language(
    "java", "Java", False, "cloudformation-cli-java-plugin", _java(), _lambda.JAVA, _java_built
)
_OFFICIAL = {
    language.name: language
    for language in (
        TYPESCRIPT,
        GO,
        JAVA,
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
