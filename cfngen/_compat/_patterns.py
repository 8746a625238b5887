"""Whether a new pattern visibly accepts everything an old one did.

Deciding whether one regular expression's language contains another's is hard in general and
impossible for the features ECMA-262 patterns have (backreferences, lookaround), so this only
recognises the change people make to widen a pattern on purpose: new alternatives beside the
old ones (`^a$` -> `^a$|^b$`, `^(a|b)$` -> `^(a|b|c)$`), or the same pattern. Anything else
is "possibly breaking": major unless the user accepts it.
"""

from __future__ import annotations


def widens(old: str, new: str) -> bool:
    if old == new:
        return True
    before = _alternatives(old)
    after = _alternatives(new)
    return before is not None and after is not None and before <= after


def _alternatives(pattern: str) -> frozenset[str] | None:
    """The pattern's top-level alternatives, each anchored as the whole pattern anchors them
    (`^(?:a|b)$` -> {`^a$`, `^b$`}); None when the pattern cannot be split safely."""
    branches = _split(pattern)
    if branches is None:
        return None
    if len(branches) == 1:
        inner = _anchored_group(pattern)
        if inner is not None:
            parts = _split(inner)
            if parts is not None and len(parts) > 1:
                return frozenset(f"^{p}$" for p in parts)
    return frozenset(branches)


def _anchored_group(pattern: str) -> str | None:
    """`X` of `^(X)$` or `^(?:X)$` when the group spans the whole pattern."""
    for opening in ("^(?:", "^("):
        if pattern.startswith(opening) and pattern.endswith(")$"):
            inner = pattern[len(opening) : -2]
            if _split(inner) is not None:
                return inner
    return None


def _split(pattern: str) -> list[str] | None:
    """Split on `|` outside groups and classes; None if the pattern is unbalanced."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    escaped = in_class = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return None
        elif char == "|" and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    if depth or in_class or escaped:
        return None
    parts.append("".join(current))
    return parts
