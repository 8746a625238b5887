"""moto's backends import only what a run uses: an import shim for two of moto's modules.

moto imports some of its largest modules for a name or two that most runs never use:
- EC2's models, which several backends import at import time for one or two calls (SSM's
  `from moto.ec2 import ec2_backends`, for maintenance-window targets): about 0.9 s of the
  1.3 s SSM's backend takes, in every `cfngen test` of a handler that calls SSM and never EC2.
- IAM's access control, which moto's request handling imports at every request
  (`from moto.iam.access_control import IAMRequest`) and uses only when IAM authentication is
  switched on (`INITIAL_NO_AUTH_ACTION_COUNT`, off by default and in cfngen): it imports IAM's,
  S3's, CloudWatch's and EventBridge's models and `cryptography.x509`, a tenth of a cold
  `cfngen test` worker's CPU.
Until moto imports them lazily itself, cfngen puts a stand-in for each module in `sys.modules`
before any backend loads: the names above are proxies that import the real module the first
time they are used, and any other name of the module (or a submodule) imports it at once. A
handler that calls EC2 gets the real backends, through moto's usual lookup, on its first call;
a run with IAM authentication on gets the real access control at its first checked request.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
import types
from importlib.machinery import ModuleSpec
from typing import Any


class _Stand(types.ModuleType):
    """A moto module until something needs more of it than its lazy names."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            # What the import system and tools ask of any module (`__path__`: is it a
            # package?), not a use of moto's names.
            raise AttributeError(name)
        return getattr(_real(self.__name__), name)


class _LazyBackends:
    """A module's BackendDict (`moto.ec2.ec2_backends`) until one is used: then the real one."""

    def __init__(self, module: str, name: str) -> None:
        self._where = (module, name)

    def _target(self) -> Any:
        module, name = self._where
        return getattr(_real(module), name)

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        # moto tells a BackendDict from a global backend by isinstance, which reads __class__.
        from moto.core.base_backend import BackendDict

        return BackendDict

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target(), name)

    def __getitem__(self, key: Any) -> Any:
        return self._target()[key]

    def __iter__(self) -> Any:
        return iter(self._target())

    def __len__(self) -> int:
        return len(self._target())

    def __contains__(self, key: Any) -> bool:
        return key in self._target()


class _LazyClass:
    """A class of the module (`IAMRequest`, which moto only calls) until it is called."""

    def __init__(self, module: str, name: str) -> None:
        self._where = (module, name)

    def _target(self) -> Any:
        module, name = self._where
        return getattr(_real(module), name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._target()(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target(), name)


#: The modules stood in for, and their names that wait for a use.
_LAZY: dict[str, dict[str, type]] = {
    "moto.ec2": {"ec2_backends": _LazyBackends},
    "moto.iam.access_control": {"IAMRequest": _LazyClass, "S3IAMRequest": _LazyClass},
}


def _real(name: str) -> types.ModuleType:
    module = sys.modules.get(name)
    if module is not None and not isinstance(module, _Stand):
        return module
    sys.modules.pop(name, None)
    real = importlib.import_module(name)
    parent_name, _, child = name.rpartition(".")
    parent = sys.modules.get(parent_name)
    if parent is not None:
        setattr(parent, child, real)
    return real


def install() -> None:
    """Put the stand-ins in place, each unless its module is imported already (then it is
    real)."""
    for name, lazy in _LAZY.items():
        if name in sys.modules:
            continue
        spec = _spec(name)
        if spec is None:
            continue  # another moto layout: import as usual
        stand = _Stand(name)
        if spec.submodule_search_locations is not None:  # submodules import as usual
            stand.__path__ = list(spec.submodule_search_locations)
        stand.__spec__ = spec
        for attribute, proxy in lazy.items():
            setattr(stand, attribute, proxy(name, attribute))
        sys.modules[name] = stand


def _spec(name: str) -> ModuleSpec | None:
    """Where module `name` is, found without importing the packages it is in (importlib's
    find_spec imports them: `moto.iam`'s import is IAM's models)."""
    top, *rest = name.split(".")
    spec = importlib.util.find_spec(top)
    for depth in range(1, len(rest) + 1):
        if spec is None or spec.submodule_search_locations is None:
            return None
        dotted = ".".join([top, *rest[:depth]])
        spec = importlib.machinery.PathFinder.find_spec(dotted, spec.submodule_search_locations)
    return spec
