"""Schema patterns read the way AWS's Java regex engine reads them.

Every expectation in TABLE was checked against OpenJDK 17's java.util.regex;
test_table_agrees_with_java re-checks them with `java` (an oracle: missing, it fails), and the
corpus test compares Java and us on strings made for every pattern in the corpus.
"""

from __future__ import annotations

import importlib
import json
import struct
import subprocess
from pathlib import Path

import pytest

from cfngen._patterns import (
    PatternError,
    compile_pattern,
    java_only_constructs,
    search,
    translate,
)
from tests._wheelhouse import pyenv_python

# (pattern, value, does Java's Matcher.find() succeed)
TABLE = [
    # \d \w \s and their negations are ASCII, inside and outside classes.
    (r"^\d+$", "123", True),
    (r"^\d+$", "\u0661\u0662", False),
    (r"^[\d]+$", "\u0661", False),
    (r"^\w+$", "abc_09", True),
    (r"^\w+$", "é", False),
    (r"^[\w.]+$", "é", False),
    (r"^\W$", "é", True),
    (r"^[^\w]$", "é", True),
    (r"^\s$", "\x0b", True),
    (r"^\s$", "\xa0", False),
    (r"^\s$", "\u2003", False),
    (r"^\S$", "\xa0", True),
    (r"^[\s]$", "\u3000", False),
    (r"^\D$", "\u0661", True),
    # Unicode categories and properties.
    (r"^\p{L}+$", "éÅß漢字", True),
    (r"^\p{L}+$", "a b", False),
    (r"^\pL$", "é", True),
    (r"^\p{IsL}$", "a", True),
    (r"^\p{gc=Lu}$", "A", True),
    (r"^\p{Lu}$", "É", True),
    (r"^\p{Lu}$", "é", False),
    (r"^\p{Lu}$", "\u2160", False),
    (r"^(?i)\p{Lu}$", "a", True),
    (r"^(?i)\p{Ll}$", "A", True),
    (r"^\P{L}$", "1", True),
    (r"^\P{L}$", "a", False),
    (r"^\p{N}+$", "1½٣", True),
    (r"^\p{Z}$", "\u3000", True),
    (r"^\p{Zs}$", "\u3000", True),
    (r"^\p{Cn}$", "\u0378", True),
    (r"^\P{C}+$", "a\u0378", False),
    (r"^[^\p{C}]+$", "ab\u200b", False),
    (r"^\P{M}\p{M}$", "e\u0301", True),
    (r"^\p{IsAlphabetic}$", "\u0345", True),
    (r"^\p{IsAlphabetic}$", "\u2160", True),
    (r"^\p{IsUppercase}$", "\u2160", True),
    (r"^\p{IsPunctuation}$", "¡", True),
    (r"^\p{IsWhite_Space}$", "\x85", True),
    (r"^\p{IsWhiteSpace}$", "\x85", True),
    (r"^\p{IsPrint}$", "é", True),
    (r"^\p{LC}$", "é", True),
    (r"^\p{L1}$", "é", True),
    (r"^\p{all}$", "\n", True),
    # POSIX classes are US-ASCII in Java (unlike the regex module's).
    (r"^\p{Alpha}$", "é", False),
    (r"^\p{Alpha}$", "\u0345", False),
    (r"^\p{Alnum}+$", "aZ9", True),
    (r"^\p{Punct}$", "!", True),
    (r"^\p{Punct}$", "¡", False),
    (r"^\p{Print}$", "é", False),
    (r"^\p{Print}+$", "a b~", True),
    (r"^\p{Graph}$", " ", False),
    (r"^\p{Lower}$", "é", False),
    (r"^(?i)\p{Upper}$", "a", True),
    (r"^\p{ASCII}+$", "a\x7f", True),
    (r"^\p{Blank}$", "\t", True),
    (r"^\p{Cntrl}$", "\x7f", True),
    (r"^\p{XDigit}$", "f", True),
    (r"^\p{Space}$", "\x0b", True),
    # java.lang.Character methods.
    (r"^\p{javaLowerCase}$", "ª", True),
    (r"^\p{javaLowerCase}$", "A", False),
    (r"^\p{javaUpperCase}$", "\u2160", True),
    (r"^\p{javaWhitespace}$", "\xa0", False),
    (r"^\p{javaWhitespace}$", "\x1c", True),
    # Classes: unions, intersections, negation of the whole, '-' after a class escape.
    (r"^[a-c[x-z]]$", "y", True),
    (r"^[a-c[x-z]&&[b-y]]$", "c", True),
    (r"^[a-c[x-z]&&[b-y]]$", "z", False),
    (r"^[\d&&[^5]]$", "5", False),
    (r"^[^\d&&[^5]]$", "5", True),
    (r"^[^\d&&[^5]]$", "4", False),
    (r"^[^a-z&&[aeiou]]$", "b", True),
    (r"^[^a-z&&[aeiou]]$", "a", False),
    (r"^[^a[b]]$", "b", False),
    (r"^[a-z&&]$", "a", True),
    (r"^[&&a]$", "a", True),
    (r"^[a&]$", "&", True),
    (r"^[\p{Print}&&[^|:/]]+$", "ab", True),
    (r"^[\p{Print}&&[^|:/]]+$", "a|", False),
    (r"^[\p{L}||\p{M}]+$", "a|", True),
    (r"^[\w-.]+$", "a-.", True),
    (r"^[\s-_]$", "-", True),
    (r"^[\s-_]$", ".", False),
    (r"^[\w-\.\+]+$", "-", True),
    (r"^[]a]$", "]", True),
    (r"^[^]a]$", "]", False),
    (r"^[-a]$", "-", True),
    (r"^[a-]$", "-", True),
    # `.` and `$` know every Java line terminator; \z, \Z, \A.
    (r"^.$", "\r", False),
    (r"^.$", "\u2028", False),
    (r"^.$", "\U0001f600", True),
    (r"^..$", "\U0001f600", False),
    (r"^(?s).+$", "a\nb", True),
    (r"^a$", "a\r", True),
    (r"^a$", "a\r\n", True),
    (r"^a$", "a\n\n", False),
    (r"^a\Z", "a\r\n", True),
    (r"^a\z", "a\n", False),
    (r"\Aa", "a", True),
    (r"^a|b$", "ba", False),
    (r"(?m)^b", "a\nb", True),
    (r"^a(?m)$", "a\nb", True),
    # Inline flags in the middle apply to the end of their group; (?i) folds ASCII only.
    (r"(a(?i)b)c", "aBc", True),
    (r"(a(?i)b)c", "aBC", False),
    (r"a(?i)b|c", "C", True),
    (r"^(?!(?i)aws)[a-z]+$", "AWSx", False),
    (r"^(?!(?i)aws)[a-z]+$", "awsx", False),
    (r"^(?!(?i)aws)[a-z]+$", "abc", True),
    (r"^(?i)é$", "É", False),
    (r"^(?iu)é$", "É", True),
    (r"^(?i)k$", "\u212a", False),
    (r"^(?x) a b # c\n $", "ab", True),
    (r"^(?x)[a b]$", " ", False),
    # Escapes: \Q...\E, \h, \v, \R, \e, \cX, octal, \x{...}, surrogate pairs.
    (r"^\Qa.b\E*$", "a.bbb", True),
    (r"^[\Q]\E]$", "]", True),
    (r"^\h$", "\xa0", True),
    (r"^\v$", "\u2028", True),
    (r"^\R$", "\r\n", True),
    (r"^\e$", "\x1b", True),
    (r"^\cA$", "\x01", True),
    (r"^\0101$", "A", True),
    (r"^\x{1F600}$", "\U0001f600", True),
    (r"^\ud83d\ude00$", "\U0001f600", True),
    (r"^[\ud83d\ude00]$", "\U0001f600", True),
    (r"^[\u0020-\uD7FF\uE000-\uFFFD\uD800\uDC00-\uDBFF\uDFFF\t]*$", "a\U0001f600", True),
    (r"^[\u0020-\uD7FF\uE000-\uFFFD\uD800\uDC00-\uDBFF\uDFFF\t]*$", "a\n", True),
    (r"^[\u0020-\uD7FF\uE000-\uFFFD\uD800\uDC00-\uDBFF\uDFFF\t]*$", "a\nb", False),
    # Groups: named, atomic, possessive (Python 3.10 has neither), back-references.
    (r"^(?<n>a)\k<n>$", "aa", True),
    (r"^(?>a|ab)c$", "abc", False),
    (r"^(?>ab|a)c$", "abc", True),
    (r"^a++a$", "aaa", False),
    (r"^a*+$", "aaa", True),
    (r"^(a)\1$", "aa", True),
    (r"^(a)\17$", "aa7", True),
    (r"^\17$", "\x0f", False),
    # Quantified anchors, lazy quantifiers, \b with Unicode letters.
    (r"^([a-z]*)${1,128}", "abc", True),
    (r"^x{2,}$", "xxx", True),
    (r"^a{1}?$", "a", True),
    (r"a.*?b", "ab", True),
    (r"\bé\b", " é ", True),
    (r"^a\b", "aé", False),
    # A pattern is a search, not a full match.
    (r"[0-9]", "abc1", True),
    (r"b", "abc", True),
    (r"^b", "abc", False),
    (r"", "anything", True),
]


