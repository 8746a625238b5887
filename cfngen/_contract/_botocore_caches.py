"""botocore's pure per-object caches, shared by every session while handlers run.

A handler runs as in a new Lambda container for every test: it makes its own botocore session
and clients, as it would there, and each of them works out again what no session can change.
The largest of these is the event aliaser's: every session and every client (a copy of its
session's emitter) starts with an empty `_alias_name_cache` and aliases each of the ~130 event
names it registers or emits through botocore's `EVENT_ALIASES` again (about an eighth of a
`cfngen test` worker's CPU on the example). The alias of a name is a pure function of the name
and the alias table, so aliasers with botocore's own table share one cache; one given another
table keeps its own. Nothing else about a session or client is shared: exception classes, for
one, stay per session as in AWS.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def shared_event_aliases() -> Iterator[None]:
    """For the length of the block, aliasers made with botocore's alias table share the
    cache of aliased names."""
    try:
        from botocore import hooks
    except ImportError:  # no botocore: nothing to share
        yield
        return
    aliaser = hooks.EventAliaser
    original = aliaser.__init__
    default = hooks.EVENT_ALIASES
    shared: dict[str, str] = {}

    def init(self: Any, event_emitter: Any, event_aliases: Any = None) -> None:
        original(self, event_emitter, event_aliases)
        # Its __copy__ passes a copy of the table: equal is as good as the same.
        if event_aliases is None or event_aliases is default or event_aliases == default:
            self._alias_name_cache = shared

    aliaser.__init__ = init
    try:
        yield
    finally:
        aliaser.__init__ = original
