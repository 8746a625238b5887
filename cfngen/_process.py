"""Whether cfngen owns the process it runs in.

The `cfngen` command's entry point (cfngen/__main__.py) says so with `own()`. Only then may
cfngen do what a library must not do to the program that imports it, such as forking children
(cfngen/_generate/_parallel.py) or take over SIGTERM and SIGHUP. A module of its own, so the
entry point pays nothing for it.
"""

from __future__ import annotations

_owned = False


def own() -> None:
    global _owned  # noqa: PLW0603 - one switch per process, thrown by the entry point
    _owned = True
    # SIGTERM (kill, a CI timeout) and SIGHUP (a closed terminal) end cfngen the way Ctrl-C
    # does: as KeyboardInterrupt, so every `finally` runs and a half-done write is undone.
    import signal

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _interrupted)


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def owned() -> bool:
    return _owned
