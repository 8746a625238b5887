"""From the generator's module to models.py: our docstring and imports, ResourceHandlerRequest,
annotations that survive mypy, every name the official plugin's models.py binds, and black's
formatting."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from cfngen._models._generate import MODERN_PYTHON, RUNTIME_MODULE
from cfngen._models._names import BASE_CLASS, RESOURCE_MODEL, TYPE_CONFIGURATION_MODEL
from cfngen._timeouts import handler_timeouts

HANDLER_REQUEST = "ResourceHandlerRequest"

_DOCSTRING = '''"""Models of TYPE_NAME.

ResourceModel (the properties), TypeConfigurationModel, CallbackContext (the handlers'
progress state, from callback-context.json), ResourceHandlerRequest and TIMEOUT_MINUTES
(each handler's timeoutInMinutes). Every field is None unless CloudFormation sent it:
handlers get partial models. `Model._deserialize()` reads JSON and `model._serialize()`
writes it; a JSON name that is not a Python name is kept in
`field(metadata={'alias': ...})`.
"""
'''
_TIMEOUTS_COMMENT = (
    "#: Minutes CloudFormation gives each handler in all, callbacks included: the schema's",
    "#: timeoutInMinutes, else 120. The steps of cfngen_runtime never wait past them.",
)
#: Above the request's typeConfiguration when the schema declares one: how to read it.
_CONFIGURATION_COMMENT = (
    "    #: The account's SetTypeConfiguration values; None when it never called it, so check:",
    "    #: `configuration = request.typeConfiguration` then `if configuration is not None:`",
)
_ROOT_DOCSTRING = '''"""Models of TYPE_NAME: ROOT and the classes it uses.

Every field is None unless CloudFormation sent it. `Model._deserialize()` reads JSON and
`model._serialize()` writes it; a JSON name that is not a Python name is kept in
`field(metadata={'alias': ...})`.
"""
'''
#: What the official `cfn generate` binds in every models module besides its classes and their
#: `_Name` aliases (cloudformation-cli-python-plugin 2.1.10: templates/models.py, hook_models.py,
#: target_model.py). Handlers written for it may import any of it from `.models`, so ours binds
#: the same names, to the same objects.
_OFFICIAL_TYPING = (
    "AbstractSet",
    "Any",
    "Generic",
    "Mapping",
    "MutableMapping",
    "Optional",
    "Sequence",
    "Type",
    "TypeVar",
)
_OFFICIAL_STDLIB = ("import sys", "from inspect import getmembers, isclass")
OFFICIAL_LIBRARY = (
    "from cloudformation_cli_python_lib.interface import BaseModel",
    "from cloudformation_cli_python_lib.recast import recast_object",
    "from cloudformation_cli_python_lib.utils import deserialize_list",
)
_OFFICIAL_HELPERS = (
    "# The official models.py's helpers, for handlers that import them from here.",
    'T = TypeVar("T")',
    "",
    "",
    "def set_or_none(value: Optional[Sequence[T]]) -> Optional[AbstractSet[T]]:",
    "    return set(value) if value else None",
)
_OFFICIAL_DOCSTRING = """
It also binds every name the official `cfn generate` writes in its models.py: each
class under the plugin's name and as `_Name`, and its helpers, for handlers written for it.
"""
_IMPORT = re.compile(r"(?:from \S+ )?import .+")
_DATACLASS_NAME = re.compile(r"\bdataclass(?: as (\w+))?")
_TYPING_OPTIONAL = re.compile(r"^from typing import .*\bOptional(?: as (\w+))?\b", re.MULTILINE)


def assemble(
    raw: str,
    schema: dict[str, Any],
    *,
    root: str | None = None,
    python: tuple[int, int] = MODERN_PYTHON,
    official: Mapping[str, str] | None = None,
) -> str:
    """The generator's module with our docstring, sorted imports and ResourceHandlerRequest
    (with `root`: the module of that one model, without a request class or timeouts), and the
    names the official plugin's module binds: `_Name` for every class, the class under the
    official plugin's name where ours differs (`official`: its name -> ours), its helpers.

    For a `python` older than 3.10, type aliases lose their `TypeAlias` annotation (typing has
    it from 3.10 on; a plain assignment is an alias to type checkers too).
    """
    if python < MODERN_PYTHON:
        raw = _plain_aliases(raw)
    raw, hidden = unshadow(raw)
    raw = _wide_classes(raw)
    lines = raw.splitlines()
    start = 0
    while start < len(lines) and (lines[start].startswith("#") or not lines[start].strip()):
        start += 1
    end = start
    while end < len(lines) and _IMPORT.fullmatch(lines[end]):
        end += 1
    imports = lines[start:end]
    body = "\n".join(lines[end:]).strip("\n")

    stdlib: list[str] = list(_OFFICIAL_STDLIB) if official is not None else []
    dataclass_name = "dataclass"
    optional = "Optional"
    if official is not None or python < MODERN_PYTHON:
        imports, optional = _with_typing(imports, official=official is not None)
    request_field = f"{optional}[{{}}]" if python < MODERN_PYTHON else "{} | None"
    for line in imports:
        if line == "from __future__ import annotations" or line.startswith(
            f"from {RUNTIME_MODULE} import"
        ):
            continue
        if line.startswith("from dataclasses import"):
            found = _DATACLASS_NAME.search(line)
            if found:
                dataclass_name = found.group(1) or "dataclass"
            else:
                stdlib.append("from dataclasses import dataclass")
        stdlib.append(line)
    if not any(line.startswith("from dataclasses import") for line in stdlib):
        stdlib.append("from dataclasses import dataclass")

    type_name = str(schema.get("typeName", "a resource type"))
    if root is not None:
        docstring = _ROOT_DOCSTRING.replace("TYPE_NAME", type_name).replace("ROOT", root)
        runtime_names = BASE_CLASS
        request: list[str] = []
    else:
        docstring = _DOCSTRING.replace("TYPE_NAME", type_name)
        runtime_names = f"BaseResourceHandlerRequest, {BASE_CLASS}"
        request = [
            "",
            "",
            f"@{dataclass_name}",
            f"class {HANDLER_REQUEST}(BaseResourceHandlerRequest):",
            f"    desiredResourceState: {request_field.format(RESOURCE_MODEL)}",
            f"    previousResourceState: {request_field.format(RESOURCE_MODEL)}",
            *(_CONFIGURATION_COMMENT if isinstance(schema.get("typeConfiguration"), dict) else ()),
            f"    typeConfiguration: {request_field.format(TYPE_CONFIGURATION_MODEL)}",
            "",
            "",
            *_TIMEOUTS_COMMENT,
            # A module-level annotation is never evaluated (future annotations): fine on 3.8.
            f"TIMEOUT_MINUTES: dict[str, int] = {json.dumps(handler_timeouts(schema))}",
        ]
    if official is not None:
        docstring = docstring.removesuffix('"""\n') + _OFFICIAL_DOCSTRING + '"""\n'
    module = "\n".join(
        [
            docstring,
            "from __future__ import annotations",
            "",
            *sorted(stdlib, key=lambda line: (line.startswith("from "), line)),  # as isort
            "",
            *([*OFFICIAL_LIBRARY, ""] if official is not None else []),
            f"from .{RUNTIME_MODULE} import {runtime_names}",
            # black keeps one blank line before a statement and makes it two before a class;
            # ruff keeps what it gets: given this, both write the same bytes.
            *([""] if body.startswith("@") else []),
            "",
            body,
            *request,
            *(["", "", *_OFFICIAL_HELPERS] if official is not None else []),
        ]
    )
    aliases = _aliases(module, hidden, official)
    return "\n".join([module, *(["", "", *aliases] if aliases else []), ""])


def _aliases(module: str, hidden: list[str], official: Mapping[str, str] | None) -> list[str]:
    """`_Name` for each name a field hides (our annotations use them). With `official` (the
    official plugin's class names -> ours): `_Name = Name` for every class too (its models.py
    has one for each), then each of its names the module does not define, as what ours is
    called (`Tag_spec = TagSpec`), and `_Name` for each. Never over a name the module binds
    otherwise (an import, a helper)."""
    import ast

    if official is None:
        if not hidden:
            return []
        return [
            "# A field hides the type of its name in its class: later fields use these.",
            *(f"_{name} = {name}" for name in hidden),
        ]

    classes: list[str] = []
    defined: set[str] = set()  # classes and type aliases
    bound: set[str] = set()
    for node in ast.parse(module).body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            bound.add(node.name)
            if isinstance(node, ast.ClassDef) and node.name != HANDLER_REQUEST:
                classes.append(node.name)
                defined.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            bound.update(names)
            defined.update(names - {"T", "TIMEOUT_MINUTES"})
    lines: list[str] = []

    def alias(name: str, target: str) -> None:
        if name not in bound:
            bound.add(name)
            lines.append(f"{name} = {target}")

    for name in [*classes, *(h for h in hidden if h not in classes)]:
        alias(f"_{name}", name)
    for name, ours in official.items():
        if name in defined:  # ours by that name (a union of the branches the plugin merges)
            alias(f"_{name}", name)
        elif ours in defined:
            alias(name, ours)
            alias(f"_{name}", ours)
    return [
        "# Every class as `_Name` too, and under the official plugin's name where it differs:",
        "# its models.py binds both, and handlers import them (`from .models import _Memo`).",
        "# (A field hides the type of its name in its class: annotations use `_Name`.)",
        *lines,
    ]


def _plain_aliases(raw: str) -> str:
    """`Name: TypeAlias = X` -> `Name = X`, and no TypeAlias import."""
    import ast

    tree = ast.parse(raw)
    lines = raw.splitlines()
    for node in tree.body:
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.annotation, ast.Name)
            and node.annotation.id == "TypeAlias"
            and node.lineno == node.annotation.end_lineno
        ):
            assert node.annotation.end_col_offset is not None
            line = lines[node.lineno - 1].encode("utf-8")  # ast offsets count UTF-8 bytes
            end = node.target.end_col_offset
            lines[node.lineno - 1] = (
                line[:end] + b" =" + line[node.annotation.end_col_offset :].split(b"=", 1)[1]
            ).decode("utf-8")
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module == "typing"
            and node.lineno == node.end_lineno
        ):
            kept = [a for a in node.names if a.name != "TypeAlias"]
            if len(kept) != len(node.names):
                lines[node.lineno - 1] = "from typing import " + ", ".join(
                    a.name if a.asname is None else f"{a.name} as {a.asname}" for a in kept
                )
    return "\n".join(lines)


def _with_typing(imports: list[str], *, official: bool) -> tuple[list[str], str]:
    """The imports with typing's Optional among them (and with `official`, every typing name
    the official models.py imports), and the name Optional is bound to."""
    found = _TYPING_OPTIONAL.search("\n".join(imports))
    wanted = set(_OFFICIAL_TYPING if official else () if found else ("Optional",))
    optional = (found.group(1) or "Optional") if found else "Optional"
    typing_line = next((line for line in imports if line.startswith("from typing import ")), None)
    have = typing_line.removeprefix("from typing import ").split(", ") if typing_line else []
    if wanted <= set(have):
        return imports, optional
    line = "from typing import " + ", ".join(sorted({*have, *wanted}))
    if typing_line is None:
        return [*imports, line], optional
    return [line if old is typing_line else old for old in imports], optional


#: Fields beyond which a class leaves __init__ and __repr__ to CfnModel (see
#: cfngen_runtime/serialisation.py: dataclasses builds them in quadratic time). Real schemas
#: have at most a few hundred.
WIDE_CLASS = 500


def _wide_classes(raw: str) -> str:
    """`@dataclass(init=False, repr=False)` on the classes with more than WIDE_CLASS fields."""
    import ast

    lines = raw.splitlines()
    for node in ast.parse(raw).body:
        fields = sum(isinstance(s, ast.AnnAssign) for s in getattr(node, "body", ()))
        if not isinstance(node, ast.ClassDef) or fields <= WIDE_CLASS:
            continue
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Name) and "dataclass" in decorator.id:
                line = decorator.lineno - 1
                lines[line] = lines[line].rstrip() + "(init=False, repr=False)"
    return "\n".join(lines)


def unshadow(raw: str) -> tuple[str, list[str]]:
    """Refer to a type as `_Name` in the annotations of a class that has a field `Name`.

    In the class body the field hides the type, and mypy rejects every later annotation that
    uses it ("Variable ... is not valid as a type"; the field's own annotation is fine). Returns
    the module and the hidden names.
    """
    import ast

    tree = ast.parse(raw)
    module_names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            module_names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            module_names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            module_names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    edits: dict[int, list[tuple[int, int, str]]] = {}
    hidden: set[str] = set()
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        shadowing: set[str] = set()  # fields defined so far that are also module names
        for statement in cls.body:
            if not isinstance(statement, ast.AnnAssign):
                continue
            for name in ast.walk(statement.annotation) if shadowing else ():
                if isinstance(name, ast.Name) and name.id in shadowing:
                    assert name.end_col_offset is not None
                    edits.setdefault(name.lineno, []).append(
                        (name.col_offset, name.end_col_offset, f"_{name.id}")
                    )
                    hidden.add(name.id)
            if isinstance(statement.target, ast.Name) and statement.target.id in module_names:
                shadowing.add(statement.target.id)
    if not edits:
        return raw, []
    lines = raw.splitlines()
    for lineno, changes in edits.items():
        line = lines[lineno - 1].encode("utf-8")  # ast offsets count UTF-8 bytes
        for start, end, text in sorted(changes, reverse=True):
            line = line[:start] + text.encode("utf-8") + line[end:]
        lines[lineno - 1] = line.decode("utf-8")
    return "\n".join(lines), sorted(hidden)
