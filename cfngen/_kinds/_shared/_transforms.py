"""`propertyTransform`: how CloudFormation reads a property's template value before comparing it
with what `read` returns (drift detection), the one reader of the schema's transforms.

A transform is a JSONata expression; `$OR` separates alternatives, and the property is in sync
when any alternative's result equals the read value. We evaluate JSONata with jsonata-python
(pure Python, the reference implementation's semantics; it parses every alternative in the
cfn-lint bundle cfngen pins in about 0.02 s), imported only when a transform is parsed, so
schemas without transforms cost nothing. The official contract tests use jq instead, which
compiles only the bare string literals among AWS's transforms.

Two readings here are inferred from AWS's own schemas and AWS teams' helpers, not documented:
an alternative is evaluated against the model's root and against the object holding the
property (`$lowercase(Name)` at `/properties/Rules/*/Name` names the item's field), and a result
that is not equal is read as an anchored pattern (`$join([EngineVersion, ".*"])` is in sync
with `5.7.44`), in the dialect of cfngen's pattern engine (Java's, as for schema patterns).
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from cfngen._schema import pointer_tokens

PropertyPath = tuple[str, ...]

#: AWS separates alternatives with `$OR` (its documentation's word); a variable that merely
#: starts with those letters (`$ORDER`) is not a separator.
_OR = re.compile(r"\$OR(?![A-Za-z0-9_])")
#: An alternative that loops, or recurses without end, is stopped (milliseconds, frames).
_TIME_LIMIT_MS = 2000
_STACK_LIMIT = 500

Scope = Literal["root", "parent"]


@dataclass(frozen=True)
class Alternative:
    #: 1-based, as the user counts them.
    number: int
    text: str
    #: Where the alternative starts in the whole expression (0-based characters).
    offset: int


@dataclass(frozen=True)
class Transform:
    #: The key as the schema writes it (`/properties/Rules/*/Name`).
    key: str
    #: Its property path (`("Rules", "*", "Name")`); None when the key is no property pointer.
    path: PropertyPath | None
    expression: str

    @property
    def alternatives(self) -> list[Alternative]:
        return split_alternatives(self.expression)


class TransformError(Exception):
    """An alternative JSONata cannot parse, or that failed while evaluated."""

    def __init__(self, message: str, offset: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        #: Where parsing stopped, in characters from the alternative's start.
        self.offset = offset


def split_alternatives(expression: str) -> list[Alternative]:
    out: list[Alternative] = []
    start = 0
    for number, part in enumerate(_OR.split(expression), start=1):
        lead = len(part) - len(part.lstrip())
        out.append(Alternative(number, part.strip(), start + lead))
        start += len(part) + len("$OR")
    return out


def transforms_of(schema: dict[str, Any]) -> list[Transform]:
    """The schema's transforms whose expression is a string (others are a validate finding)."""
    found = schema.get("propertyTransform")
    if not isinstance(found, dict):
        return []
    return [
        Transform(key, _property_path(key), expression)
        for key, expression in found.items()
        if isinstance(key, str) and isinstance(expression, str)
    ]


def _property_path(key: str) -> PropertyPath | None:
    if not key.startswith("/"):
        return None
    tokens = pointer_tokens(key)
    if len(tokens) < 2 or tokens[0] != "properties" or not all(tokens[1:]):
        return None
    return tuple(tokens[1:])


def covers(path: PropertyPath, concrete: PropertyPath) -> bool:
    """Whether a transform's path names the property at a concrete model path (`*` = any
    index)."""
    return len(path) == len(concrete) and all(
        mine == theirs or (mine == "*" and theirs.isdigit())
        for mine, theirs in zip(path, concrete, strict=True)
    )


# --------------------------------------------------------------------------- JSONata


