"""Advisory locks (fcntl.flock), or None where the platform has none."""

from __future__ import annotations

from types import ModuleType

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, one writer assumed
    fcntl = None
