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

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen import _schema
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
from cfngen._project import CONFIG_FILE, Project, load_project

TEMPLATE_FILE = "template.yml"

#: Makes the Transaction the edits are committed in (tests pass one that fails).
Transactions = Callable[[Path], Transaction]


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


@dataclass
class RuntimeChange:
    runtime: Runtime
    #: Relative path -> unified diff of each file changed (empty: nothing to change).
    diffs: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    #: What regenerate returned (a GenerateResult), or None when nothing changed.
    generated: Any = None


def show_runtime(root: Path, today: str) -> RuntimeReport:
    project = load_project(root)
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
    project = load_project(root)
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
    for path, (old, new) in edits.items():
        relpath = path.relative_to(project.root).as_posix()
        change.diffs[relpath] = "".join(
            difflib.unified_diff(
                old.decode("utf-8").splitlines(keepends=True),
                new.decode("utf-8").splitlines(keepends=True),
                f"a/{relpath}",
                f"b/{relpath}",
            )
        )
    edit = transaction(project.root)
    for path, (_, new) in edits.items():
        edit.write(path.relative_to(project.root).as_posix(), new)
    edit.commit()
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


def _where(project: Project) -> tuple[Path | None, Path]:
    """Where the project's runtime is written: `.rpdk-config` (None for a project without
    one) and the template with its functions."""
    if project.template is not None:
        return None, project.template
    packaging = project.kind.packaging
    if packaging is None or packaging.role_template is None:
        raise CfngenError(
            f"{project.root}: a {project.kind.label} has no handlers, so no Lambda runtime",
            "`cfngen runtime` is for resource types, hooks and custom resources",
        )
    return project.root / CONFIG_FILE, project.root / TEMPLATE_FILE


# --------------------------------------------------------------------------- .rpdk-config


def edit_config(text: str, runtime: Runtime, path: Path) -> str:
    """`.rpdk-config` with "runtime" and "language" set for `runtime`; every other byte kept.

    A missing key is added after the last member, indented like it.
    """
    try:
        doc = _schema.loads(text)
    except _schema.JsonSyntaxError as error:
        raise CfngenError(f"{path}: invalid JSON: {error}", f"fix {CONFIG_FILE}") from None
    if not isinstance(doc.data, dict):
        raise CfngenError(f"{path}: expected a JSON object", f"fix {CONFIG_FILE}")
    wanted = {"runtime": runtime.name, "language": runtime.language}
    out = text
    # Replace from the end of the text backwards, so earlier offsets stay valid.
    spans = []
    missing = []
    for key, value in wanted.items():
        span = doc.scalar_span(_schema.join_pointer("", key))
        if key in doc.data and not isinstance(doc.data[key], str):
            raise CfngenError(f'{path}: "{key}" is not a string', f'write it as "{key}": "{value}"')
        if span is None:
            missing.append(key)
        elif doc.data[key] != value:
            spans.append((span, json.dumps(value)))
    for (start, end), replacement in sorted(spans, reverse=True):
        out = out[:start] + replacement + out[end:]
    if missing:
        out = _append_members(out, [(key, wanted[key]) for key in missing])
    expected = {**doc.data, **wanted}
    if json.loads(out) != expected:  # a bug here must never reach the user's file
        raise CfngenError(f"{path}: cfngen could not edit it safely", f"set {wanted} by hand")
    return out


def _append_members(text: str, members: list[tuple[str, str]]) -> str:
    """Add members at the end of the top-level object, laid out like the ones before them."""
    end = text.rstrip().rfind("}")
    body = text[:end].rstrip()
    between = text[len(body) : end]  # the whitespace before the closing brace, kept
    pairs = [f"{json.dumps(key)}: {json.dumps(value)}" for key, value in members]
    comma = "" if body.endswith("{") else ","
    if "\n" in body:
        newline = "\r\n" if "\r\n" in text else "\n"
        last = body.rsplit("\n", 1)[-1]
        indent = last[: len(last) - len(last.lstrip())] if comma else "    "
        added = ",".join(f"{newline}{indent}{pair}" for pair in pairs)
    else:  # the whole object on one line: stay on it
        added = ("" if body.endswith("{") else " ") + ", ".join(pairs)
    return body + comma + added + between + text[end:]


# --------------------------------------------------------------------------- template.yml


def edit_template(
    text: str, runtime: Runtime, name: str = TEMPLATE_FILE
) -> tuple[str, list[tuple[int, str]]]:
    """The template (`name`, for messages) with every Python `Runtime:` value set to
    `runtime`; every other byte kept.

    Returns the text and the (line, value) of Runtime: values left alone (not Python).
    """
    out = text
    others = []
    for start, end, value in reversed(_yaml_runtimes(text, name)):
        if python_of(value) is None:
            others.append((text.count("\n", 0, start) + 1, value))
            continue
        quote = text[start] if text[start] in "'\"" else ""
        out = out[:start] + quote + runtime.name + quote + out[end:]
    wanted = [v if python_of(v) is None else runtime.name for _, _, v in _yaml_runtimes(text, name)]
    if [v for _, _, v in _yaml_runtimes(out, name)] != wanted:  # never hand a broken file
        raise CfngenError(
            f"{name}: cfngen could not edit it safely",
            f"set every Runtime: to {runtime.name} by hand",
        )
    return out, others[::-1]


def _yaml_runtimes(text: str, name: str) -> list[tuple[int, int, str]]:
    """(start, end, value) of every scalar under a `Runtime` key, in file order.

    PyYAML's composer gives each node's offsets without constructing anything, so
    CloudFormation's short-form tags (`!GetAtt`) need no constructors.
    """
    import yaml

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        raise CfngenError(
            f"{name}: cannot read it as YAML: {error}",
            f"fix {name}"
            + (", or delete it and run `cfngen generate`" if name == TEMPLATE_FILE else ""),
        ) from None
    found: list[tuple[int, int, str]] = []
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if (
                    isinstance(key, yaml.ScalarNode)
                    and key.value == "Runtime"
                    and isinstance(value, yaml.ScalarNode)
                ):
                    found.append((value.start_mark.index, value.end_mark.index, value.value))
                else:
                    stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return sorted(found)


def _read_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise CfngenError(f"{path}: is not UTF-8", "save it as UTF-8") from None
    except OSError as error:
        raise CfngenError(f"{path}: cannot read it: {error.strerror}") from None
