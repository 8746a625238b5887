"""The kind registry: every kind of extension cfngen knows, found by folder.

Each sub-package of cfngen/_kinds/ (resource/, hook/, module/, custom_resource/) is one kind: its
`__init__.py` defines `KIND`, an object that implements the `Kind` protocol (_kind.py). Adding a
folder registers a kind; nothing else changes.

The registry sits below the engines with the protocol, and finds the kinds by the name of their
package (`KIND_PACKAGES`), through importlib: no module imports cfngen._kinds by a statement
except the CLI and the kinds themselves (tests/test_import_graph.py), so an engine cannot come
to depend on one kind's code.

Only this module and the project loader (cfngen/_project.py) turn `artifact_type` strings into
kinds; everything else holds a `Kind` and asks it.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

from cfngen._errors import CfngenError
from cfngen._kind._kind import Derived, Kind

__all__ = [
    "Derived",
    "Kind",
    "all_kinds",
    "by_artifact_type",
    "default_kind",
    "lookup",
    "named",
]


#: The packages whose sub-packages are kinds, by name (a test adds a throwaway one).
KIND_PACKAGES: tuple[str, ...] = ("cfngen._kinds",)


@functools.cache
def all_kinds() -> tuple[Kind, ...]:
    """Every registered kind, in `order`."""
    found: list[Kind] = []
    for name in KIND_PACKAGES:
        kinds = importlib.import_module(name)
        for module in pkgutil.iter_modules(kinds.__path__):
            if not module.ispkg or module.name.startswith("_"):
                continue  # _shared/: code the kinds share, no kind
            package = importlib.import_module(f"{name}.{module.name}")
            kind: Kind | None = getattr(package, "KIND", None)
            if kind is None:
                raise RuntimeError(f"{package.__name__} defines no KIND")
            if kind.name.replace("-", "_") != module.name:
                raise RuntimeError(f"{package.__name__}: KIND.name is {kind.name!r}")
            found.append(kind)
    found.sort(key=lambda k: (k.order, k.name))
    spellings = [s for kind in found for s in kind.artifact_types]
    if len(spellings) != len(set(spellings)):
        raise RuntimeError(f"two kinds claim one artifact_type: {spellings}")
    return tuple(found)


def default_kind() -> Kind:
    """The kind of a schema file outside any project, and the wizard's default."""
    return all_kinds()[0]


def named(name: str) -> Kind:
    for kind in all_kinds():
        if kind.name == name:
            return kind
    raise CfngenError(f"cfngen has no {name} kind", f"known kinds: {_names()}")


def by_artifact_type(value: str) -> Kind | None:
    """The kind whose `.rpdk-config` spelling `value` is, exactly as the official tool writes
    it (it compares exactly too), or None."""
    for kind in all_kinds():
        if value in kind.artifact_types:
            return kind
    return None


def _normal(text: str) -> str:
    return text.strip().upper().replace("-", "_").replace(" ", "_")


def lookup(text: str) -> Kind:
    """The kind a user means by `text` (`resource`, `RESOURCE`, `resource type`, an alias)."""
    wanted = _normal(text)
    for kind in all_kinds():
        spellings = (kind.name, kind.label, *kind.artifact_types, *kind.aliases)
        if wanted in {_normal(s) for s in spellings}:
            return kind
    raise CfngenError(f"unknown artifact type {text!r}", f"use one of {_names()}")


def _names() -> str:
    return ", ".join(kind.name for kind in all_kinds())
