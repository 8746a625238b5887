"""Schema `pattern`s evaluated the way AWS evaluates them.

CloudFormation checks patterns with a Java regex engine (java.util.regex): `\\d`, `\\w` and `\\s`
are ASCII-only, `.` and `$` know every line terminator, `\\b` knows Unicode letters, and
Java-only syntax is common in real schemas (`\\p{L}` in 275 of the 1898 corpus schemas,
`\\p{Print}&&[^|:/]`, `[\\w-.]`, `(?i)` in the middle of a pattern, `${1,128}`,
surrogate-pair escapes). Python's `re` reads the same text differently or not at all, so every
user of patterns goes through this module, which translates Java syntax to an equivalent `re`
pattern: character classes become explicit code point sets (property tables in
_patterns_unicode), anchors and boundaries become look-arounds with Java's definitions.

We translate to `re` rather than depend on the `regex` module: it reads `\\p{Print}`, `\\p{Alpha}`
and `\\w` as Unicode where Java means ASCII, so a translation is needed anyway, and a stdlib
pattern is what the instance generator (sre_parse trees) and hypothesis' `from_regex` consume.
Behaviour was checked against OpenJDK 17 (tests/test_patterns.py has the table).
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from collections.abc import Iterable

__all__ = ["PatternError", "compile_pattern", "java_only_constructs", "search", "translate"]


class PatternError(ValueError):
    """A pattern that neither Python nor the translation of Java syntax can compile."""


# --- code point sets ---------------------------------------------------------------------

_MAX = 0x10FFFF
Ranges = tuple[tuple[int, int], ...]


def _norm(pairs: Iterable[tuple[int, int]]) -> Ranges:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(pairs):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return tuple(out)


def _union(*sets: Ranges) -> Ranges:
    return _norm(pair for s in sets for pair in s)


def _complement(ranges: Ranges) -> Ranges:
    out = []
    nxt = 0
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= _MAX:
        out.append((nxt, _MAX))
    return tuple(out)


def _intersect(a: Ranges, b: Ranges) -> Ranges:
    return _complement(_union(_complement(a), _complement(b)))


def _minus(a: Ranges, b: Ranges) -> Ranges:
    return _intersect(a, _complement(b))


def _chars(text: str) -> Ranges:
    return _norm((ord(c), ord(c)) for c in text)


def _span(lo: int, hi: int) -> Ranges:
    return ((lo, hi),)


_ALL: Ranges = ((0, _MAX),)
_DIGIT = _span(0x30, 0x39)
_LOWER = _span(0x61, 0x7A)
_UPPER = _span(0x41, 0x5A)
_ALPHA = _union(_LOWER, _UPPER)
_ALNUM = _union(_ALPHA, _DIGIT)
_WORD = _union(_ALNUM, _chars("_"))
_SPACE = _chars(" \t\n\x0b\f\r")
_PUNCT = _chars("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_LINE_TERMINATORS = _chars("\n\r\x85\u2028\u2029")
_HSPACE = _union(_chars(" \t\xa0\u1680\u180e\u202f\u205f\u3000"), _span(0x2000, 0x200A))
_VSPACE = _chars("\n\x0b\f\r\x85\u2028\u2029")

#: Java's POSIX classes (US-ASCII unless the U flag is on).
_POSIX: dict[str, Ranges] = {
    "Lower": _LOWER,
    "Upper": _UPPER,
    "ASCII": _span(0, 0x7F),
    "Alpha": _ALPHA,
    "Digit": _DIGIT,
    "Alnum": _ALNUM,
    "Punct": _PUNCT,
    "Graph": _union(_ALNUM, _PUNCT),
    "Print": _span(0x20, 0x7E),
    "Blank": _chars(" \t"),
    "Cntrl": _union(_span(0, 0x1F), _chars("\x7f")),
    "XDigit": _union(_DIGIT, _chars("abcdefABCDEF")),
    "Space": _SPACE,
}


@functools.cache
def _category_runs() -> tuple[tuple[int, int, str], ...]:
    from cfngen._patterns_unicode import GENERAL_CATEGORIES

    words = GENERAL_CATEGORIES.split()
    starts = [int(w[: w.index(":")], 16) for w in words]
    ends = [*(s - 1 for s in starts[1:]), _MAX]
    return tuple((lo, hi, w[-2:]) for lo, hi, w in zip(starts, ends, words, strict=True))


@functools.cache
def _category(name: str) -> Ranges | None:
    """A general category (`Lu`), a major class (`L`), or `LC`; None when there is no such."""
    if name == "LC":
        wanted = {"Lu", "Ll", "Lt"}
    elif len(name) == 1 and name in "LMNPSZC":
        wanted = {cat for _, _, cat in _category_runs() if cat[0] == name}
    else:
        wanted = {name}
    out: list[tuple[int, int]] = []
    for lo, hi, cat in _category_runs():
        if cat in wanted:
            if out and out[-1][1] + 1 == lo:
                out[-1] = (out[-1][0], hi)
            else:
                out.append((lo, hi))
    return tuple(out) or None


@functools.cache
def _binary(name: str) -> Ranges:
    from cfngen._patterns_unicode import BINARY_PROPERTIES

    pairs = []
    for word in BINARY_PROPERTIES[name].split():
        lo, hi = word.split("-")
        pairs.append((int(lo, 16), int(hi, 16)))
    return _norm(pairs)


def _cat(*names: str) -> Ranges:
    return _union(*(_category(n) or () for n in names))


def _unicode_property(key: str) -> Ranges | None:
    """Java's `\\p{IsX}` binary properties (CharPredicates.forUnicodeProperty), by upper name."""
    key = key.replace("_", "")
    if key == "ALPHABETIC":
        return _binary("Alphabetic")
    if key == "ASSIGNED":
        return _complement(_cat("Cn"))
    if key == "CONTROL":
        return _cat("Cc")
    if key == "HEXDIGIT":
        return _binary("Hex_Digit")
    if key == "IDEOGRAPHIC":
        return _binary("Ideographic")
    if key == "JOINCONTROL":
        return _binary("Join_Control")
    if key == "LETTER":
        return _cat("L")
    if key == "LOWERCASE":
        return _binary("Lowercase")
    if key == "NONCHARACTERCODEPOINT":
        return _binary("Noncharacter_Code_Point")
    if key == "TITLECASE":
        return _cat("Lt")
    if key == "PUNCTUATION":
        return _cat("P")
    if key == "UPPERCASE":
        return _binary("Uppercase")
    if key == "WHITESPACE":
        return _binary("White_Space")
    if key == "DIGIT":
        return _cat("Nd")
    if key == "WORD":
        return _union(
            _binary("Alphabetic"), _cat("Mn", "Me", "Mc", "Nd", "Pc"), _binary("Join_Control")
        )
    if key == "ALNUM":
        return _union(_binary("Alphabetic"), _cat("Nd"))
    if key == "BLANK":
        return _union(_cat("Zs"), _chars("\t"))
    if key == "GRAPH":
        return _complement(_union(_binary("White_Space"), _cat("Cc", "Cs", "Cn")))
    if key == "PRINT":
        graph = _unicode_property("GRAPH") or ()
        return _minus(_union(graph, _cat("Zs"), _chars("\t")), _cat("Cc"))
    return None


