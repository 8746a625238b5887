"""What Lambda needs to import a project's handler, checked before cfngen writes, runs or ships
anything: a Python runtime that Lambda and cfngen's models still run on, and the package, module
and attribute `.rpdk-config`'s entrypoint names, spelled exactly as the files are.

One check for every kind whose handler `.rpdk-config` names (resource types, hooks): `generate`
refuses before it writes models into a package that does not exist (a wrong-case entrypoint
made a second package beside the real one), `build` before it ships a package Lambda cannot
import, `invoke` and `test` before they import something that is not the project
(`Project.entrypoint_problem`). Lambda runs on Linux, whose file system tells `Acme_hook` from
`acme_hook`; the file systems of macOS and Windows do not, so the spelling is compared with
the folder's own listing, not with `exists()`.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from cfngen._errors import CfngenError
from cfngen._rpdk_config import CONFIG_FILE

if TYPE_CHECKING:
    from cfngen._languages import Language


class Project(Protocol):
    """What the check reads of a project: its Python layout (cfngen/_languages/_python.py's
    `PythonLayout`, which `project.language.layout(project)` gives)."""

    @property
    def root(self) -> Path: ...
    @property
    def src_dir(self) -> Path: ...
    @property
    def entrypoint(self) -> str: ...
    @property
    def test_entrypoint(self) -> str: ...
    @property
    def language(self) -> Language: ...
    @property
    def config(self) -> dict[str, Any]: ...
    @property
    def runtime(self) -> str | None: ...


#: The attributes `cfn init` entrypoints name, tried when a hint has to name one.
_USUAL_ATTRIBUTES = ("resource", "hook")


def require_handler(project: Project, *, attribute: bool = False) -> tuple[int, int]:
    """Stop (exit 2, nothing written or imported) unless Lambda can import the project's
    handler; return the Python version its code must run on.

    With `attribute`, the entrypoint's module must also define the function it names (read,
    not imported: `build` ships code it never runs).
    """
    from cfngen._languages._python_runtimes import project_python

    python = project_python(project)
    problem = entrypoint_problem(project)
    if problem is not None:
        raise problem
    if attribute:
        module, _, name = project.entrypoint.rpartition(".")
        path = _module_file(project.src_dir, module.split("."))
        if path is not None and defines(path, name) is False:
            shown = path.relative_to(project.root).as_posix()
            raise CfngenError(
                f'{CONFIG_FILE}: entrypoint "{project.entrypoint}" names {name}, but {shown} '
                f"defines no {name}: Lambda could not find the handler",
                _hint(project, "entrypoint", name),
            )
    return python


def entrypoint_problem(project: Project) -> CfngenError | None:
    """Why the handlers `.rpdk-config` names cannot be imported from src/, or None.

    A typo there (or `os.system`) would otherwise make generate write models for a package that
    does not exist, and test import something that is not the project."""
    refusal = project.language.refusal()  # another language's entrypoint is not Python's
    if refusal is not None:
        return refusal
    for key, dotted in (
        ("entrypoint", project.entrypoint),
        ("testEntrypoint", project.test_entrypoint),
    ):
        module, _, name = dotted.rpartition(".")
        parts = module.split(".")
        where = f'{CONFIG_FILE}: {key} "{dotted}"'
        spelled = _spelled(project.src_dir, parts)
        if len(spelled) < len(parts):
            if not spelled:
                return CfngenError(
                    f"{where} names the package {parts[0]}, but src/{parts[0]}/ does not exist",
                    _hint(project, key, name),
                )
            shown = project.src_dir.joinpath(*parts).with_suffix(".py")
            shown_text = shown.relative_to(project.root).as_posix()
            return CfngenError(
                f"{where} names the module {module}, but {shown_text} does not exist",
                f"restore {shown_text} (`git checkout -- {shown_text}`), or "
                + _hint(project, key, name),
            )
        if spelled != parts:
            right = ".".join(spelled)
            return CfngenError(
                f"{where} names the module {module}, but its files spell it {right} "
                f"(src/{'/'.join(spelled)}): Lambda's file system tells upper from lower case, "
                "so it could not import it",
                f'set "{key}" in {CONFIG_FILE} to "{right}.{name}"',
            )
    return None


def defines(path: Path, name: str) -> bool | None:
    """Whether the module at `path` binds `name` at its top level (None: cannot tell, as with
    a syntax error, `from x import *` or a module `__getattr__`)."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None
    found: set[str] = set()
    for node in _top_level(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if any(alias.name == "*" for alias in node.names):
                return None
            found.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Assign):
            found.update(n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            found.add(node.target.id)
    return None if "__getattr__" in found else name in found


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The module's statements, with those in top-level if/try/with/for blocks (a handler
    defined under `try:` is defined), never those inside functions or classes."""
    for node in body:
        yield node
        for block in ("body", "orelse", "finalbody"):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield from _top_level(getattr(node, block, []))
        for handler in getattr(node, "handlers", []):
            yield from _top_level(handler.body)


def _spelled(folder: Path, parts: list[str], index: int = 0) -> list[str]:
    """The parts of a dotted module name from `parts[index]` on, as the files under `folder`
    spell them (the package's folder, sub-packages, then the module's file or package): exactly,
    or else in another case. Stops at the first part that has neither: the longest such list
    (a stale `src/Acme_hook/` without handlers.py does not hide `src/acme_hook/handlers.py`)."""
    if index == len(parts):
        return []
    part = parts[index]
    module = 0 < index == len(parts) - 1
    names = []
    for entry in sorted(_listing(folder)):
        path = folder / entry
        if path.is_dir() and (not module or (path / "__init__.py").is_file()):
            names.append(entry)
        elif module and entry.endswith(".py") and path.is_file():
            names.append(entry[:-3])
    candidates = [part] if part in names else []
    candidates += [n for n in names if n != part and n.casefold() == part.casefold()]
    best: list[str] = []
    for name in candidates:
        found = [name, *_spelled(folder / name, parts, index + 1)]
        if len(found) > len(best):
            best = found
        if len(found) == len(parts) - index:
            break
    return best


def _listing(folder: Path) -> set[str]:
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


def _module_file(src: Path, parts: list[str]) -> Path | None:
    base = src.joinpath(*parts)
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _hint(project: Project, key: str, attribute: str) -> str:
    """The fix, naming the handler modules under src/ and the attribute each defines."""
    src = project.src_dir
    found = sorted(p for p in src.glob("*/handlers.py")) if src.is_dir() else []
    choices = []
    for path in found:
        names = [attribute, *(a for a in _USUAL_ATTRIBUTES if a != attribute)]
        name = next((n for n in names if defines(path, n)), None)
        choices.append(f'"{path.parent.name}.handlers.{name or attribute}"')
    if choices:
        return f'set "{key}" in {CONFIG_FILE} to one of: ' + ", ".join(choices)
    return (
        f'fix "{key}" in {CONFIG_FILE} ("package.handlers.{attribute}", with the package in src/)'
    )
