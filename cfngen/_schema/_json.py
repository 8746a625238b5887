"""JSON documents that remember where each value came from: cfngen's one JSON reader.

The standard library parses fast but forgets positions and silently keeps the last of two
duplicate keys. We parse with it, then map JSON pointers to line and column with one tokenizer
pass, run only when a position is asked for. No maintained library reports duplicate keys *and*
positions for arbitrary pointers, which is what every diagnostic needs.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError, ExitCode
from cfngen._schema._pointer import escape_token, join_pointer, parent_pointer

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+')


#: How deep objects and arrays may nest in a document. Real resource schemas nest up to 13
#: levels (cfn-lint's 1898); the meta-schema validator recurses per level and runs out of
#: Python's stack near 350, so deeper documents are refused with the pointer where they cross
#: this line instead of crashing inside it. (Schemas have a tighter limit that also counts
#: `$ref`s: cfngen/_schema/_depth.py.)
MAX_NESTING = 200


def nesting_too_deep(data: Any, limit: int = MAX_NESTING) -> str | None:
    """The pointer of the first object or array (in document order) nested deeper than
    `limit` levels, or None. Iterative: it must not itself run out of stack."""
    stack: list[tuple[Any, str, int]] = [(data, "", 1)]
    while stack:
        value, pointer, depth = stack.pop()
        if isinstance(value, dict):
            items = [(join_pointer(pointer, k), v) for k, v in value.items()]
        elif isinstance(value, list):
            items = [(join_pointer(pointer, i), v) for i, v in enumerate(value)]
        else:
            continue
        if depth > limit:
            return pointer
        stack.extend((v, ptr, depth + 1) for ptr, v in reversed(items))
    return None


class JsonSyntaxError(ValueError):
    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"{message} (line {line}, column {column})")
        self.message = message
        self.line = line
        self.column = column


@dataclass(frozen=True)
class DuplicateKey:
    #: Pointer of the object holding the key twice.
    pointer: str
    key: str
    line: int
    column: int
    first_line: int
    first_column: int


@dataclass
class JsonDocument:
    """Parsed JSON plus a lazily built map from pointer to (line, column), both 1-based."""

    text: str
    data: Any
    has_duplicates: bool = False
    _values: dict[str, int] | None = field(default=None, repr=False)
    _keys: dict[str, int] = field(default_factory=dict, repr=False)
    _duplicates: list[tuple[str, str, int, int]] = field(default_factory=list, repr=False)
    _line_starts: list[int] | None = field(default=None, repr=False)

    def position(self, pointer: str) -> tuple[int, int] | None:
        """Line and column where the value at `pointer` starts, or None if it does not exist.

        A pointer below an existing value but not present (a missing key) maps to the
        nearest existing ancestor, which is where the user has to make the change.
        """
        values = self._map()
        while True:
            offset = values.get(pointer)
            if offset is not None:
                return self._line_col(offset)
            if not pointer:
                return None
            pointer = parent_pointer(pointer)

    def scalar_span(self, pointer: str) -> tuple[int, int] | None:
        """Offsets [start, end) in `text` of the scalar (string, number, literal) at `pointer`,
        or None when there is no scalar there: what an editor that keeps every other byte
        replaces."""
        start = self._map().get(pointer)
        if start is None or self.text[start] in "{[":
            return None
        found = _TOKEN.match(self.text, start)
        assert found is not None
        return start, found.end()

    def key_position(self, pointer: str) -> tuple[int, int] | None:
        """Line and column of the key naming the member at `pointer` (a property name)."""
        self._map()
        offset = self._keys.get(pointer)
        return None if offset is None else self._line_col(offset)

    def duplicates(self) -> list[DuplicateKey]:
        if not self.has_duplicates:
            return []
        self._map()
        out = []
        for holder, key, first, second in self._duplicates:
            line, col = self._line_col(second)
            first_line, first_col = self._line_col(first)
            out.append(DuplicateKey(holder, key, line, col, first_line, first_col))
        return out

    def _line_col(self, offset: int) -> tuple[int, int]:
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def _map(self) -> dict[str, int]:
        if self._values is None:
            self._values = {}
            self._scan()
        return self._values

    def _scan(self) -> None:
        """One pass over the tokens of text already known to be valid JSON."""
        values = self._values
        assert values is not None
        keys = self._keys
        # Each frame: [pointer, is_object, index_or_key, expecting_key, seen_keys]
        stack: list[list[Any]] = []

        def value_pointer() -> str:
            if not stack:
                return ""
            top = stack[-1]
            return str(top[0]) + "/" + escape_token(str(top[2]))

        for match in _TOKEN.finditer(self.text):
            tok = match.group()
            start = match.start()
            first = tok[0]
            if first in "{[":
                ptr = value_pointer()
                values[ptr] = start
                stack.append([ptr, first == "{", 0, first == "{", {}])
            elif first in "}]":
                stack.pop()
            elif first == ",":
                top = stack[-1]
                if top[1]:
                    top[3] = True
                else:
                    top[2] += 1
            elif first == ":":
                stack[-1][3] = False
            elif stack and stack[-1][1] and stack[-1][3]:
                top = stack[-1]
                key: str = json.loads(tok)
                top[2] = key
                seen: dict[str, int] = top[4]
                if key in seen:
                    self._duplicates.append((top[0], key, seen[key], start))
                else:
                    seen[key] = start
                # Later duplicates win, as they do in the parsed data.
                keys[top[0] + "/" + escape_token(key)] = start
            else:
                values[value_pointer()] = start


class _NonStandardConstant(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def loads(text: str) -> JsonDocument:
    """Parse JSON text; raises JsonSyntaxError with the position of the first syntax error."""
    dup = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal dup
        result = dict(items)
        if len(result) != len(items):
            dup = True
        return result

    def no_constants(name: str) -> Any:
        raise _NonStandardConstant(name)

    if text.startswith("\ufeff"):
        raise JsonSyntaxError(
            "the file starts with a byte order mark; save it as UTF-8 without BOM", 1, 1
        )
    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_constant=no_constants)
    except _NonStandardConstant as exc:
        # NaN and Infinity are Python extensions, not JSON: AWS rejects them.
        found = re.search(rf"(?<![\w\"]){re.escape(exc.name)}", text)
        offset = found.start() if found else 0
        doc = JsonDocument(text=text, data=None)
        line, col = doc._line_col(offset)
        raise JsonSyntaxError(f"{exc.name} is not valid JSON", line, col) from None
    except json.JSONDecodeError as exc:
        raise JsonSyntaxError(exc.msg, exc.lineno, exc.colno) from None
    except ValueError as exc:
        # Python refuses to read integers of more than 4300 digits (CVE-2020-10735).
        raise JsonSyntaxError(f"a number is too long: {str(exc).split(';')[0]}", 1, 1) from None
    except RecursionError:
        raise JsonSyntaxError("the document is nested too deeply", 1, 1) from None
    return JsonDocument(text=text, data=data, has_duplicates=dup)


def read_text(path: str | Path, *, not_utf8: ExitCode = ExitCode.FAILED) -> str:
    """A file's text as UTF-8, with a CfngenError that says what to do when it cannot be read
    (a named pipe or a symlink loop included: see cfngen._files). Text that is not UTF-8 is
    `not_utf8`: a failed check for a file being checked, a usage error for a request."""
    from cfngen._files import read_bytes

    path = Path(path)
    raw = read_bytes(path)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CfngenError(
            f"{path}: byte {exc.start} is not valid UTF-8",
            "save the file as UTF-8",
            exit_code=not_utf8,
        ) from None


def load_object(path: Path, hint: str, *, text: str | None = None) -> dict[str, Any]:
    """A file holding one JSON object; a CfngenError with `hint` when it is not one."""
    if text is None:
        try:
            text = read_text(path)
        except CfngenError as exc:
            # A file given to a command that cannot be decoded is a usage error, as invalid
            # JSON is (only validate reports an undecodable schema as a finding: exit 1).
            raise CfngenError(exc.message, exc.hint) from None
    try:
        data = loads(text).data
    except JsonSyntaxError as exc:
        raise CfngenError(f"{path}: invalid JSON: {exc}", hint) from None
    if not isinstance(data, dict):
        raise CfngenError(f"{path}: expected a JSON object", hint)
    return data