def _java_property(name: str) -> Ranges | None:
    """`\\p{javaX}`: the java.lang.Character method isX."""
    if name == "javaLowerCase":
        return _binary("Lowercase")
    if name == "javaUpperCase":
        return _binary("Uppercase")
    if name == "javaAlphabetic":
        return _binary("Alphabetic")
    if name == "javaIdeographic":
        return _binary("Ideographic")
    if name == "javaTitleCase":
        return _cat("Lt")
    if name == "javaDigit":
        return _cat("Nd")
    if name == "javaDefined":
        return _complement(_cat("Cn"))
    if name == "javaLetter":
        return _cat("L")
    if name == "javaLetterOrDigit":
        return _cat("L", "Nd")
    if name == "javaSpaceChar":
        return _cat("Zs", "Zl", "Zp")
    if name == "javaWhitespace":
        spaces = _minus(_cat("Zs", "Zl", "Zp"), _chars("\xa0\u2007\u202f"))
        return _union(spaces, _span(0x9, 0xD), _span(0x1C, 0x1F))
    if name == "javaISOControl":
        return _union(_span(0, 0x1F), _span(0x7F, 0x9F))
    if name == "javaMirrored":
        return _binary("Bidi_Mirrored")
    ignorable = _union(_span(0, 8), _span(0xE, 0x1B), _span(0x7F, 0x9F), _cat("Cf"))
    if name == "javaIdentifierIgnorable":
        return ignorable
    if name == "javaJavaIdentifierStart":
        return _cat("L", "Nl", "Sc", "Pc")
    if name == "javaJavaIdentifierPart":
        return _union(_cat("L", "Sc", "Pc", "Nd", "Nl", "Mc", "Mn"), ignorable)
    # ID_Start/ID_Continue without Other_ID_Start, which no table here carries.
    if name == "javaUnicodeIdentifierStart":
        return _cat("L", "Nl")
    if name == "javaUnicodeIdentifierPart":
        return _union(_cat("L", "Nl", "Mn", "Mc", "Nd", "Pc"), ignorable)
    return None


