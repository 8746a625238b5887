"""Sets of code points, Java's character classes and Unicode properties among them, and the
`re` source that matches one (see cfngen/_patterns/__init__.py)."""

from __future__ import annotations

import functools
from collections.abc import Iterable

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
    from cfngen._patterns._unicode import GENERAL_CATEGORIES

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
    from cfngen._patterns._unicode import BINARY_PROPERTIES

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
