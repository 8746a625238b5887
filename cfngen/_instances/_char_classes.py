"""The characters a class of a pattern's tree allows (`[a-z]`, `\\d`, `[^:]`), and which of them the
generator prefers: the most readable first.
"""

from __future__ import annotations

import bisect
import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any

from cfngen._instances._pattern_tree import Item

if sys.version_info >= (3, 11):  # 3.11 renamed the modules behind `re` (the old names warn)
    from re import _constants as sre
else:  # pragma: no cover
    import sre_constants as sre

#: Characters preferred when a class allows them, most readable first.
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_DIGITS = "0123456789"
_OTHER = "-_. /:=+@,;!~*'()[]{}<>#$%&?^|`\"\\\t\n\r"
_PREFERRED = _LOWER + _DIGITS + _UPPER + _OTHER


def _ascii_word(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c == "_")


#: sre categories (only reached for patterns that bypass the translation's explicit classes).
_CATEGORIES: dict[Any, Callable[[str], bool]] = {
    sre.CATEGORY_DIGIT: lambda c: "0" <= c <= "9",
    sre.CATEGORY_NOT_DIGIT: lambda c: not "0" <= c <= "9",
    sre.CATEGORY_SPACE: lambda c: c in " \t\n\r\f\v",
    sre.CATEGORY_NOT_SPACE: lambda c: c not in " \t\n\r\f\v",
    sre.CATEGORY_WORD: _ascii_word,
    sre.CATEGORY_NOT_WORD: lambda c: not _ascii_word(c),
    sre.CATEGORY_UNI_DIGIT: str.isdecimal,
    sre.CATEGORY_UNI_NOT_DIGIT: lambda c: not c.isdecimal(),
    sre.CATEGORY_UNI_SPACE: str.isspace,
    sre.CATEGORY_UNI_NOT_SPACE: lambda c: not c.isspace(),
    sre.CATEGORY_UNI_WORD: lambda c: c.isalnum() or c == "_",
    sre.CATEGORY_UNI_NOT_WORD: lambda c: not (c.isalnum() or c == "_"),
}


def _never(_: str) -> bool:
    return False


_CLASSES: dict[int, tuple[Any, _CharClass]] = {}


def _char_class(items: Any) -> _CharClass:
    """One _CharClass per IN node of a cached parse tree."""
    hit = _CLASSES.get(id(items))
    if hit is None or hit[0] is not items:
        if len(_CLASSES) > 20000:  # trees evicted from _parse's cache would stay alive here
            _CLASSES.clear()
        hit = (items, _CharClass(items))
        _CLASSES[id(items)] = hit
    return hit[1]


@functools.lru_cache(maxsize=256)
def _not_literal(cp: int) -> _CharClass:
    return _CharClass(((sre.NEGATE, None), (sre.LITERAL, cp)))


class _CharClass:
    """Membership and preferred members of one IN node."""

    def __init__(self, items: Sequence[Item]) -> None:
        self.negate = False
        ranges: list[tuple[int, int]] = []
        self.categories: list[Any] = []
        for op, av in items:
            if op is sre.NEGATE:
                self.negate = True
            elif op is sre.LITERAL:
                ranges.append((av, av))
            elif op is sre.RANGE:
                ranges.append(av)
            elif op is sre.CATEGORY:
                self.categories.append(av)
        ranges.sort()
        self.los = [lo for lo, _ in ranges]
        self.ranges = ranges
        groups = [
            [c for c in g if self.contains(ord(c))] for g in (_LOWER, _UPPER, _DIGITS, _OTHER)
        ]
        if not any(groups):
            first = self.first_member()
            groups[3] = [] if first is None else [chr(first)]
        #: Members by kind (lower, upper, digit, other), for strings that need variety.
        self.groups = [g for g in groups if g]
        #: Members that read well: lower case and digits if there are any.
        self.readable = (groups[0] + groups[2]) or groups[1] or groups[3]

    def contains(self, cp: int) -> bool:
        i = bisect.bisect_right(self.los, cp) - 1
        inside = i >= 0 and self.ranges[i][0] <= cp <= self.ranges[i][1]
        if not inside and self.categories:
            inside = any(_CATEGORIES.get(cat, _never)(chr(cp)) for cat in self.categories)
        return inside != self.negate

    def first_member(self) -> int | None:
        starts = [lo for lo, _ in self.ranges] + [hi + 1 for _, hi in self.ranges] + [0x80, 0xA0]
        for cp in sorted(set(starts)):
            if cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF and self.contains(cp):
                return cp
        return None


_ANY_CLASS = _CharClass([(sre.NEGATE, None), (sre.LITERAL, 10)])