def _unicode_posix(name: str) -> Ranges | None:
    """POSIX names under the U flag (UNICODE_CHARACTER_CLASS)."""
    table = {
        "Lower": "LOWERCASE",
        "Upper": "UPPERCASE",
        "Alpha": "ALPHABETIC",
        "Digit": "DIGIT",
        "Alnum": "ALNUM",
        "Punct": "PUNCTUATION",
        "Graph": "GRAPH",
        "Print": "PRINT",
        "Blank": "BLANK",
        "Cntrl": "CONTROL",
        "Space": "WHITESPACE",
    }
    if name == "XDigit":
        return _union(_cat("Nd"), _binary("Hex_Digit"))
    return _unicode_property(table[name]) if name in table else None


# --- the translator ------------------------------------------------------------------------

_PY311 = sys.version_info >= (3, 11)
_JAVA_FLAGS = frozenset("idmsuxU")
_WS_COMMENTS = frozenset(" \t\n\x0b\f\r")


def _hex(cp: int) -> str:
    if cp < 0x100:
        return f"\\x{cp:02x}"
    if cp < 0x10000:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def _class_char(cp: int) -> str:
    c = chr(cp)
    return c if c.isascii() and c.isalnum() else _hex(cp)


def _literal(cp: int) -> str:
    c = chr(cp)
    if c.isascii() and (c.isalnum() or c == "_"):
        return c
    if c.isascii() and c.isprintable() and c != " ":
        return "\\" + c
    return _hex(cp)


def _set_source(ranges: Ranges) -> str:
    if not ranges:
        return "[^\\x00-\\U0010ffff]"
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return _literal(ranges[0][0])

    def body(rs: Ranges) -> str:
        parts = []
        for lo, hi in rs:
            if lo == hi:
                parts.append(_class_char(lo))
            elif hi == lo + 1:
                parts.append(_class_char(lo) + _class_char(hi))
            else:
                parts.append(f"{_class_char(lo)}-{_class_char(hi)}")
        return "".join(parts)

    complement = _complement(ranges)
    if not complement:
        return "(?s:.)"  # compiles 50 times faster than the same class spelt as a range
    positive = f"[{body(ranges)}]"
    negative = f"[^{body(complement)}]"
    return negative if len(negative) < len(positive) else positive


class _Translator:
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
            if _PY311:
                return atom + quant + "+"
            return self.atomic(atom + quant)
        return atom + quant

    def atomic(self, body: str) -> str:
        # Python 3.10 has no atomic groups: a look-ahead captures what the body matches once,
        # and a back-reference consumes exactly that, which cannot backtrack into the body.
        self.py_groups += 1
        return f"(?=({body}))(?:\\{self.py_groups})"

    def ci(self, text: str, cased: bool = True) -> str:
        if "i" not in self.flags or not cased:
            return text
        return f"(?i:{text})" if "u" in self.flags or "U" in self.flags else f"(?ai:{text})"

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
            return (f"(?>{body})" if _PY311 else self.atomic(body)), False
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


@functools.lru_cache(maxsize=4096)
def _translate(pattern: str) -> tuple[str, tuple[str, ...]]:
    t = _Translator(pattern)
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
