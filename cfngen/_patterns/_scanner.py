"""The lexical level of a Java pattern: reading characters (with the `x` flag's comments),
escapes, back-references, properties and character classes, as code point sets."""

from __future__ import annotations

import re
import unicodedata

from cfngen._patterns._codepoints import (
    _ALL,
    _ALPHA,
    _DIGIT,
    _HSPACE,
    _MAX,
    _POSIX,
    _SPACE,
    _VSPACE,
    _WORD,
    Ranges,
    _binary,
    _cat,
    _category,
    _chars,
    _complement,
    _intersect,
    _java_property,
    _literal,
    _set_source,
    _span,
    _unicode_posix,
    _unicode_property,
    _union,
)

_WS_COMMENTS = frozenset(" \t\n\x0b\f\r")


class PatternError(ValueError):
    """A pattern that neither Python nor the translation of Java syntax can compile."""


class Scanner:
    def __init__(self, pattern: str) -> None:
        self.src = pattern
        self.pos = 0
        self.flags: frozenset[str] = frozenset()
        self.constructs: set[str] = set()
        self.java_groups = 0
        self.py_groups = 0
        self.group_map: dict[int, int] = {}
        self.open_groups: set[int] = set()
        self.names: set[str] = set()

    # -- scanning

    def error(self, message: str, pos: int | None = None) -> PatternError:
        where = self.pos if pos is None else pos
        return PatternError(f"{message} at position {where}")

    def _skip_comments(self) -> None:
        if "x" not in self.flags:
            return
        while self.pos < len(self.src):
            c = self.src[self.pos]
            if c in _WS_COMMENTS:
                self.pos += 1
            elif c == "#":
                while self.pos < len(self.src) and self.src[self.pos] not in "\n\r\x85\u2028\u2029":
                    self.pos += 1
            else:
                return

    def peek(self, offset: int = 0) -> str | None:
        self._skip_comments()
        i = self.pos + offset
        return self.src[i] if i < len(self.src) else None

    def raw_next(self) -> str:
        if self.pos >= len(self.src):
            raise self.error("unexpected end of pattern")
        c = self.src[self.pos]
        self.pos += 1
        return c

    def next(self) -> str:
        self._skip_comments()
        return self.raw_next()

    def ci(self, text: str, cased: bool = True) -> str:
        if "i" not in self.flags or not cased:
            return text
        return f"(?i:{text})" if "u" in self.flags or "U" in self.flags else f"(?ai:{text})"

    # -- escapes

    def escape(self, start: int) -> list[tuple[str, bool]]:
        c = self.raw_next()
        if c == "Q":
            end = self.src.find("\\E", self.pos)
            quoted = self.src[self.pos :] if end < 0 else self.src[self.pos : end]
            self.pos = len(self.src) if end < 0 else end + 2
            self.constructs.add("\\Q...\\E")
            return [(self.ci(_literal(ord(q)), q.lower() != q.upper()), False) for q in quoted]
        if c in "123456789":
            return [(self.backref(int(c)), False)]
        if c == "k":
            m = re.compile(r"<([a-zA-Z][a-zA-Z0-9]*)>").match(self.src, self.pos)
            if not m:
                raise self.error("\\k is not followed by '<' for named capturing group", start)
            self.pos = m.end()
            if m.group(1) not in self.names:
                raise self.error(f"named capturing group <{m.group(1)}> does not exist", start)
            self.constructs.add("\\k<name>")
            return [(self.ci(f"(?P={m.group(1)})"), False)]
        if c in "bB":
            if self.src.startswith("{", self.pos):
                raise self.error("\\b{g} grapheme boundaries are not supported", start)
            # Java 8-18 (JDK-8264160 changed it in 19) count letters, digits and '_' as word
            # characters here, unlike \w; Python's Unicode \b differs only on numerals such as
            # '½' and 'Ⅻ', and spelling Java's set out would cost 40 ms per \b to compile.
            return [(f"\\{c}", True)]
        if c == "A":
            return [("\\A", True)]
        if c == "z":
            self.constructs.add("\\z")
            return [("\\Z", True)]
        if c == "Z":
            self.constructs.add("\\Z")
            return [("(?=(?:\\r\\n|(?<!\\r)\\n|[\\r\\x85\\u2028\\u2029])?\\Z)", True)]
        if c == "G":
            raise self.error("\\G is not supported", start)
        if c == "X":
            raise self.error("\\X (grapheme clusters) is not supported", start)
        if c == "R":
            self.constructs.add("\\R")
            return [("(?:\\r\\n|[\\n\\x0b\\f\\r\\x85\\u2028\\u2029])", False)]
        ranges = self.class_escape(c, start)
        if ranges is not None:
            return [(self.ci(_set_source(ranges)), False)]
        cp = self.char_escape(c, start)
        return [(self.ci(_literal(cp), chr(cp).lower() != chr(cp).upper()), False)]

    def backref(self, number: int) -> str:
        while True:
            d = self.peek()
            if d is None or not d.isdigit() or number * 10 + int(d) > self.java_groups:
                break
            number = number * 10 + int(d)
            self.pos += 1
        if number not in self.group_map or number in self.open_groups:
            # Java compiles a reference to a group that is not there (yet) and never matches it.
            return "(?!)"
        return self.ci(f"(?:\\{self.group_map[number]})")

    def class_escape(self, c: str, start: int) -> Ranges | None:
        uni = "U" in self.flags
        if c in "dD":
            r = _cat("Nd") if uni else _DIGIT
        elif c in "wW":
            r = (_unicode_property("WORD") or ()) if uni else _WORD
        elif c in "sS":
            r = _binary("White_Space") if uni else _SPACE
        elif c in "hH":
            self.constructs.add(f"\\{c}")
            r = _HSPACE
        elif c in "vV":
            self.constructs.add(f"\\{c}")
            r = _VSPACE
        elif c in "pP":
            r = self.property(c, start)
        else:
            return None
        return _complement(r) if c.isupper() else r

    def property(self, c: str, start: int) -> Ranges:
        if self.src.startswith("{", self.pos):
            end = self.src.find("}", self.pos)
            if end < 0:
                raise self.error("unclosed character family", start)
            name = self.src[self.pos + 1 : end]
            self.pos = end + 1
        else:
            name = self.raw_next()
        self.constructs.add(self.src[start : self.pos])
        ranges = self.lookup_property(name)
        if ranges is None:
            raise self.error(f"unknown character property name {{{name}}}", start)
        return ranges

    def lookup_property(self, name: str) -> Ranges | None:
        ci = "i" in self.flags
        if "=" in name:
            key, _, value = name.partition("=")
            if key in ("gc", "general_category"):
                return self.category(value, ci)
            if key in ("sc", "script", "blk", "block"):
                raise self.error("Unicode scripts and blocks are not supported")
            return None
        if name.startswith("In"):
            raise self.error("Unicode blocks are not supported")
        if name.startswith("Is"):
            short = name[2:]
            found = _unicode_property(short.upper())
            if found is not None:
                if ci and short.upper() in ("LOWERCASE", "UPPERCASE", "TITLECASE"):
                    return _union(_binary("Lowercase"), _binary("Uppercase"), _cat("Lt"))
                return found
            found = self.category(short, ci)
            if found is not None:
                return found
            raise self.error("Unicode scripts are not supported")
        if "U" in self.flags:
            found = _unicode_posix(name)
            if found is not None:
                return found
        if name in _POSIX:
            if ci and name in ("Lower", "Upper"):
                return _ALPHA
            return _POSIX[name]
        if name.startswith("java"):
            if ci and name in ("javaLowerCase", "javaUpperCase", "javaTitleCase"):
                return _union(_binary("Lowercase"), _binary("Uppercase"), _cat("Lt"))
            return _java_property(name)
        if name == "all":
            return _ALL
        if name == "LD":
            return _cat("L", "Nd")
        if name == "L1":
            return _span(0, 0xFF)
        return self.category(name, ci)

    @staticmethod
    def category(name: str, ci: bool) -> Ranges | None:
        if ci and name in ("Lu", "Ll", "Lt"):
            return _category("LC")
        return _category(name)

    def char_escape(self, c: str, start: int) -> int:
        simple = {"t": 9, "n": 10, "r": 13, "f": 12, "a": 7, "e": 27}
        if c in simple:
            if c == "e":
                self.constructs.add("\\e")
            return simple[c]
        if c == "0":
            m = re.compile(r"[0-3][0-7]{2}|[0-7]{1,2}").match(self.src, self.pos)
            if not m:
                raise self.error("illegal octal escape sequence", start)
            self.pos = m.end()
            self.constructs.add("\\0" + m.group())
            return int(m.group(), 8)
        if c == "c":
            self.constructs.add("\\c")
            return ord(self.raw_next()) ^ 64
        if c == "x":
            if self.src.startswith("{", self.pos):
                m = re.compile(r"\{([0-9a-fA-F]+)\}").match(self.src, self.pos)
                if not m or int(m.group(1), 16) > _MAX:
                    raise self.error("illegal hexadecimal escape sequence", start)
                self.pos = m.end()
                self.constructs.add("\\x{...}")
                return int(m.group(1), 16)
            m = re.compile(r"[0-9a-fA-F]{2}").match(self.src, self.pos)
            if not m:
                raise self.error("illegal hexadecimal escape sequence", start)
            self.pos = m.end()
            return int(m.group(), 16)
        if c == "u":
            m = re.compile(r"[0-9a-fA-F]{4}").match(self.src, self.pos)
            if not m:
                raise self.error("illegal Unicode escape sequence", start)
            self.pos = m.end()
            cp = int(m.group(), 16)
            if 0xD800 <= cp <= 0xDBFF:
                low = re.compile(r"\\u([dD][c-fC-F][0-9a-fA-F]{2})").match(self.src, self.pos)
                if low:
                    # Java patterns are UTF-16 text: an escaped surrogate pair is one code point.
                    self.pos = low.end()
                    self.constructs.add("\\uD8xx\\uDCxx surrogate pair")
                    return 0x10000 + ((cp - 0xD800) << 10) + (int(low.group(1), 16) - 0xDC00)
            return cp
        if c == "N":
            m = re.compile(r"\{([^}]*)\}").match(self.src, self.pos)
            if not m:
                raise self.error("\\N is not followed by a {name}", start)
            try:
                ch = unicodedata.lookup(m.group(1))
            except KeyError:
                raise self.error(f"unknown character name [{m.group(1)}]", start) from None
            self.pos = m.end()
            return ord(ch)
        if c.isascii() and c.isalnum():
            raise self.error(f"illegal/unsupported escape sequence \\{c}", start)
        return ord(c)

    # -- character classes

    def char_class(self, start: int) -> Ranges:
        """A Java class after its '[': unions, nested classes, `&&` intersections, negation."""
        negate = False
        if self.peek() == "^":
            self.pos += 1
            negate = True
        result = self.class_operand(start, first=True)
        while self.src.startswith("&&", self.pos):
            self.pos += 2
            self.constructs.add("&&")
            right = self.class_operand(start, first=False)
            if right is not None:
                result = right if result is None else _intersect(result, right)
        if self.peek() != "]":
            raise self.error("unclosed character class", start)
        self.pos += 1
        ranges = result or ()
        return _complement(ranges) if negate else ranges

    def class_operand(self, start: int, first: bool) -> Ranges | None:
        acc: Ranges | None = None
        while True:
            c = self.peek()
            if c is None:
                raise self.error("unclosed character class", start)
            if c == "]" and (acc is not None or not first):
                return acc
            if c == "&" and self.src.startswith("&&", self.pos):
                return acc
            if c == "[":
                self.constructs.add("nested [...] class")
                nested_start = self.pos
                self.pos += 1
                item = self.char_class(nested_start)
            else:
                item = self.class_item(start)
            acc = item if acc is None else _union(acc, item)
            first = False

    def class_item(self, start: int) -> Ranges:
        item_start = self.pos
        c = self.next()
        if c == "\\":
            e = self.raw_next()
            if e == "Q":
                end = self.src.find("\\E", self.pos)
                quoted = self.src[self.pos :] if end < 0 else self.src[self.pos : end]
                self.pos = len(self.src) if end < 0 else end + 2
                self.constructs.add("\\Q...\\E")
                return _chars(quoted)
            ranges = self.class_escape(e, item_start)
            if ranges is not None:
                if self.peek() == "-" and self.peek(1) not in (None, "]", "["):
                    # Java reads `[\w-.]` as \w, '-' and '.'; Python calls it a bad range.
                    self.constructs.add(f"[\\{e}-...]")
                return ranges
            if e in "123456789":
                raise self.error(f"illegal/unsupported escape sequence \\{e}", item_start)
            lo = self.char_escape(e, item_start)
        else:
            lo = ord(c)
        if self.peek() == "-" and self.peek(1) not in (None, "]", "["):
            self.pos += 1
            d = self.next()
            if d == "\\":
                e = self.raw_next()
                if e in "dDwWsShHvVpPQ" or e in "123456789":
                    raise self.error("illegal character range", item_start)
                hi = self.char_escape(e, item_start)
            else:
                hi = ord(d)
            if hi < lo:
                raise self.error("illegal character range", item_start)
            return _span(lo, hi)
        return _span(lo, lo)
