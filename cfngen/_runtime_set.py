"""`cfngen runtime`: a project's Lambda runtime, and moving it to another one.

show_runtime(root, today) -> RuntimeReport
set_runtime(root, name, today, ...) -> RuntimeChange

The user guide's "Updating Lambda runtimes for resource types and hooks" done for the user:
`.rpdk-config` "runtime" and "language" (what the official Python plugin reads) and every
`Runtime:` of a Python function in template.yml, then `cfngen generate` (models are made for
the runtime). A custom resource's runtime is its function's, in the project's template (it has
no `.rpdk-config`); a module has no code and so no runtime. Both files are the user's: only
those values change, every other byte (layout, key order, YAML comments, quoting) stays, which
is why they are edited as text at the spans their parsers report rather than loaded and dumped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._errors import CfngenError
from cfngen._files import Transaction
from cfngen._languages._python import declared_runtime
from cfngen._languages._python_runtimes import (
    DEFAULT_RUNTIME,
    OLDEST_RUNTIME,
    RUNTIMES,
    Runtime,
    find_runtime,
    get_runtime,
    python_of,
)
from cfngen._project import load_project
from cfngen._runtime_edits import (
    TEMPLATE_FILE,
    RuntimeChange,
    Transactions,
    _read_text,
    _where,
    _yaml_runtimes,
    set_members,
    set_runtimes,
    write_edits,
)

if TYPE_CHECKING:
    from cfngen._runtime_languages import LanguageRuntimeReport


@dataclass
class RuntimeReport:
    #: `.rpdk-config`'s "runtime" and "language" (None when missing); for a project without
    #: one, the template's Python runtime when its functions agree on one.
    runtime: str | None
    language: str | None
    #: `.rpdk-config`, or None for a project without one (a custom resource).
    config_file: str | None
    #: The template holding the functions' runtimes (template.yml, or a custom resource's).
    template_file: str
    #: The Runtime: values in the template, in file order (empty: no file or none there).
    template_runtimes: list[str]
    #: The table's row for `runtime`, and where Lambda's end of support stands on `today`.
    row: Runtime | None
    phase: str | None
    #: Every runtime cfngen knows, newest first, with its phase on `today`.
    choices: list[tuple[Runtime, str]]
    #: Handlers in a language cfngen does not run (`.rpdk-config`'s language): its runtime is
    #: not one of cfngen's table, and moving to a Python one is no fix.
    foreign: str | None = None


def show_runtime(root: Path, today: str) -> RuntimeReport | LanguageRuntimeReport:
    project = load_project(root)
    if project.language.runtimes is not None:  # Node, Go, Java: Lambda's table, not Python's
        from cfngen._runtime_languages import show_language_runtime

        return show_language_runtime(project, today)
    config_path, template_path = _where(project)
    language = project.config.get("language")
    template = _read_text(template_path)
    template_runtimes = [
        value for _, _, value in _yaml_runtimes(template or "", template_path.name)
    ]
    declared = declared_runtime(project.config)
    if config_path is None:
        pythons = {value for value in template_runtimes if python_of(value) is not None}
        declared = pythons.pop() if len(pythons) == 1 else None
    row = find_runtime(declared) if declared else None
    return RuntimeReport(
        runtime=declared,
        language=language if isinstance(language, str) else None,
        config_file=config_path.name if config_path is not None else None,
        template_file=template_path.name,
        template_runtimes=template_runtimes,
        row=row if row is not None and row.name == declared else None,
        phase=row.phase(today) if row is not None else None,
        choices=[(r, r.phase(today)) for r in RUNTIMES],
        foreign=None if project.language.handlers else project.language.label,
    )


def set_runtime(
    root: Path,
    name: str,
    today: str,
    *,
    regenerate: Callable[[Path], Any] | None = None,
    transaction: Transactions = Transaction,
) -> RuntimeChange:
    """Move the project to runtime `name` (python3.12 or python312), then `regenerate(root)`
    (default: `cfngen generate`). All or nothing: both files are written in one transaction,
    and if the regeneration fails they are put back as they were (in another) and the error
    is raised."""
    project = load_project(root)
    if project.language.runtimes is not None:  # Node, Go, Java: Lambda's table, not Python's
        from cfngen._runtime_languages import set_language_runtime

        return set_language_runtime(project, name, today, transaction=transaction)
    older = python_of(name)
    if find_runtime(name) is None and older is not None and older < OLDEST_RUNTIME.version_info:
        raise CfngenError(
            f"cfngen cannot move a project to {name}: its models need Python "
            f"{OLDEST_RUNTIME.python_version} or newer, and Lambda no longer creates {name} "
            "functions",
            f"choose a supported runtime, e.g. `cfngen runtime set {DEFAULT_RUNTIME.name}`",
        )
    runtime = get_runtime(name)
    phase = runtime.phase(today)
    if phase in ("create-blocked", "blocked"):
        newest = DEFAULT_RUNTIME.name
        raise CfngenError(
            f"Lambda no longer creates {runtime.name} functions (blocked since "
            f"{runtime.create_blocked_on}), so a resource type on it cannot be registered",
            f"choose a supported runtime, e.g. `cfngen runtime set {newest}`",
        )
    refusal = project.language.refusal()  # a Python runtime for TypeScript handlers breaks them
    if refusal is not None:
        raise refusal
    change = RuntimeChange(runtime=runtime)
    if phase == "deprecated":
        change.warnings.append(
            f"Lambda deprecated {runtime.name} on {runtime.deprecated_on} and blocks new "
            f"functions from {runtime.create_blocked_on}; consider {DEFAULT_RUNTIME.name}"
        )
    config_path, template_path = _where(project)
    edits: dict[Path, tuple[bytes, bytes]] = {}
    config_text = _read_text(config_path) if config_path is not None else None
    if config_path is not None and config_text is not None:
        new_config = edit_config(config_text, runtime, config_path)
        if new_config != config_text:
            edits[config_path] = (config_text.encode("utf-8"), new_config.encode("utf-8"))
    template_text = _read_text(template_path)
    if template_text is not None:
        new_template, others = edit_template(template_text, runtime, template_path.name)
        change.warnings += [
            f"{template_path.name}:{line}: left Runtime: {value} alone (not a Python runtime)"
            for line, value in others
        ]
        if new_template != template_text:
            edits[template_path] = (template_text.encode("utf-8"), new_template.encode("utf-8"))
    if not edits:
        return change
    change.diffs = write_edits(project.root, edits, transaction)
    if regenerate is None:
        from cfngen._generate import generate_project

        regenerate = generate_project
    try:
        change.generated = regenerate(root)
    except BaseException:
        # generate leaves the project as it was when it fails; so must the edit.
        undo = transaction(project.root)
        for path, (old, _) in edits.items():
            undo.write(path.relative_to(project.root).as_posix(), old)
        undo.commit()
        raise
    return change


# --------------------------------------------------------------------------- .rpdk-config


def edit_config(text: str, runtime: Runtime, path: Path) -> str:
    """`.rpdk-config` with "runtime" and "language" set for `runtime`; every other byte kept.

    A missing key is added after the last member, indented like it.
    """
    return set_members(text, {"runtime": runtime.name, "language": runtime.language}, path)


# --------------------------------------------------------------------------- template.yml


def edit_template(
    text: str, runtime: Runtime, name: str = TEMPLATE_FILE
) -> tuple[str, list[tuple[int, str]]]:
    """The template (`name`, for messages) with every Python `Runtime:` value set to
    `runtime`; every other byte kept.

    Returns the text and the (line, value) of Runtime: values left alone (not Python).
    """
    return set_runtimes(text, runtime.name, lambda value: python_of(value) is not None, name)
