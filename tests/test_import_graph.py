"""The import graph of cfngen/, read with `ast` (nothing is imported): kinds are seams.

- No engine imports up into cfngen/_kinds/: only the CLI (cfngen/_cli/) and the kinds
  themselves may. An engine reaches a kind through the interface below it (cfngen/_kind/),
  whose registry finds the kinds by folder. Every import counts here, at any depth: at module
  level, inside a function, under `if TYPE_CHECKING:`.
- No kind imports another kind's modules: what two kinds share lives in cfngen/_kinds/_shared/
  (which imports no kind) or below the kinds.
- No import cycle: the imports that run form no cycle, those at module level and those inside
  a function alike (a function-level import is how a light module reaches a heavy one on
  demand; it may not close a circle either). Only imports under `if TYPE_CHECKING:` are left
  out: they never run, and type annotations may name each other both ways.

Importing `a.b.c` runs `a/__init__.py` and `a/b/__init__.py` first, so an import is an edge to
the module and to each package above it that the importer is not inside.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "cfngen"
#: The code copied into projects: it imports no cfngen module.
_SUPPORT = "cfngen._support"
#: Who may import a kind's modules besides the kinds: the CLI, and entry points that stand
#: where the CLI stands (`python -m cfngen`, the pytest plugin).
_ABOVE_KINDS = ("cfngen._cli", "cfngen.__main__", "cfngen._pytest_plugin")
KINDS = "cfngen._kinds"
SHARED = "cfngen._kinds._shared"
INTERFACE = "cfngen._kind"


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    #: "module" (runs on import), "typing" (under `if TYPE_CHECKING:`), "function".
    when: str


def _name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, when: str = "module") -> Iterator[tuple[ast.stmt, str]]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, when
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield from _imports(node, "function")
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                yield from _imports(ast.Module(body=[child], type_ignores=[]), "typing")
            for child in node.orelse:
                yield from _imports(ast.Module(body=[child], type_ignores=[]), when)
        else:
            yield from _imports(node, when)


def graph(root: Path = ROOT) -> tuple[set[str], list[Edge]]:
    """Every module under `root` (a package folder) and every import among them."""
    paths = {_name(p, root): p for p in sorted(root.rglob("*.py"))}
    modules = set(paths)
    edges: set[Edge] = set()
    for name, path in paths.items():
        if name.startswith(_SUPPORT):
            continue
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node, when in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                assert isinstance(node, ast.ImportFrom)
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [base]
                targets += [f"{base}.{alias.name}" for alias in node.names]
            for target in targets:
                # the module itself (a name imported from a module is no module) and every
                # package above it that importing it runs
                parts = target.split(".")
                for depth in range(1, len(parts) + 1):
                    module = ".".join(parts[:depth])
                    if module not in modules or module == name:
                        continue
                    if name.startswith(module + "."):  # a package the importer is inside
                        continue
                    edges.add(Edge(name, module, node.lineno, when))
    return modules, sorted(edges, key=lambda e: (e.source, e.line, e.target, e.when))


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _kind_of(module: str) -> str | None:
    """The kind folder a module belongs to (`cfngen._kinds.hook`), None outside every kind."""
    if not _inside(module, KINDS) or module == KINDS:
        return None
    folder = module.split(".")[2]
    return None if folder.startswith("_") else f"{KINDS}.{folder}"


def upward_imports(edges: list[Edge]) -> list[str]:
    return sorted(
        f"{e.source}:{e.line} imports {e.target}"
        for e in edges
        if _inside(e.target, KINDS)
        and not _inside(e.source, KINDS)
        and not any(_inside(e.source, above) for above in _ABOVE_KINDS)
    )


def cross_kind_imports(edges: list[Edge]) -> list[str]:
    found = []
    for e in edges:
        target = _kind_of(e.target)
        if target is None:
            continue
        source = _kind_of(e.source)
        if (source is not None and source != target) or _inside(e.source, SHARED):
            found.append(f"{e.source}:{e.line} imports {e.target}")
    return sorted(found)


def cycles(modules: set[str], edges: list[Edge]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    following: dict[str, set[str]] = {m: set() for m in modules}
    for e in edges:
        following[e.source].add(e.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:
        # iterative: the graph is deep enough for Python's recursion limit to matter
        work = [(start, iter(sorted(following[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(following[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return sorted(found)


# --------------------------------------------------------------------------- the tests


@pytest.fixture(scope="module")
def the_graph() -> tuple[set[str], list[Edge]]:
    return graph()


def test_no_engine_imports_up_into_the_kinds(the_graph):
    _modules, edges = the_graph
    assert upward_imports(edges) == []


def test_no_kind_imports_another_kinds_modules(the_graph):
    _modules, edges = the_graph
    assert cross_kind_imports(edges) == []


def test_no_import_cycle_at_import_time(the_graph):
    modules, edges = the_graph
    assert cycles(modules, [e for e in edges if e.when == "module"]) == []


def test_no_import_cycle_even_through_imports_inside_functions(the_graph):
    modules, edges = the_graph
    assert cycles(modules, [e for e in edges if e.when != "typing"]) == []


def test_the_reader_sees_every_kind_of_import(tmp_path):
    """The checks above can fail: a small package with each fault is caught."""
    package = tmp_path / "cfngen"
    (package / "_kinds" / "a").mkdir(parents=True)
    (package / "_kinds" / "b").mkdir(parents=True)
    (package / "_kinds" / "_shared").mkdir(parents=True)
    (package / "_kind").mkdir()
    (package / "_engine").mkdir()
    files = {
        "__init__.py": "",
        "_kind/__init__.py": "def f():\n    from cfngen._engine import x\n",
        "_kinds/__init__.py": "",
        "_kinds/_shared/__init__.py": "from cfngen._kinds.a import _x\n",
        "_kinds/a/__init__.py": "from . import _x\n",
        "_kinds/a/_x.py": "from ..b import _y\n",
        "_kinds/b/__init__.py": "",
        "_kinds/b/_y.py": "import cfngen._engine._one\n",
        "_engine/__init__.py": "",
        "_engine/_one.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from cfngen._kinds.a import K\nfrom cfngen._engine import _two\n",
        "_engine/_two.py": "import cfngen._engine._one\n",
    }
    for name, text in files.items():
        (package / name).write_text(text)
    modules, edges = graph(package)
    assert upward_imports(edges) == [
        "cfngen._engine._one:3 imports cfngen._kinds",
        "cfngen._engine._one:3 imports cfngen._kinds.a",
    ]
    assert cross_kind_imports(edges) == [
        "cfngen._kinds._shared:1 imports cfngen._kinds.a",
        "cfngen._kinds._shared:1 imports cfngen._kinds.a._x",
        "cfngen._kinds.a._x:1 imports cfngen._kinds.b",
        "cfngen._kinds.a._x:1 imports cfngen._kinds.b._y",
    ]
    assert cycles(modules, [e for e in edges if e.when == "module"]) == [
        ["cfngen._engine._one", "cfngen._engine._two"]
    ]
    assert cycles(modules, [e for e in edges if e.when != "typing"]) == [
        ["cfngen._engine._one", "cfngen._engine._two"]
    ]
    (package / "_engine" / "_two.py").write_text("def f():\n    import cfngen._engine._one\n")
    modules, edges = graph(package)
    assert cycles(modules, [e for e in edges if e.when == "module"]) == []
    assert cycles(modules, [e for e in edges if e.when != "typing"]) == [
        ["cfngen._engine._one", "cfngen._engine._two"]
    ]


def test_project_is_language_neutral():
    """`Project` is a folder, its `.rpdk-config` and its kind: what is Python's (the package,
    the dotted entrypoints, the runtime) is the language's layout, so no engine can read a
    Python package in a TypeScript, Java or Go project without asking the language."""
    from dataclasses import fields

    from cfngen._kind import Project
    from cfngen._languages._python import PythonLayout

    def members(cls: type) -> set[str]:
        return {n for n in vars(cls) if not n.startswith("_")} | {f.name for f in fields(cls)}

    neutral = {"root", "kind", "config", "template", "notes", "type_name", "schema_path"}
    assert members(Project) == neutral | {"language"}
    pythons = members(PythonLayout) - {"project", "root", "config", "language"}
    assert {"entrypoint", "package_dir", "src_dir", "handlers_path", "runtime"} <= pythons
    assert not members(Project) & pythons
