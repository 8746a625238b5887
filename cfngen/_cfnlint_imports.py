"""Importing cfn-lint without the parts of sympy it does not use on most templates.

cfn-lint imports sympy (`from sympy import And, Not, Or, Symbol, ...`) for its condition logic;
`import sympy` loads ~420 modules (polynomials, printing, special functions...) in ~0.3 s, of
which importing cfn-lint needs the ~65 under sympy.core, sympy.logic and sympy.assumptions.cnf
(~0.1 s), and linting a template without conditions needs no more.

`defer_sympy()` registers sympy as a package whose `__init__` has not run yet and imports those
modules, in the order sympy's own `__init__` does. The names cfn-lint takes from the top level
resolve to the very objects sympy's `__init__` exports. The first time anything else is asked
of sympy (another top-level name, or any other submodule: sympy imports many inside its
functions, as soon as a template's conditions are reasoned about), sympy's real `__init__` runs
first, in its own order, so sympy is from then on exactly what a plain `import sympy` gives.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Any

#: The top-level names cfn-lint imports from sympy, and the module each is defined in.
_SYMPY_NAMES = {
    "And": "sympy.logic.boolalg",
    "Or": "sympy.logic.boolalg",
    "Not": "sympy.logic.boolalg",
    "Implies": "sympy.logic.boolalg",
    "Equivalent": "sympy.logic.boolalg",
    "Symbol": "sympy.core.symbol",
    "Dummy": "sympy.core.symbol",
}
#: What importing cfn-lint imports from sympy, in sympy's own order.
_PARTIAL = ("sympy.core", "sympy.logic.boolalg", "sympy.logic.inference", "sympy.assumptions.cnf")


class _Existing(importlib.abc.Loader):
    """Hands back a module sympy's `__init__` has just imported (instead of a second copy)."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        self.spec = module.__spec__

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return self.module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self.spec  # the import system set ours; the module keeps its own


class _Deferred(importlib.abc.MetaPathFinder):
    """sympy before its `__init__` ran: the first submodule beyond the partial set runs it."""

    def __init__(self, module: ModuleType, loader: importlib.abc.Loader) -> None:
        self.module = module
        self.loader = loader
        self.partial = True  # while the partial set imports, nothing triggers the full load
        self.loaded = False

    def load_fully(self) -> None:
        if self.loaded:
            return
        self.loaded = True
        self.module.__dict__.pop("__getattr__", None)
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        self.loader.exec_module(self.module)

    def find_spec(
        self, fullname: str, path: Any = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if self.partial or self.loaded or not fullname.startswith("sympy."):
            return None
        self.load_fully()
        existing = sys.modules.get(fullname)
        if existing is None or getattr(existing, "__spec__", None) is None:
            return None  # not among sympy's __init__'s imports: the usual finders import it
        return importlib.machinery.ModuleSpec(fullname, _Existing(existing))


def defer_sympy() -> None:
    """Import what cfn-lint needs of sympy, and sympy's `__init__` only when more is needed."""
    if "sympy" in sys.modules:
        return
    try:
        spec = importlib.util.find_spec("sympy")
    except (ImportError, ValueError):
        return
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    module = importlib.util.module_from_spec(spec)
    deferred = _Deferred(module, spec.loader)

    def __getattr__(name: str) -> Any:
        where = _SYMPY_NAMES.get(name)
        if where is not None:
            return getattr(importlib.import_module(where), name)
        if deferred.loaded:
            raise AttributeError(f"module 'sympy' has no attribute {name!r}")
        deferred.load_fully()
        return getattr(module, name)

    module.__dict__["__getattr__"] = __getattr__
    sys.modules["sympy"] = module
    sys.meta_path.insert(0, deferred)
    try:
        for name in _PARTIAL:
            importlib.import_module(name)
    except BaseException:
        sys.meta_path.remove(deferred)
        for name in [name for name in sys.modules if name.split(".")[0] == "sympy"]:
            del sys.modules[name]
        raise
    deferred.partial = False
