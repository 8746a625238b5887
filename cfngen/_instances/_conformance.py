"""Whether an instance conforms to a resource schema the way AWS validates it.

A JSON Schema Draft 7 validator (jsonschema) whose `pattern`, `patternProperties` and
`additionalProperties` evaluate patterns with Java's semantics (see _patterns), and whose format
checker knows exactly the formats listed here: jsonschema's own checks depend on which optional
packages happen to be installed (date-time is silently unchecked without rfc3339-validator), and
ours must give the same verdict everywhere.
"""

from __future__ import annotations

import copy
import datetime
import ipaddress
import re
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from cfngen import _patterns
from cfngen._errors import CfngenError, ExitCode
from cfngen._schema import join_pointer, property_name
from cfngen._schema._wording import (
    missing_dependency,
    missing_key,
    no_alternative,
    sentence,
    several_alternatives,
    unknown_key,
)

_RFC3339_DATE = r"\d{4}-(0[1-9]|1[0-2])-\d{2}"
_RFC3339_TIME = r"([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([zZ]|[+-]([01]\d|2[0-3]):[0-5]\d)"
_DATE_TIME = re.compile(rf"{_RFC3339_DATE}[tT ]{_RFC3339_TIME}", re.ASCII)
_DATE = re.compile(_RFC3339_DATE, re.ASCII)
_TIME = re.compile(_RFC3339_TIME, re.ASCII)
_HOSTNAME = re.compile(
    r"(?=.{1,253}\Z)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?",
    re.ASCII,
)
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s]*", re.ASCII)
_INT64 = (-(2**63), 2**63 - 1)


def _date(value: str) -> bool:
    if not _DATE.fullmatch(value):
        return False
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _ip(kind: Callable[[str], object]) -> Callable[[str], bool]:
    def check(value: str) -> bool:
        try:
            kind(value)
        except ValueError:
            return False
        return True

    return check


def _regex(value: str) -> bool:
    try:
        _patterns.compile_pattern(value)
    except _patterns.PatternError:
        return False
    return True


#: Formats checked on strings: the Draft 7 ones AWS's validator knows, and the network
#: formats cfn-lint defines; any other format (cfn-lint's AWS::* resource formats) is a hint.
STRING_FORMATS: dict[str, Callable[[str], bool]] = {
    "date-time": lambda v: bool(_DATE_TIME.fullmatch(v)) and _date(v[:10]),
    "date": _date,
    "time": lambda v: bool(_TIME.fullmatch(v)),
    "email": lambda v: "@" in v[1:-1],
    "hostname": lambda v: bool(_HOSTNAME.fullmatch(v)),
    "ipv4": _ip(ipaddress.IPv4Address),
    "ipv6": _ip(ipaddress.IPv6Address),
    "ipv4-network": _ip(ipaddress.IPv4Network),
    "ipv6-network": _ip(ipaddress.IPv6Network),
    "uri": lambda v: bool(_URI.fullmatch(v)),
    "regex": _regex,
}


def _format_checker() -> Any:
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    for name, check in STRING_FORMATS.items():
        checker.checks(name)(lambda v, check=check: not isinstance(v, str) or check(v))
    checker.checks("int64")(
        lambda v: not isinstance(v, int) or isinstance(v, bool) or _INT64[0] <= v <= _INT64[1]
    )
    return checker


def _key_matches(pattern: str, key: str) -> bool:
    try:
        return _patterns.search(pattern, key)
    except _patterns.PatternError:
        return True  # a pattern no engine reads constrains nothing (validate reports it)