@pytest.mark.parametrize(("pattern", "value", "expected"), TABLE)
def test_java_semantics(pattern, value, expected):
    assert search(pattern, value) is expected


# Patterns Java refuses to compile (and so do we).
REJECTED = [
    r"{a}",
    r"a{",
    r"x{,2}",
    r"x{3,2}",
    r"[a-\w]",
    r"[z-a]",
    r"(?#comment)",
    r"*a",
    r"a**",
    r"[abc",
    r"(a",
    r"a)",
    r"\p{Foo}",
    r"\p{IsEmoji}",
    r"\p{isl}",
    r"\i",
    r"\0",
    r"\xZZ",
    r"^([a-z,A-Z,0-9,. _\-:/()#,@[\]+=&;\{\}!$*])*$",  # AWS::EC2::SecurityGroup
]


@pytest.mark.parametrize("pattern", REJECTED)
def test_java_rejects(pattern):
    with pytest.raises(PatternError, match="at position"):
        compile_pattern(pattern)


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (r"\p{IsLatin}", "scripts"),
        (r"\p{InGreek}", "blocks"),
        (r"\p{script=Latin}", "scripts"),
        (r"\G", r"\\G"),
        (r"\X", "grapheme"),
    ],
)
def test_unsupported_java_constructs_say_so(pattern, reason):
    with pytest.raises(PatternError, match=reason):
        compile_pattern(pattern)


