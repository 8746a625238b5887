"""Schema `pattern`s evaluated the way AWS evaluates them.

CloudFormation checks patterns with a Java regex engine: `\\d`, `\\w` and `\\s` are ASCII-only,
and Java-only syntax such as `\\p{Alpha}` or `\\p{L}` is common in real schemas. Python's `re`
reads the same text differently, so every user of patterns goes through this module.

STUB: the interface is fixed; the translation is being completed (see issue 5).
"""

from __future__ import annotations

import functools
import re


class PatternError(ValueError):
    """A pattern that neither Python nor the translation of Java syntax can compile."""


@functools.lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    """Compile a schema pattern with AWS's semantics; raises PatternError."""
    try:
        return re.compile(pattern, re.ASCII)
    except re.error as exc:
        raise PatternError(str(exc)) from None


def java_only_constructs(pattern: str) -> list[str]:
    """Java regex constructs in `pattern` that Python's `re` does not read the same way."""
    return sorted(set(re.findall(r"\\[pP]\{[^}]*\}|\\[pP][A-Za-z]", pattern)))


def search(pattern: str, value: str) -> bool:
    """Whether `value` matches `pattern` as JSON Schema means it (search, not fullmatch)."""
    return compile_pattern(pattern).search(value) is not None
