"""Strings that match a schema pattern (AWS semantics) within minLength/maxLength.

We generate from the sre_parse tree of the translated pattern ourselves. Measured on corpus
(pattern, minLength, maxLength) triples: hypothesis' `from_regex` driven by `find(...,
derandomize=True)` made a fitting string for 29 of 30 at a median of 1.2 s each (p95 7 s), rstr
with a seeded Random for 93 of 100 (p95 420 ms, retrying seeds until one fits); neither can aim
at a length, which AWS patterns combined with min/maxLength need. Here lengths are allocated over
the tree and every candidate is checked against the pattern: 100 of the same 100 at a median of
0.3 ms, and 3790 of all 3792 corpus triples (the other two match nothing at all). No randomness:
a `variant` number picks among equally good choices.

The tree: _pattern_tree.py; the characters a class allows: _char_classes.py.
"""

from __future__ import annotations

import functools
import itertools
import math
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from cfngen import _patterns
from cfngen._instances._char_classes import _ANY_CLASS, _char_class, _CharClass, _not_literal
from cfngen._instances._pattern_tree import _ATOMIC_GROUP, _REPEATS, Item, _parse

if sys.version_info >= (3, 11):  # 3.11 renamed the modules behind `re` (the old names warn)
    from re import _constants as sre
else:  # pragma: no cover
    import sre_constants as sre

_UNBOUNDED = 1 << 30


_WIDTHS: dict[int, tuple[Any, tuple[int, int]]] = {}


def _opens_with_text(items: Sequence[Item], text: str = "aws") -> bool:
    """Whether `items` start with `text`: the ARN partition, optional in many AWS patterns."""
    while items and items[0][0] is sre.SUBPATTERN:
        items = items[0][1][3]
    head = [chr(av) for op, av in items[: len(text)] if op is sre.LITERAL]
    return "".join(head) == text