@pytest.mark.parametrize(
    ("pattern", "constructs"),
    [
        (r"^[a-z0-9-]+$", []),
        (r"^\d{12}$", []),
        (r"(?i)^abc$", []),
        (r"^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$", [r"\p{L}", r"\p{N}", r"\p{Z}"]),
        (r"^\P{C}+$", [r"\P{C}"]),
        (r"^(?s).+$", ["(?s)"]),
        (r"^(?!(?i)aws)x$", ["(?i)"]),
        (r"^[\p{Print}&&[^|:/]]+$", ["&&", "nested [...] class", r"\p{Print}"]),
        (r"^[\w-.]+$", [r"[\w-...]"]),
        (r"^\Qa.b\E$", [r"\Q...\E"]),
        (r"^a\z", [r"\z"]),
        (r"^a\Z", [r"\Z"]),
        (r"^(?<year>\d{4})\k<year>$", ["(?<name>...)", r"\k<name>"]),
        (r"^a*+$", ["possessive *+"]),
        (r"^(?>a)$", ["(?>...)"]),
        (r"^([a-z]*)${1,128}", ["quantified zero-width assertion"]),
        (r"^[\uD800\uDC00-\uDBFF\uDFFF]$", [r"\uD8xx\uDCxx surrogate pair"]),
        (r"\h\v", [r"\h", r"\v"]),
    ],
)
def test_java_only_constructs(pattern, constructs):
    assert java_only_constructs(pattern) == sorted(constructs)


def test_java_only_constructs_rejects_what_java_rejects():
    with pytest.raises(PatternError):
        java_only_constructs(r"[abc")


def test_translation_is_plain_re_without_flags():
    # What the instance generator and hypothesis' from_regex consume.
    import re

    source = translate(r"^[\p{L}\d]+$")
    assert re.compile(source).search("é1")
    assert not re.compile(source).search("\u0661")


def test_unicode_table_is_what_the_script_makes():
    import regex

    table = Path(__file__).parent.parent / "cfngen" / "_patterns" / "_unicode.py"
    assert regex.__version__ in table.read_text(encoding="utf-8").splitlines()[2], (
        f"the table was made with another regex release than {regex.__version__}: install the "
        "one pyproject's dev extra pins, or rerun `python tests/make_unicode_table.py` and pin "
        "the new one"
    )
    maker = importlib.import_module("tests.make_unicode_table")
    assert table.read_text(encoding="utf-8") == maker.render(), (
        "cfngen/_patterns/_unicode.py is out of date: run `python tests/make_unicode_table.py`"
    )


# -- Java itself as the oracle (when a JDK is installed) ------------------------------------

