"""Schema `pattern`s evaluated the way AWS evaluates them.

CloudFormation checks patterns with a Java regex engine (java.util.regex): `\\d`, `\\w` and `\\s`
are ASCII-only, `.` and `$` know every line terminator, `\\b` knows Unicode letters, and
Java-only syntax is common in real schemas (`\\p{L}` in 275 of the 1898 corpus schemas,
`\\p{Print}&&[^|:/]`, `[\\w-.]`, `(?i)` in the middle of a pattern, `${1,128}`,
surrogate-pair escapes). Python's `re` reads the same text differently or not at all, so every
user of patterns goes through this module, which translates Java syntax to an equivalent `re`
pattern: character classes become explicit code point sets (_codepoints.py, property tables
in _unicode.py), anchors and boundaries become look-arounds with Java's definitions.

We translate to `re` rather than depend on the `regex` module: it reads `\\p{Print}`, `\\p{Alpha}`
and `\\w` as Unicode where Java means ASCII, so a translation is needed anyway, and a stdlib
pattern is what the instance generator (sre_parse trees) and hypothesis' `from_regex` consume.
Behaviour was checked against OpenJDK 17 (tests/test_patterns.py has the table).
"""

from __future__ import annotations

import functools
import re

from cfngen._patterns._scanner import PatternError
from cfngen._patterns._translator import Translator

__all__ = ["PatternError", "compile_pattern", "java_only_constructs", "search", "translate"]


@functools.lru_cache(maxsize=4096)
def _translate(pattern: str) -> tuple[str, tuple[str, ...]]:
    t = Translator(pattern)
    source = t.translate()
    return source, tuple(sorted(t.constructs))


def translate(pattern: str) -> str:
    """The Python `re` source that matches what Java matches for `pattern`; raises PatternError."""
    return _translate(pattern)[0]


@functools.lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    """Compile a schema pattern with AWS's semantics; raises PatternError."""
    source = translate(pattern)
    try:
        return re.compile(source)
    except re.error as exc:
        raise PatternError(f"cannot be evaluated: {exc.msg}") from None


def java_only_constructs(pattern: str) -> list[str]:
    """Java regex constructs in `pattern` that Python's `re` does not read the same way.

    Syntax only (`\\p{L}`, `&&`, `\\Q...\\E`, `(?i)` after the start, ...): the ASCII
    meaning of `\\d\\w\\s` and Java's line terminators are not listed, as nearly every
    pattern would be. Raises PatternError for a pattern Java would not compile either.
    """
    return list(_translate(pattern)[1])


def search(pattern: str, value: str) -> bool:
    """Whether `value` matches `pattern` as JSON Schema means it (search, not fullmatch)."""
    return compile_pattern(pattern).search(value) is not None