def _keyword_pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema import ValidationError

    if not validator.is_type(instance, "string"):
        return
    try:
        matched = _patterns.search(pattern, instance)
    except _patterns.PatternError:
        return
    if not matched:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _keyword_pattern_properties(
    validator: Any, patterns: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _key_matches(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _extras(instance: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    return [
        key
        for key in instance
        if key not in properties and not any(_key_matches(p, key) for p in patterns)
    ]


def _keyword_additional_properties(
    validator: Any, allowed: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    from jsonschema import ValidationError

    if not validator.is_type(instance, "object"):
        return
    extras = _extras(instance, schema)
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif allowed is False and extras:
        yield ValidationError(f"additional properties are not allowed ({extras!r} unexpected)")


_VALIDATOR_CLASS: Any = None


def validator_class() -> Any:
    """Draft 7 with AWS's pattern semantics."""
    global _VALIDATOR_CLASS  # noqa: PLW0603 - built once, on first use (jsonschema is heavy)
    if _VALIDATOR_CLASS is None:
        from jsonschema import Draft7Validator, validators

        _VALIDATOR_CLASS = validators.extend(
            Draft7Validator,
            {
                "pattern": _keyword_pattern,
                "patternProperties": _keyword_pattern_properties,
                "additionalProperties": _keyword_additional_properties,
            },
        )
    return _VALIDATOR_CLASS


# -- schema variants ----------------------------------------------------------------------

#: Keywords whose value is a schema, a list of schemas, or a map of names to schemas.
_SCHEMA = frozenset(
    {"additionalProperties", "items", "additionalItems", "contains", "propertyNames"}
    | {"not", "if", "then", "else"}
)
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "items")
_SCHEMA_MAPS = ("properties", "patternProperties", "definitions", "dependencies")
#: What a partial model cannot be held to: presence, and alternatives that differ by presence.
_PRESENCE = ("required", "dependencies", "dependentRequired", "not", "if", "then", "else")


def _without_presence(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _PRESENCE:
            continue
        if key == "oneOf":
            key = "anyOf"  # noqa: PLW2901 - exclusivity is usually about which keys are present
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {k: _without_presence(v) for k, v in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_without_presence(v) for v in value]
        elif key in _SCHEMA:
            out[key] = _without_presence(value)
        else:
            out[key] = value
    return out


def input_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema a create/update input is held to: readOnly properties are not required."""
    pointers = schema.get("readOnlyProperties")
    read_only = (
        {property_name(p) for p in pointers if isinstance(p, str)}
        if isinstance(pointers, list)
        else set()
    )
    out = dict(schema)
    if "required" in out:
        out["required"] = [r for r in out["required"] if r not in read_only]
    return out


_CACHE: OrderedDict[tuple[int, str], tuple[dict[str, Any], Any]] = OrderedDict()


def validator(schema: dict[str, Any], kind: str = "model") -> Any:
    """A compiled validator for `schema`, cached by identity: treat cached schemas as frozen.

    kind: "model" (as written), "partial" (presence not checked), "input" (see input_schema).
    """
    key = (id(schema), kind)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is schema:
        _CACHE.move_to_end(key)
        return hit[1]
    from cfngen._schema import without_ref_loops

    # A $ref that leads back to itself alone accepts any value (jsonschema would recurse
    # forever on it); `cfngen validate` warns about it.
    looped = without_ref_loops(schema)
    if kind == "partial":
        effective = _without_presence(copy.deepcopy(looped))
    elif kind == "input":
        effective = input_schema(looped)
    else:
        effective = looped
    compiled = validator_class()(effective, format_checker=_format_checker())
    _CACHE[key] = (schema, compiled)
    if len(_CACHE) > 32:
        _CACHE.popitem(last=False)
    return compiled


# -- messages -----------------------------------------------------------------------------


def describe(error: Any) -> list[tuple[str, str]]:
    """One jsonschema error as (JSON pointer, plain-English message) pairs, worded as
    `cfngen validate` words the same rule broken in a schema (cfngen/_schema/_wording.py)."""
    pointer = join_pointer("", *error.absolute_path)
    keyword, expected, value = error.validator, error.validator_value, error.instance
    if keyword == "required":
        missing = [name for name in expected if isinstance(value, dict) and name not in value]
        return [(join_pointer(pointer, name), missing_key(name)) for name in missing]
    if keyword == "additionalProperties" and isinstance(value, dict):
        return [
            (join_pointer(pointer, extra), unknown_key(extra))
            for extra in _extras(value, error.schema)
        ]
    if keyword == "dependencies" and isinstance(value, dict):
        out = []
        for name, needs in expected.items():
            if name in value and isinstance(needs, list):
                out += [
                    (join_pointer(pointer, n), missing_dependency(n, name))
                    for n in needs
                    if n not in value
                ]
        if out:
            return out
    if keyword in ("oneOf", "anyOf"):
        if keyword == "oneOf" and not error.context:  # jsonschema's "valid under each of"
            return [(pointer, several_alternatives())]
        from jsonschema.exceptions import best_match

        best = best_match(error.context or [])
        return [(pointer, no_alternative(None if best is None else describe(best)[0][1]))]
    message, hint = sentence(keyword, expected, value)
    return [(pointer, message if hint is None else f"{message}; {hint}")]


def iter_errors(compiled: Any, instance: Any) -> list[Any]:
    """jsonschema errors, or a CfngenError when the schema's $refs do not resolve."""
    from referencing.exceptions import Unresolvable

    try:
        return list(compiled.iter_errors(instance))
    except Unresolvable as exc:
        raise _dangling(exc) from None


def is_valid(compiled: Any, instance: Any) -> bool:
    from referencing.exceptions import Unresolvable

    try:
        return bool(compiled.is_valid(instance))
    except Unresolvable as exc:
        raise _dangling(exc) from None


def _dangling(exc: Exception) -> CfngenError:
    return CfngenError(
        f"the schema has a $ref that points at nothing: {getattr(exc, 'ref', exc)}",
        "run `cfngen validate` to see every problem in the schema",
        exit_code=ExitCode.FAILED,
    )


def errors(schema: dict[str, Any], instance: Any, kind: str = "model") -> list[tuple[str, str]]:
    """Why `instance` does not conform; [] when it does. Sorted by pointer, then message."""
    found = []
    for error in iter_errors(validator(schema, kind), instance):
        found.extend(describe(error))
    return sorted(set(found))