@functools.lru_cache(maxsize=1024)
def parse(text: str) -> Any:
    """The parsed alternative (a jsonata.Jsonata); raises TransformError with where it stopped."""
    if not text:
        raise TransformError("the alternative is empty", 0)
    import jsonata

    try:
        return jsonata.Jsonata(text)
    except Exception as exc:  # the parser raises JException, and others on odd input
        offset = getattr(exc, "location", None)
        return _raise(exc, offset if isinstance(offset, int) else None)


def _raise(exc: BaseException, offset: int | None) -> Any:
    message = str(exc) or type(exc).__name__
    code = getattr(exc, "error", None)
    raise TransformError(f"{code}: {message}" if isinstance(code, str) else message, offset)


def evaluate(text: str, data: Any) -> Any:
    """The alternative's result on `data` (None when JSONata's is undefined); raises
    TransformError when it cannot be parsed or fails."""
    expression = parse(text)
    try:
        # Bounds counted from now: jsonata-python's clock starts when they are set, and the
        # parsed expression is kept for the whole run.
        expression.environment.set_runtime_bounds(_TIME_LIMIT_MS, _STACK_LIMIT)
        return _plain(expression.evaluate(data))
    except RecursionError:
        raise TransformError("it recursed too deeply") from None
    except Exception as exc:  # JSONata's errors, and its library's own bugs
        return _raise(exc, None)


def _plain(value: Any) -> Any:
    """JSON data as the model compares it: JSONata's numbers are floats, its arrays a list type
    of its own."""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


# --------------------------------------------------------------------------- judging


@dataclass(frozen=True)
class Evaluation:
    alternative: Alternative
    scope: Scope
    result: Any = None
    #: "equal", "pattern", or None when not in sync.
    by: str | None = None
    error: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "alternative": self.alternative.number,
            "expression": self.alternative.text,
            "scope": self.scope,
            "result": self.result,
            "in_sync": self.by is not None,
            "by": self.by,
            "error": self.error,
        }


@dataclass
class Judgement:
    """Every alternative of one transform, evaluated for one property."""

    transform: Transform
    evaluations: list[Evaluation] = field(default_factory=list)

    @property
    def in_sync(self) -> Evaluation | None:
        return next((e for e in self.evaluations if e.by is not None), None)

    @property
    def errors(self) -> list[Evaluation]:
        return [e for e in self.evaluations if e.error is not None]


def judge(transform: Transform, root: Any, parent: Any, read: Any) -> Judgement:
    """Each alternative on the template model's root, and on the object holding the property
    when that is another object; in sync when a result equals the read value or, read as an
    anchored pattern, matches it."""
    out = Judgement(transform)
    scopes: list[tuple[Scope, Any]] = [("root", root)]
    if parent is not root and isinstance(parent, dict):
        scopes.append(("parent", parent))
    for alternative in transform.alternatives:
        for scope, data in scopes:
            try:
                result = evaluate(alternative.text, data)
            except TransformError as exc:
                out.evaluations.append(Evaluation(alternative, scope, error=exc.message))
                continue
            out.evaluations.append(Evaluation(alternative, scope, result, _agrees(result, read)))
    return out


def _agrees(result: Any, read: Any) -> str | None:
    if _same(result, read):
        return "equal"
    if isinstance(result, str) and isinstance(read, str) and matches_pattern(result, read):
        return "pattern"
    return None


def _same(result: Any, read: Any) -> bool:
    # A result of null (JSONata's undefined too) is in sync with a property read returns
    # without (the caller passes None): `Permissions=[] ? null : Permissions`.
    if result is None or read is None:
        return result is None and read is None
    return json.dumps(result, sort_keys=True) == json.dumps(read, sort_keys=True)


def matches_pattern(result: str, read: str) -> bool:
    """Whether `read` matches `result` read as a whole-string pattern; a result that is no
    pattern matches nothing."""
    from cfngen._patterns import PatternError, compile_pattern

    try:
        return compile_pattern(result).fullmatch(read) is not None
    except (PatternError, RecursionError):
        return False
