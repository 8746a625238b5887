"""`cfngen runtime` in the projects of the TypeScript, Go and Java plugins.

show_language_runtime(project, today) -> LanguageRuntimeReport
set_language_runtime(project, name, today, transaction=...) -> RuntimeChange

The user guide's runtime upgrades for those languages are two edits by hand: `.rpdk-config`'s
"runtime" and every `Runtime:` of the language's functions in template.yml (the plugins' SAM
template has two: TypeFunction and TestEntrypoint). cfngen makes both in one transaction, every
other byte kept (the span edits of cfngen/_runtime_set.py), and nothing else: "language" is the
plugin's name, not a runtime; there are no models or requirements to move with it, and the
build of the handlers stays the project's own. Lambda's dates are cfn-lint's table
(cfngen/_languages/_lambda_runtimes.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cfngen._errors import CfngenError
from cfngen._kind import Project
from cfngen._languages._lambda_runtimes import Family, LambdaRuntime, Phase
from cfngen._languages._python import declared_runtime
from cfngen._languages._runtime import NotBuilt
from cfngen._runtime_edits import (
    RuntimeChange,
    Transactions,
    _read_text,
    _where,
    _yaml_runtimes,
    set_members,
    set_runtimes,
    write_edits,
)


@dataclass
class LanguageRuntimeReport:
    #: The handlers' language ("TypeScript") and `.rpdk-config`'s "runtime" (None: missing).
    language: str
    runtime: str | None
    config_file: str
    template_file: str
    #: The Runtime: values in the template, in file order.
    template_runtimes: list[str]
    #: Lambda's row for `runtime` (None: not one of the language's), and its phase today.
    row: LambdaRuntime | None
    phase: Phase | None
    #: The newest runtime of the language Lambda supports today (None: none).
    newest: LambdaRuntime | None
    #: The language's runtimes, newest first, with their phase today.
    choices: list[tuple[LambdaRuntime, Phase]]
    #: What to tell the user: a deprecated, blocked or soon deprecated runtime, a missing or
    #: foreign one, a template that disagrees with `.rpdk-config`.
    warnings: list[str] = field(default_factory=list)


def _family(project: Project) -> Family:
    family = project.language.runtimes
    assert family is not None, "only for languages with a runtime family"
    return family


def show_language_runtime(project: Project, today: str) -> LanguageRuntimeReport:
    family = _family(project)
    config_path, template_path = _where(project)
    assert config_path is not None  # plugins' projects have `.rpdk-config`
    declared = declared_runtime(project.config)
    template = _read_text(template_path)
    template_runtimes = [v for _, _, v in _yaml_runtimes(template or "", template_path.name)]
    row = family.find(declared) if declared else None
    phase = row.phase(today) if row is not None else None
    newest = family.newest(today)
    report = LanguageRuntimeReport(
        language=project.language.label,
        runtime=declared,
        config_file=config_path.name,
        template_file=template_path.name,
        template_runtimes=template_runtimes,
        row=row,
        phase=phase,
        newest=newest,
        choices=[(r, r.phase(today)) for r in family.rows()],
    )
    move = f"; move with `cfngen runtime set {newest.name}`" if newest is not None else ""
    label = project.language.label
    if declared is None:
        report.warnings.append(f'{config_path.name} has no "runtime"{move}')
    elif row is None:
        report.warnings.append(
            f"{declared} is not a Lambda runtime for {label} handlers (cfn-lint's table of "
            f"Lambda's runtimes has no {declared} of that language){move}"
        )
    elif phase == "deprecated":
        report.warnings.append(
            f"Lambda deprecated {declared} on {row.deprecated_on}; no new functions from "
            f"{row.create_blocked_on}{move}"
        )
    elif phase == "create-blocked":
        report.warnings.append(
            f"Lambda no longer creates {declared} functions (since {row.create_blocked_on}), so "
            f"the type cannot be registered on it; no updates from {row.update_blocked_on}{move}"
        )
    elif phase == "blocked":
        report.warnings.append(
            f"Lambda blocks updates of {declared} functions since {row.update_blocked_on}{move}"
        )
    elif row.near_deprecation(today):
        report.warnings.append(f"Lambda deprecates {declared} on {row.deprecated_on}{move}")
    others = sorted({v for v in template_runtimes if family.holds(v) and v != declared})
    if declared is not None and others:
        report.warnings.append(
            f"{template_path.name} runs {', '.join(others)} where {config_path.name} says "
            f"{declared}; `cfngen runtime set {declared}` sets both"
        )
    return report


def set_language_runtime(
    project: Project, name: str, today: str, *, transaction: Transactions
) -> RuntimeChange:
    """Set `.rpdk-config`'s "runtime" and the template's Runtime: of the language's functions
    to `name`, all or nothing."""
    family = _family(project)
    label = project.language.label
    row = family.find(name)
    if row is None:
        usable = [r.name for r in family.rows() if r.phase(today) in ("supported", "deprecated")]
        raise CfngenError(
            f"{name} is not a Lambda runtime for {label} handlers",
            f"use one of {', '.join(usable)}",
        )
    phase = row.phase(today)
    newest = family.newest(today)
    if phase in ("create-blocked", "blocked"):
        raise CfngenError(
            f"Lambda no longer creates {name} functions (blocked since {row.create_blocked_on}), "
            "so a resource type on it cannot be registered",
            f"choose a supported runtime, e.g. `cfngen runtime set {newest.name}`"
            if newest is not None
            else None,
        )
    change = RuntimeChange(runtime=row)
    if phase == "deprecated":
        change.warnings.append(
            f"Lambda deprecated {name} on {row.deprecated_on} and blocks new functions from "
            f"{row.create_blocked_on}" + (f"; consider {newest.name}" if newest is not None else "")
        )
    config_path, template_path = _where(project)
    assert config_path is not None
    edits: dict[Path, tuple[bytes, bytes]] = {}
    config_text = _read_text(config_path)
    if config_text is None:
        raise CfngenError(f"{config_path}: missing", "run cfngen in the project folder")
    new_config = set_members(config_text, {"runtime": name}, config_path)
    if new_config != config_text:
        edits[config_path] = (config_text.encode("utf-8"), new_config.encode("utf-8"))
    template_text = _read_text(template_path)
    before = [v for _, _, v in _yaml_runtimes(template_text or "", template_path.name)]
    if template_text is not None:
        new_template, others = set_runtimes(template_text, name, family.holds, template_path.name)
        change.warnings += [
            f"{template_path.name}:{line}: left Runtime: {value} alone (not a {label} runtime)"
            for line, value in others
        ]
        if new_template != template_text:
            edits[template_path] = (template_text.encode("utf-8"), new_template.encode("utf-8"))
    else:
        change.warnings.append(f"{template_path.name} is missing: only {config_path.name} set")
    if not edits:
        return change
    change.diffs = write_edits(project.root, edits, transaction)
    old = {declared_runtime(project.config) or "", *(v for v in before if family.holds(v))} - {""}
    for was in sorted(old):
        change.notes += family.notes_for(was, name)
    build = _build_command(project)
    change.notes.append(
        f'"language" stays "{project.config.get("language")}" (the plugin\'s name); no models, '
        "requirements or pyproject to move (those are Python's); rebuild the handlers for "
        f"{name}{f': {build}' if build else ''}"
    )
    return change


def _build_command(project: Project) -> str | None:
    """The build command the language's rule names (it names it as well when not built)."""
    check = project.language.built
    if check is None:
        return None
    try:
        return check(project.root, project.config).command
    except NotBuilt as error:
        return error.command
    except CfngenError:
        return None
