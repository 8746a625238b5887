"""The structure of a Java pattern (alternation, sequences, quantifiers, groups, anchors)
translated into the `re` source that matches the same strings."""

from __future__ import annotations

import re
import sys

from cfngen._patterns._codepoints import (
    _ALL,
    _LINE_TERMINATORS,
    Ranges,
    _chars,
    _complement,
    _literal,
    _set_source,
)
from cfngen._patterns._scanner import Scanner

_PY311 = sys.version_info >= (3, 11)
_JAVA_FLAGS = frozenset("idmsuxU")


class Translator(Scanner):
    def __init__(self, pattern: str, *, native_atomic: bool = _PY311) -> None:
        super().__init__(pattern)
        #: Whether `re` has possessive quantifiers and atomic groups (Python 3.11+).
        self.native_atomic = native_atomic

    # -- structure

    def translate(self) -> str:
        out = self.alternation()
        if self.pos < len(self.src):
            raise self.error("unmatched closing ')'")
        return out

    def alternation(self) -> str:
        branches = [self.sequence()]
        while self.peek() == "|":
            self.pos += 1
            branches.append(self.sequence())
        return "|".join(branches)

    def sequence(self) -> str:
        items: list[str] = []
        while True:
            c = self.peek()
            if c is None or c in "|)":
                return "".join(items)
            atoms = self.atom()
            if not atoms:
                continue
            *head, (last, zero_width) = atoms
            items.extend(text for text, _ in head)
            items.append(self.quantifier(last, zero_width))

    def quantifier(self, atom: str, zero_width: bool) -> str:
        start = self.pos
        c = self.peek()
        if c in ("*", "+", "?"):
            self.pos += 1
            quant = c
        elif c == "{":
            self.pos += 1
            m = re.compile(r"(\d+)(,(\d*))?\}").match(self.src, self.pos)
            if not m:
                raise self.error("illegal repetition", start)
            self.pos = m.end()
            lo = int(m.group(1))
            if m.group(3):
                if int(m.group(3)) < lo:
                    raise self.error("illegal repetition range", start)
                quant = f"{{{lo},{int(m.group(3))}}}"
            elif m.group(2):
                quant = f"{{{lo},}}"
            else:
                quant = f"{{{lo}}}"
        else:
            return atom
        if zero_width:
            # Java repeats an anchor as happily as anything else (`^(...)${1,128}` is real).
            self.constructs.add("quantified zero-width assertion")
            atom = f"(?:{atom})"
        mode = self.peek()
        if mode == "?":
            self.pos += 1
            return atom + quant + "?"
        if mode == "+":
            self.pos += 1
            self.constructs.add(f"possessive {quant}+")
            if self.native_atomic:
                return atom + quant + "+"
            return self.atomic(atom + quant)
        return atom + quant

    def atomic(self, body: str) -> str:
        # Python 3.10 has no atomic groups: a look-ahead captures what the body matches once,
        # and a back-reference consumes exactly that, which cannot backtrack into the body.
        self.py_groups += 1
        return f"(?=({body}))(?:\\{self.py_groups})"

    def atom(self) -> list[tuple[str, bool]]:
        start = self.pos
        c = self.next()
        if c == "(":
            group = self.group(start)
            return [] if group is None else [group]
        if c == "[":
            return [(self.ci(_set_source(self.char_class(start))), False)]
        if c == ".":
            return [(_set_source(self.dot()), False)]
        if c == "^":
            return [(self.caret(), True)]
        if c == "$":
            return [(self.dollar(), True)]
        if c == "\\":
            return self.escape(start)
        if c in "*+?":
            raise self.error(f"dangling meta character {c!r}", start)
        if c == "{":
            raise self.error("illegal repetition", start)
        return [(self.ci(_literal(ord(c)), c.lower() != c.upper()), False)]

    def dot(self) -> Ranges:
        if "s" in self.flags:
            return _ALL
        if "d" in self.flags:
            return _complement(_chars("\n"))
        return _complement(_LINE_TERMINATORS)

    def caret(self) -> str:
        if "m" not in self.flags:
            return "^"
        if "d" in self.flags:
            return "(?:\\A|(?<=\\n)(?!\\Z))"
        return "(?:\\A|(?<=[\\n\\x85\\u2028\\u2029])(?!\\Z)|(?<=\\r)(?!\\n)(?!\\Z))"

    def dollar(self) -> str:
        if "d" in self.flags:
            return "(?:(?=\\n)|\\Z)" if "m" in self.flags else "(?=\\n?\\Z)"
        if "m" in self.flags:
            return "(?:(?=\\r\\n)|(?<!\\r)(?=\\n)|(?=[\\r\\x85\\u2028\\u2029])|\\Z)"
        # Java: the end, or before a line terminator that ends the input (never inside \r\n).
        return "(?=(?:\\r\\n|(?<!\\r)\\n|[\\r\\x85\\u2028\\u2029])?\\Z)"

    def group(self, start: int) -> tuple[str, bool] | None:
        saved = self.flags
        if self.peek() != "?":
            return self.capture(start, saved)
        self.pos += 1
        c = self.raw_next()
        if c == ":":
            body = self.close(self.alternation(), saved)
            return f"(?:{body})", False
        if c in "=!":
            body = self.close(self.alternation(), saved)
            return f"(?{c}{body})", True
        if c == ">":
            self.constructs.add("(?>...)")
            body = self.close(self.alternation(), saved)
            return (f"(?>{body})" if self.native_atomic else self.atomic(body)), False
        if c == "<":
            if self.src.startswith(("=", "!"), self.pos):
                kind = self.raw_next()
                body = self.close(self.alternation(), saved)
                return f"(?<{kind}{body})", True
            m = re.compile(r"([a-zA-Z][a-zA-Z0-9]*)>").match(self.src, self.pos)
            if not m:
                raise self.error("capturing group name does not start with a Latin letter")
            name = m.group(1)
            if name in self.names:
                raise self.error(f"named capturing group <{name}> is already defined")
            self.names.add(name)
            self.pos = m.end()
            self.constructs.add("(?<name>...)")
            return self.capture(start, saved, name)
        self.pos -= 1
        on: set[str] = set()
        off: set[str] = set()
        target = on
        while True:
            c = self.raw_next()
            if c in _JAVA_FLAGS:
                target.add(c)
            elif c == "-" and target is on:
                target = off
            elif c in "):":
                break
            else:
                raise self.error("unknown inline modifier", self.pos - 1)
        text = self.src[start : self.pos]
        if start > 0 or c == ":" or on & set("dU") or off:
            self.constructs.add(text + ("...)" if c == ":" else ""))
        flags = (self.flags | on) - off
        if c == ")":
            self.flags = flags
            return None
        self.flags = flags
        body = self.close(self.alternation(), saved)
        return f"(?:{body})", False

    def capture(
        self, start: int, saved: frozenset[str], name: str | None = None
    ) -> tuple[str, bool]:
        self.java_groups += 1
        self.py_groups += 1
        number = self.java_groups
        self.group_map[number] = self.py_groups
        self.open_groups.add(number)
        body = self.close(self.alternation(), saved)
        self.open_groups.discard(number)
        prefix = f"(?P<{name}>" if name else "("
        return f"{prefix}{body})", False

    def close(self, body: str, saved: frozenset[str]) -> str:
        if self.peek() != ")":
            raise self.error("unclosed group")
        self.pos += 1
        self.flags = saved
        return body
