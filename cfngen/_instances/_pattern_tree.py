"""A schema pattern as the tree the string generator walks: Python's parse of the pattern
translated to AWS's (Java) semantics (cfngen._patterns), frozen into nested tuples (fast to walk,
stable cache keys) and cached.
"""

from __future__ import annotations

import functools
import sys
from typing import Any

from cfngen import _patterns

if sys.version_info >= (3, 11):  # 3.11 renamed the modules behind `re` (the old names warn)
    from re import _constants as sre
    from re import _parser as sre_parse
else:  # pragma: no cover
    import sre_constants as sre
    import sre_parse


_ATOMIC_GROUP = getattr(sre, "ATOMIC_GROUP", None)
_POSSESSIVE_REPEAT = getattr(sre, "POSSESSIVE_REPEAT", None)
_REPEATS = tuple(op for op in (sre.MAX_REPEAT, sre.MIN_REPEAT, _POSSESSIVE_REPEAT) if op)

Item = tuple[Any, Any]


@functools.lru_cache(maxsize=2048)
def _parse(pattern: str) -> tuple[Item, ...] | None:
    try:
        _patterns.compile_pattern(pattern)
        return _freeze(sre_parse.parse(_patterns.translate(pattern)))
    except (_patterns.PatternError, sre.error):
        return None


def _freeze(sub: Any) -> tuple[Item, ...]:
    """The parse tree as nested tuples: fast to walk, and stable keys for the generator's caches."""
    out = []
    for op, av in sub:
        if op is sre.SUBPATTERN:
            av = (av[0], av[1], av[2], _freeze(av[3]))  # noqa: PLW2901
        elif op is sre.BRANCH:
            av = (None, tuple(_freeze(b) for b in av[1]))  # noqa: PLW2901
        elif op in _REPEATS:
            av = (av[0], av[1], _freeze(av[2]))  # noqa: PLW2901
        elif op is _ATOMIC_GROUP:
            av = _freeze(av)  # noqa: PLW2901
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            av = (av[0], _freeze(av[1]))  # noqa: PLW2901
        elif op is sre.GROUPREF_EXISTS:
            av = (av[0], _freeze(av[1]), None if av[2] is None else _freeze(av[2]))  # noqa: PLW2901
        elif op is sre.IN:
            av = tuple(av)  # noqa: PLW2901
        out.append((op, av))
    return tuple(out)
