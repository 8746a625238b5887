"""`-k EXPR`: choose tests by name, the way pytest's -k does.

EXPR is words joined with `and`, `or`, `not` and parentheses; a word matches a test whose name
contains it, ignoring case (`-k read`, `-k "delete and not list"`, `-k "create_read or
not_updatable"`). Hand-written: pytest's own parser is private API, and pytest is not a
runtime dependency.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from cfngen._errors import CfngenError

Matcher = Callable[[str], bool]
#: Words, operators and parentheses in one -k expression.
MAX_TOKENS = 100
_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")


def compile_expression(expression: str) -> Matcher:
    """A predicate over test names; raises CfngenError for a malformed expression."""
    tokens = _tokenize(expression)
    if not tokens:
        return lambda _name: True
    position = 0

    def fail(why: str) -> CfngenError:
        shown = expression if len(expression) <= 80 else expression[:77] + "..."
        return CfngenError(
            f"-k {shown!r}: {why}",
            'use words joined by and, or, not and parentheses, e.g. -k "delete and not list"',
        )

    # The parser and the matcher it builds recurse once per level: a bound keeps an absurd
    # expression a usage error rather than a RecursionError.
    if len(tokens) > MAX_TOKENS:
        raise fail(f"it is too long ({len(tokens)} words and signs; at most {MAX_TOKENS})")

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        token = tokens[position]
        position += 1
        return token

    def parse_or() -> Matcher:
        left = parse_and()
        while peek() == "or":
            take()
            right = parse_and()
            left = _either(left, right)
        return left

    def parse_and() -> Matcher:
        left = parse_not()
        while peek() == "and":
            take()
            right = parse_not()
            left = _both(left, right)
        return left

    def parse_not() -> Matcher:
        token = peek()
        if token is None:
            raise fail("it ends where a word was expected")
        if token == "not":
            take()
            inner = parse_not()
            return lambda n: not inner(n)
        if token == "(":
            take()
            inner = parse_or()
            if peek() != ")":
                raise fail("a parenthesis is not closed")
            take()
            return inner
        if token in (")", "and", "or"):
            raise fail(f"unexpected {token!r}")
        word = take().lower()
        return lambda n: word in n.lower()

    matcher = parse_or()
    if position != len(tokens):
        raise fail(f"unexpected {tokens[position]!r}")
    return matcher


def _either(a: Matcher, b: Matcher) -> Matcher:
    return lambda name: a(name) or b(name)


def _both(a: Matcher, b: Matcher) -> Matcher:
    return lambda name: a(name) and b(name)


def _tokenize(expression: str) -> list[str]:
    return [match.group(1) for match in _TOKEN.finditer(expression)]