JAVA_ORACLE = r"""
import java.io.*;
import java.util.regex.*;

public class RegexOracle {
    static String dec(String hex) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i + 4 <= hex.length(); i += 4)
            sb.append((char) Integer.parseInt(hex.substring(i, i + 4), 16));
        return sb.toString();
    }
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));
        String line, lastPattern = null, error = null;
        Pattern compiled = null;
        while ((line = in.readLine()) != null) {
            int tab = line.indexOf('\t');
            String pattern = dec(line.substring(0, tab));
            if (!pattern.equals(lastPattern)) {
                lastPattern = pattern; error = null; compiled = null;
                try { compiled = Pattern.compile(pattern); }
                catch (PatternSyntaxException e) { error = e.getDescription(); }
            }
            if (error != null) out.println("E");
            else out.println(compiled.matcher(dec(line.substring(tab + 1))).find() ? "1" : "0");
        }
        out.flush();
    }
}
"""


def _utf16_hex(text: str) -> str:
    data = text.encode("utf-16-le", "surrogatepass")
    return "".join(f"{u:04x}" for u in struct.unpack(f"<{len(data) // 2}H", data))


def _java_find(java: str, tmp_path: Path, cases: list[tuple[str, str]]) -> list[str]:
    source = tmp_path / "RegexOracle.java"
    source.write_text(JAVA_ORACLE, encoding="utf-8")
    lines = "".join(f"{_utf16_hex(p)}\t{_utf16_hex(v)}\n" for p, v in cases)
    result = subprocess.run(
        [java, str(source)], input=lines, capture_output=True, text=True, check=False
    )
    # A JDK older than 11 cannot run a source file.
    assert result.returncode == 0, f"java could not run the oracle: {result.stderr[:300]}"
    return result.stdout.split()


@pytest.mark.oracle
def test_table_agrees_with_java(tmp_path, oracle_tool):
    cases = [(p, v) for p, v, _ in TABLE] + [(p, "") for p in REJECTED]
    verdicts = _java_find(oracle_tool("java"), tmp_path, cases)
    expected = ["1" if e else "0" for _, _, e in TABLE] + ["E"] * len(REJECTED)
    disagreements = [
        (case, java, ours)
        for case, java, ours in zip(cases, verdicts, expected, strict=True)
        if java != ours
    ]
    assert disagreements == []


def _corpus_patterns() -> list[str]:
    from tests._corpus import corpus

    found: dict[str, None] = {}

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                found[node["pattern"]] = None
            for key in node.get("patternProperties") or {}:
                found[key] = None
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for schema in corpus().values():
        walk(schema)
    return list(found)


#: Corpus patterns that Java itself cannot compile, and why.
CORPUS_REJECTED = {
    r"^([a-z,A-Z,0-9,. _\-:/()#,@[\]+=&;\{\}!$*])*$": (
        "AWS::EC2::SecurityGroup GroupDescription: an unescaped '[' opens a nested class "
        "that never closes (Java: Unclosed character class)"
    ),
}


@pytest.mark.corpus
def test_every_corpus_pattern_compiles():
    failures = {}
    for pattern in _corpus_patterns():
        try:
            compile_pattern(pattern)
        except PatternError as exc:
            failures[pattern] = str(exc)
    assert sorted(failures) == sorted(CORPUS_REJECTED), failures


def _samples(pattern: str) -> list[str]:
    from cfngen._instances._strings import matching_string

    made = matching_string(pattern) or ""
    return [made, made + "\n", made + "é", made.upper(), "", "a1-_.:/ Z", made[:-1] + "\u0661"]


@pytest.mark.corpus
@pytest.mark.oracle
def test_corpus_patterns_agree_with_java(tmp_path, oracle_tool):
    cases = []
    for pattern in _corpus_patterns():
        if pattern in CORPUS_REJECTED:
            continue
        cases += [(pattern, sample) for sample in _samples(pattern)]
    verdicts = _java_find(oracle_tool("java"), tmp_path, cases)
    ours = ["1" if search(p, v) else "0" for p, v in cases]
    disagreements = [
        (case, java, mine)
        for case, java, mine in zip(cases, verdicts, ours, strict=True)
        if java != mine
    ]
    assert disagreements == [], json.dumps(disagreements[:20], ensure_ascii=False, indent=1)


def test_translation_does_not_need_python_311(tmp_path):
    # Possessive quantifiers and atomic groups are emulated where `re` lacks them: run on a
    # real CPython 3.10 (cfngen's oldest), whose `re` has neither.
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import cfngen._patterns as p;"
        "assert sys.version_info[:2] == (3, 10);"
        "print(p.search(r'^a++a$', 'aaa'), p.search(r'^(?>a|ab)c$', 'abc'),"
        " p.search(r'^(?>ab|a)c$', 'abc'), p.search(r'^(a)(?>b)\\1$', 'aba'))"
    )
    result = subprocess.run(
        [pyenv_python("3.10"), "-I", "-c", code, str(Path(__file__).parent.parent)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "False", "True", "True"]