class _Generator:
    """One attempt: a string for a parsed pattern, aiming at a total length."""

    def __init__(
        self, variant: int = 0, backwards: bool = True, mixed: bool = False, forced: str = ""
    ) -> None:
        self.variant = variant
        self.backwards = backwards
        self.mixed = mixed
        #: Characters to use where a class allows them (what a leading look-ahead wants).
        self.forced = forced
        self.position = 0
        self.groups: dict[int, str] = {}

    # -- widths (what sre's getwidth computes, but per item and without its caps)

    def width(self, items: Sequence[Item]) -> tuple[int, int]:
        hit = _WIDTHS.get(id(items))
        if hit is None or hit[0] is not items:
            lo = hi = 0
            for item in items:
                a, b = self.item_width(item)
                lo += a
                hi = min(hi + b, _UNBOUNDED)
            hit = (items, (lo, hi))
            if len(_WIDTHS) > 50000:
                _WIDTHS.clear()
            _WIDTHS[id(items)] = hit
        return hit[1]

    def item_width(self, item: Item) -> tuple[int, int]:
        op, av = item
        if op in (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN):
            return 1, 1
        if op is sre.SUBPATTERN:
            return self.width(av[3])
        if op is _ATOMIC_GROUP:
            return self.width(av)
        if op in _REPEATS:
            lo, hi, sub = av
            a, b = self.width(sub)
            upper = _UNBOUNDED if hi >= sre.MAXREPEAT else hi
            return min(lo * a, _UNBOUNDED), min(upper * b, _UNBOUNDED)
        if op is sre.BRANCH:
            ws = [self.width(b) for b in av[1]]
            return min(w[0] for w in ws), max(w[1] for w in ws)
        if op is sre.GROUPREF_EXISTS:
            ws = [self.width(b) for b in av[1:] if b is not None] or [(0, 0)]
            return min(w[0] for w in ws), max(w[1] for w in ws)
        if op is sre.GROUPREF:
            return 0, _UNBOUNDED
        return 0, 0

    # -- generation

    def soft_width(self, items: Sequence[Item]) -> int:
        """The shortest length once an optional ARN partition is kept (see below)."""
        total = 0
        for op, av in items:
            if op is sre.SUBPATTERN:
                total += self.soft_width(av[3])
            elif op in _REPEATS and av[0] == 0 and av[1] >= 1 and _opens_with_text(av[2]):
                total += self.soft_width(av[2])
            else:
                total += self.item_width((op, av))[0]
        return total

    def sequence(self, items: Sequence[Item], want: int) -> str:
        widths = [self.item_width(item) for item in items]
        alloc = [w[0] for w in widths]
        extra = want - sum(alloc)
        # Keep an optional partition when the length allows: `arn:(aws[a-z-]*)?:` reads better
        # as arn:aws: than as arn::.
        for i, (op, av) in enumerate(items):
            if op in _REPEATS and av[0] == 0 and av[1] >= 1 and _opens_with_text(av[2]):
                need = self.soft_width(av[2])
                if 0 < need <= extra:
                    alloc[i] += need
                    extra -= need
        order = range(len(items) - 1, -1, -1) if self.backwards else range(len(items))
        for i in order:
            if extra <= 0:
                break
            take = min(extra, widths[i][1] - widths[i][0])
            alloc[i] += take
            extra -= take
        return "".join(self.item(item, n) for item, n in zip(items, alloc, strict=True))

    def item(self, item: Item, want: int) -> str:
        op, av = item
        if op is sre.LITERAL:
            return self.emit(chr(av))
        if op is sre.NOT_LITERAL:
            return self.pick(_not_literal(av))
        if op is sre.ANY:
            return self.pick(_ANY_CLASS)
        if op is sre.IN:
            return self.pick(_char_class(av))
        if op is sre.SUBPATTERN:
            text = self.sequence(av[3], want)
            if av[0] is not None:
                self.groups[av[0]] = text
            return text
        if op is _ATOMIC_GROUP:
            return self.sequence(av, want)
        if op in _REPEATS:
            return self.repeat(av, want)
        if op is sre.BRANCH:
            return self.branch(av[1], want)
        if op is sre.GROUPREF:
            return self.emit(self.groups.get(av, ""))
        if op is sre.GROUPREF_EXISTS:
            group, yes, no = av
            chosen = yes if group in self.groups else no
            return "" if chosen is None else self.sequence(chosen, want)
        return ""  # anchors and look-arounds: the final check judges them

    def repeat(self, av: tuple[int, int, Any], want: int) -> str:
        lo, hi, sub = av
        hi = min(hi, _UNBOUNDED)
        a, b = self.width(sub)
        if b == 0:
            count = lo
        else:
            count = math.ceil(want / b)
            if a and count * a > want and count > 1:
                count = want // a  # undershoot rather than overshoot; a single one may overshoot
            count = max(lo, min(count, hi))
        if count == 0:
            return ""
        share, rest = divmod(want, count)
        return "".join(self.sequence(sub, share + (i < rest)) for i in range(count))

    def branch(self, branches: Sequence[Any], want: int) -> str:
        widths = [self.width(b) for b in branches]

        def distance(i: int) -> int:
            lo, hi = widths[i]
            return 0 if lo <= want <= hi else min(abs(want - lo), abs(want - hi))

        # Alternatives that fit the length first; later variants take the others in turn
        # (another pattern may need `function:` where `runtime/` fits the length better).
        order = sorted(range(len(branches)), key=distance)
        fitting = sum(1 for i in order if distance(i) == 0) or 1
        pool = fitting if self.variant < fitting else len(order)
        return self.sequence(branches[order[self.variant % pool]], want)

    def pick(self, charclass: _CharClass) -> str:
        if self.position < len(self.forced) and charclass.contains(ord(self.forced[self.position])):
            return self.emit(self.forced[self.position])
        n = self.position + self.variant
        if self.mixed and charclass.groups:
            # Cycling through the kinds satisfies "at least one upper case letter, one digit
            # and one symbol" look-aheads (passwords) without knowing about them.
            group = charclass.groups[n % len(charclass.groups)]
            return self.emit(group[(n // len(charclass.groups)) % len(group)])
        options = charclass.readable
        return self.emit(options[n % len(options)]) if options else ""

    def emit(self, text: str) -> str:
        self.position += len(text)
        return text


@functools.lru_cache(maxsize=2048)
def pattern_width(pattern: str) -> tuple[int, int] | None:
    """Shortest and longest length of a match of `pattern`, or None if it cannot be read."""
    tree = _parse(pattern)
    return None if tree is None else _Generator().width(tree)


def matching_string(
    pattern: str, min_length: int = 0, max_length: int | None = None, variant: int = 0
) -> str | None:
    """A string that `pattern` finds (Java semantics) with a length in [min_length, max_length].

    None when no attempt succeeds (an impossible combination, or one too subtle to aim at).
    """
    items = _parse(pattern)
    if items is None or (pattern, min_length, max_length) in _IMPOSSIBLE:
        return None
    max_len = _UNBOUNDED if max_length is None else max_length
    probe = _Generator()
    plo, phi = probe.width(items)
    alo, ahi = _lookahead_bounds(items, probe)
    lo, hi = max(min_length, plo, alo), min(max_len, phi, ahi)
    soft = min(max(lo, probe.soft_width(items)), hi)
    for how, want in itertools.islice(_attempts(items, lo, hi, variant, soft), 64):
        target = want
        for _ in range(3):
            text = _Generator(*how).sequence(items, target)
            if lo <= len(text) <= hi:
                if _patterns.search(pattern, text):
                    return text
                break
            # Integer repeat counts can miss the aim: aim again, corrected by the miss.
            target += want - len(text)
    # A look-ahead may spell out what the rest of the pattern only loosely allows
    # (`arn:(?=[^:]+:fsx:[^:]+:\d{12}:)((...):){4}.*`): try its text in place.
    for text in _lookahead_in_place(items):
        if lo <= len(text) <= hi and _patterns.search(pattern, text):
            return text
    # A search pattern may match inside a longer string: pad what matched.
    if plo <= max_len:
        core = _Generator(variant).sequence(items, min(max(plo, 1), phi, max_len))
        need = max(0, min_length - len(core), alo - len(core))
        for pad in ("a", "0", " ", "-", "aA0!"):
            text = core + (pad * need)[:need]
            if min_length <= len(text) <= max_len and _patterns.search(pattern, text):
                return text
    # Other variants would fail the same way; asking again costs as much as the first time.
    _IMPOSSIBLE.add((pattern, min_length, max_length))
    return None


_IMPOSSIBLE: set[tuple[str, int, int | None]] = set()


def known_impossible(pattern: str, min_length: int = 0, max_length: int | None = None) -> bool:
    """Whether matching_string already failed for these arguments (no retry will do better)."""
    return (pattern, min_length, max_length) in _IMPOSSIBLE


def _attempts(
    items: Sequence[Item], lo: int, hi: int, variant: int, soft: int
) -> Iterator[tuple[tuple[int, bool, bool, str], int]]:
    if lo > hi:
        return
    texts = ("", *_lookahead_texts(items))
    for want in _wants(lo, hi, soft):
        for mixed in (False, True):
            for forced in texts:
                for backwards in (True, False):
                    for v in range(2):
                        yield (variant + v, backwards, mixed, forced), want


def _wants(lo: int, hi: int, soft: int) -> Iterator[int]:
    seen = set()
    # Aim short: a string of a few hundred characters shows as much as one of a million.
    for want in (min(hi, soft + 7), *(min(hi, lo + extra) for extra in (7, 0, 1, 3, 15, 256))):
        if want not in seen:
            seen.add(want)
            yield want


def _lookahead_bounds(items: Sequence[Item], gen: _Generator) -> tuple[int, int]:
    """Length bounds that look-aheads such as `^(?=.{8,64}$)` put on the whole string."""
    lo, hi = 0, _UNBOUNDED
    for sub in _leading_lookaheads(items):
        if sub and _is_end(sub[-1]):
            a, b = gen.width(sub[:-1])
            lo, hi = max(lo, a), min(hi, b)
    return lo, hi


def _lookahead_texts(items: Sequence[Item]) -> list[str]:
    """Strings for the look-aheads that open a pattern (`^(?=^\\$)...` wants a leading '$')."""
    texts = []
    for sub in _leading_lookaheads(items):
        gen = _Generator()
        texts.append(gen.sequence(sub, gen.width(sub)[0]))
    return [t for t in texts if t]


def _lookahead_in_place(items: Sequence[Item]) -> Iterator[str]:
    for k, (op, av) in enumerate(items):
        if op is sre.ASSERT and av[0] == 1:
            gen = _Generator()
            prefix = gen.sequence(items[:k], gen.width(items[:k])[0])
            sub = av[1]
            while sub and _is_end(sub[-1]):
                sub = sub[:-1]
            yield prefix + _Generator().sequence(sub, gen.width(sub)[0])


def _leading_lookaheads(items: Sequence[Item]) -> Iterator[Sequence[Item]]:
    for op, av in items:
        if op is sre.AT:
            continue
        if op is not sre.ASSERT or av[0] != 1:
            return
        sub = av[1]
        while sub and sub[0][0] is sre.AT:
            sub = sub[1:]
        yield sub


def _is_end(item: Item) -> bool:
    op, av = item
    if op is sre.AT:
        return av in (sre.AT_END, sre.AT_END_STRING)
    # The translation of Java's `$`: a look-ahead that ends in \Z.
    return op is sre.ASSERT and av[0] == 1 and bool(av[1]) and _is_end(av[1][-1])
