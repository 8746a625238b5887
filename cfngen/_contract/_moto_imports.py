"""moto's backends import only what a run uses: an import shim for its EC2 models.

Several moto backends import EC2's models at import time for one or two calls (SSM's
`from moto.ec2 import ec2_backends`, for maintenance-window targets), and EC2's models are the
largest part of moto: importing them costs about 0.9 s of the 1.3 s SSM's backend takes, in
every `cfngen test` of a handler that calls SSM and never EC2. Until moto imports them lazily
itself, cfngen puts a stand-in for the `moto.ec2` package in `sys.modules` before any backend
loads: its `ec2_backends` is a proxy that imports the real package the first time it is used,
and any other name of the package (or a submodule) imports it at once. A handler that calls
EC2 gets the real backends, through moto's usual lookup, on its first call.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import Any

_PACKAGE = "moto.ec2"


class _Stand(types.ModuleType):
    """`moto.ec2` until something needs more of it than the name `ec2_backends`."""

    def __getattr__(self, name: str) -> Any:
        return getattr(_real(), name)


class _LazyBackends:
    """`moto.ec2.ec2_backends` until one is used: then the real BackendDict, for good."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        # moto tells a BackendDict from a global backend by isinstance, which reads __class__.
        from moto.core.base_backend import BackendDict

        return BackendDict

    def __getattr__(self, name: str) -> Any:
        return getattr(_real().ec2_backends, name)

    def __getitem__(self, key: Any) -> Any:
        return _real().ec2_backends[key]

    def __iter__(self) -> Any:
        return iter(_real().ec2_backends)

    def __len__(self) -> int:
        return len(_real().ec2_backends)

    def __contains__(self, key: Any) -> bool:
        return key in _real().ec2_backends


def _real() -> types.ModuleType:
    module = sys.modules.get(_PACKAGE)
    if module is not None and not isinstance(module, _Stand):
        return module
    sys.modules.pop(_PACKAGE, None)
    real = importlib.import_module(_PACKAGE)
    parent = sys.modules.get("moto")
    if parent is not None:
        parent.ec2 = real  # type: ignore[attr-defined]
    return real


def install() -> None:
    """Put the stand-in in place, unless `moto.ec2` is imported already (then it is real)."""
    if _PACKAGE in sys.modules:
        return
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or spec.submodule_search_locations is None:
        return  # another moto layout: import as usual
    stand = _Stand(_PACKAGE)
    stand.__path__ = list(spec.submodule_search_locations)  # submodules import as usual
    stand.__spec__ = spec
    stand.ec2_backends = _LazyBackends()  # type: ignore[attr-defined]
    sys.modules[_PACKAGE] = stand
