"""The edits `cfngen runtime set` makes, whatever the language: `.rpdk-config`'s members and a
template's `Runtime:` values changed in place (every other byte kept), written in one
transaction. Shared by Python's move (cfngen/_runtime_set.py) and the other languages'
(cfngen/_runtime_languages.py)."""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen import _schema
from cfngen._errors import CfngenError
from cfngen._files import Transaction
from cfngen._languages._python_runtimes import Runtime
from cfngen._project import CONFIG_FILE, Project

if TYPE_CHECKING:
    from cfngen._languages._lambda_runtimes import LambdaRuntime

TEMPLATE_FILE = "template.yml"


#: Makes the Transaction the edits are committed in (tests pass one that fails).
Transactions = Callable[[Path], Transaction]


@dataclass
class RuntimeChange:
    runtime: Runtime | LambdaRuntime
    #: Relative path -> unified diff of each file changed (empty: nothing to change).
    diffs: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    #: What regenerate returned (a GenerateResult), or None when nothing changed.
    generated: Any = None
    #: What the move did not do and why (another language: no models, no requirements).
    notes: list[str] = field(default_factory=list)


def write_edits(
    root: Path, edits: dict[Path, tuple[bytes, bytes]], transaction: Transactions
) -> dict[str, str]:
    """Write each file's (old, new) bytes in one transaction; the unified diff of each."""
    diffs = {}
    for path, (old, new) in edits.items():
        relpath = path.relative_to(root).as_posix()
        diffs[relpath] = "".join(
            difflib.unified_diff(
                old.decode("utf-8").splitlines(keepends=True),
                new.decode("utf-8").splitlines(keepends=True),
                f"a/{relpath}",
                f"b/{relpath}",
            )
        )
    edit = transaction(root)
    for path, (_, new) in edits.items():
        edit.write(path.relative_to(root).as_posix(), new)
    edit.commit()
    return diffs


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


def set_members(text: str, wanted: dict[str, str], path: Path) -> str:
    """`.rpdk-config` with the string members `wanted` set; every other byte kept."""
    try:
        doc = _schema.loads(text)
    except _schema.JsonSyntaxError as error:
        raise CfngenError(f"{path}: invalid JSON: {error}", f"fix {CONFIG_FILE}") from None
    if not isinstance(doc.data, dict):
        raise CfngenError(f"{path}: expected a JSON object", f"fix {CONFIG_FILE}")
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


def set_runtimes(
    text: str, target: str, belongs: Callable[[str], bool], name: str = TEMPLATE_FILE
) -> tuple[str, list[tuple[int, str]]]:
    """The template with every `Runtime:` value that `belongs` (the project's language's) set
    to `target`; every other byte kept. Also the (line, value) of those left alone."""
    out = text
    others = []
    for start, end, value in reversed(_yaml_runtimes(text, name)):
        if not belongs(value):
            others.append((text.count("\n", 0, start) + 1, value))
            continue
        quote = text[start] if text[start] in "'\"" else ""
        out = out[:start] + quote + target + quote + out[end:]
    wanted = [target if belongs(v) else v for _, _, v in _yaml_runtimes(text, name)]
    if [v for _, _, v in _yaml_runtimes(out, name)] != wanted:  # never hand a broken file
        raise CfngenError(
            f"{name}: cfngen could not edit it safely",
            f"set every Runtime: to {target} by hand",
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
