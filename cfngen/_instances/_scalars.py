"""Scalar values for a schema (enums, strings, numbers, format samples), and the keyword
helpers the instance builder (_values.py) shares with them."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from cfngen._instances import _conformance, _strings


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()

_ACCOUNT = "123456789012"
_REGION = "us-east-1"
_UUID = "12345678-1234-4234-8234-123456789012"


def _format_sample(fmt: str, variant: int) -> Any:
    """A realistic value for a format (cfn-lint's AWS::* ones included), or MISSING."""
    return format_samples(variant).get(fmt, MISSING)


def format_samples(variant: int = 0) -> dict[str, Any]:
    """A realistic value of each format the generator knows (cfn-lint's AWS::* ones included):
    format name -> value."""
    n = variant
    hexid = f"{n:x}".rjust(17, "0")[-17:]
    name = "example" if n == 0 else f"example{n + 1}"
    samples: dict[str, Any] = {
        "date-time": f"2024-01-{1 + n % 28:02d}T00:00:00Z",
        "timestamp": f"2024-01-{1 + n % 28:02d}T00:00:00Z",
        "date": f"2024-01-{1 + n % 28:02d}",
        "time": f"{n % 24:02d}:00:00Z",
        "email": f"{name}@example.com",
        "hostname": f"{name}.example.com",
        "ipv4": f"10.0.0.{1 + n % 250}",
        "ipv6": f"2001:db8::{1 + n:x}",
        "ipv4-network": f"10.{n % 250}.0.0/16",
        "ipv6-network": f"2001:db8:{n:x}::/48",
        "uri": f"https://{name}.example.com",
        "regex": "^[a-z]+$",
        "AWS::IAM::Role.Arn": f"arn:aws:iam::{_ACCOUNT}:role/{name}-role",
        "AWS::KMS::Key.Arn": f"arn:aws:kms:{_REGION}:{_ACCOUNT}:key/{_UUID[:-2]}{n % 100:02d}",
        "AWS::KMS::Key.Id": f"{_UUID[:-2]}{n % 100:02d}",
        "AWS::KMS::Alias.AliasName": f"alias/{name}",
        "AWS::EC2::SecurityGroup.Id": f"sg-{hexid}",
        "AWS::EC2::SecurityGroup.Name": f"{name}-security-group",
        "AWS::EC2::VPC.Id": f"vpc-{hexid}",
        "AWS::EC2::Subnet.Id": f"subnet-{hexid}",
        "AWS::EC2::Image.Id": f"ami-{hexid}",
        # Not cfn-lint formats: a module parameter of these AWS-specific types takes them.
        "AWS::EC2::Instance.Id": f"i-{hexid}",
        "AWS::EC2::Volume.Id": f"vol-{hexid}",
        "AWS::EC2::KeyPair.KeyName": f"{name}-key-pair",
        "AWS::EC2::AvailabilityZone.Name": f"{_REGION}{'abcdef'[n % 6]}",
        "AWS::S3::Bucket.Name": f"{name}-bucket",
        "AWS::SNS::Topic.Arn": f"arn:aws:sns:{_REGION}:{_ACCOUNT}:{name}-topic",
        "AWS::SQS::Queue.Arn": f"arn:aws:sqs:{_REGION}:{_ACCOUNT}:{name}-queue",
        "AWS::Lambda::Function.Arn": f"arn:aws:lambda:{_REGION}:{_ACCOUNT}:function:{name}",
        "AWS::Logs::LogGroup.Name": f"/aws/{name}/logs",
        "AWS::ACM::Certificate.Arn": f"arn:aws:acm:{_REGION}:{_ACCOUNT}:certificate/{_UUID}",
        "AWS::Route53::HostedZone.Id": f"Z{n:012d}ABC",
        "AWS::Route53::AliasTarget.HostedZoneId": f"Z{n:012d}ABC",
    }
    return samples


#: Keywords that constrain a value itself (not its type or documentation).
_VALUE_KEYWORDS = frozenset(
    (
        "pattern",
        "minLength",
        "maxLength",
        "format",
        "minimum",
        "maximum",
        "multipleOf",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "not",
        "const",
    )
)

#: Array formats of cfn-lint: lists of the singular format.
_ARRAY_FORMATS = {
    "AWS::EC2::SecurityGroup.Ids": "AWS::EC2::SecurityGroup.Id",
    "AWS::EC2::SecurityGroup.Names": "AWS::EC2::SecurityGroup.Name",
    "AWS::EC2::Subnet.Ids": "AWS::EC2::Subnet.Id",
}


def _plain_string(lo: int, hi: int | None, variant: int) -> str:
    text = "example" if variant == 0 else f"example{variant + 1}"
    if len(text) < lo:
        text += "".join("abcdefghijklmnopqrstuvwxyz"[i % 26] for i in range(lo - len(text)))
    return text if hi is None else text[:hi]


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _types(s: dict[str, Any]) -> list[str]:
    declared = s.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list) and declared:
        return [t for t in declared if t != "null"] + [t for t in declared if t == "null"]
    if any(k in s for k in ("properties", "patternProperties", "required", "additionalProperties")):
        return ["object"]
    if any(k in s for k in ("items", "minItems", "maxItems", "uniqueItems", "contains")):
        return ["array"]
    if any(k in s for k in ("minimum", "maximum", "multipleOf", "exclusiveMinimum")):
        return ["number"]
    if any(k in s for k in ("pattern", "minLength", "maxLength", "format")):
        return ["string"]
    return []


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Both sets of constraints in one schema (a generator's approximation of allOf)."""
    out = dict(a)
    for key, value in b.items():
        if key not in out:
            out[key] = value
            continue
        mine = out[key]
        if key == "properties" and isinstance(mine, dict) and isinstance(value, dict):
            props = dict(mine)
            for name, schema in value.items():
                props[name] = {"allOf": [props[name], schema]} if name in props else schema
            out[key] = props
        elif key == "required" and isinstance(mine, list) and isinstance(value, list):
            out[key] = mine + [r for r in value if r not in mine]
        elif key in ("minLength", "minItems", "minimum", "minProperties", "exclusiveMinimum"):
            out[key] = max(mine, value)
        elif key in ("maxLength", "maxItems", "maximum", "maxProperties", "exclusiveMaximum"):
            out[key] = min(mine, value)
        elif key == "type":
            left = [mine] if isinstance(mine, str) else list(mine)
            right = [value] if isinstance(value, str) else list(value)
            both = [t for t in left if t in right]
            if not both and "number" in left + right and "integer" in left + right:
                both = ["integer"]
            out[key] = both or left
        elif key == "enum" and isinstance(mine, list) and isinstance(value, list):
            allowed = {_canonical(v) for v in value}
            out[key] = [v for v in mine if _canonical(v) in allowed]
        elif key == "pattern" and value != mine:
            out["x-cfngen-patterns"] = [*out.get("x-cfngen-patterns", []), value]
        elif key == "x-cfngen-avoid":
            out[key] = list(mine) + list(value)
    return out


def enum_value(s: dict[str, Any], variant: int, valid: Callable[[Any, Any], bool]) -> Any:
    """A value of `enum` that has a declared type and meets the other constraints."""
    options = s["enum"]
    if not options:
        return MISSING
    types = _types(s)
    rest = {k: v for k, v in s.items() if k in _VALUE_KEYWORDS}
    start = variant
    fallback = MISSING
    for i in range(len(options)):
        option = options[(start + i) % len(options)]
        if (
            types
            and _json_type(option) not in types
            and not (_json_type(option) == "integer" and "number" in types)
        ):
            continue
        if not rest or valid(rest, option):
            return option
        fallback = option if fallback is MISSING else fallback
    return options[start % len(options)] if fallback is MISSING else fallback


def string_value(s: dict[str, Any], variant: int) -> Any:
    """A string for `s`: its format's sample, a plain word, or what its patterns make."""
    lo = int(s.get("minLength", 0))
    hi = s.get("maxLength")
    hi = None if hi is None else int(hi)
    patterns = [
        p
        for p in [s.get("pattern"), *s.get("x-cfngen-patterns", [])]
        if isinstance(p, str) and _strings.pattern_width(p) is not None
    ]
    candidates: list[Any] = []
    fmt = s.get("format")
    if isinstance(fmt, str):
        candidates.append(_format_sample(fmt, variant))
    if not patterns:
        candidates.append(_plain_string(lo, hi, variant))
    for text in candidates:
        if isinstance(text, str) and string_fits(s, text, patterns):
            return text
    # Several patterns (allOf, or a pattern beside an alternative's): what one of them
    # makes must also match the others, which another variant may manage.
    for extra in range(4 if len(patterns) > 1 else 1):
        for pattern in patterns:
            text = _strings.matching_string(pattern, lo, hi, variant + extra)
            if isinstance(text, str):
                candidates.append(text)
                if string_fits(s, text, patterns):
                    return text
    # Nothing fits: the closest try, for the repair loop to judge and retry.
    return next((c for c in candidates if isinstance(c, str)), _plain_string(lo, hi, variant))


def string_fits(s: dict[str, Any], text: str, patterns: list[str]) -> bool:
    if len(text) < s.get("minLength", 0) or len(text) > s.get("maxLength", math.inf):
        return False
    if any(not _conformance._key_matches(p, text) for p in patterns):
        return False
    check = _conformance.STRING_FORMATS.get(s.get("format", ""))
    return check is None or check(text)


def number_value(s: dict[str, Any], kind: str, variant: int) -> Any:
    """A number for `s` within its bounds and steps."""
    integer = kind == "integer" or s.get("format") == "int64"
    step = Decimal(str(s["multipleOf"])) if "multipleOf" in s else Decimal(1 if integer else 0)
    lo = Decimal(str(s["minimum"])) if "minimum" in s else None
    hi = Decimal(str(s["maximum"])) if "maximum" in s else None
    unit = step if step else Decimal(1) if integer else Decimal("0.5")
    if isinstance(s.get("exclusiveMinimum"), (int, float)):
        bound = Decimal(str(s["exclusiveMinimum"]))
        bound = bound + unit if integer or step else bound + Decimal("0.5")
        lo = bound if lo is None else max(lo, bound)
    if isinstance(s.get("exclusiveMaximum"), (int, float)):
        bound = Decimal(str(s["exclusiveMaximum"]))
        bound = bound - unit if integer or step else bound - Decimal("0.5")
        hi = bound if hi is None else min(hi, bound)
    want = Decimal(1 + variant % 10)
    if lo is not None and want < lo:
        want = lo + variant % 3
    if hi is not None and want > hi:
        want = hi
    if lo is not None and want < lo:
        want = lo
    if step:
        k = (want / step).to_integral_value(rounding="ROUND_CEILING")
        want = k * step
        if hi is not None and want > hi:
            want = (hi / step).to_integral_value(rounding="ROUND_FLOOR") * step
    if integer:
        want = want.to_integral_value(rounding="ROUND_CEILING")
    return int(want) if want == want.to_integral_value() else float(want)


def _strategies(s: dict[str, Any]) -> int:
    pattern = s.get("pattern")
    if isinstance(pattern, str) and _strings.known_impossible(
        pattern, s.get("minLength", 0), s.get("maxLength")
    ):
        return 1
    branches = max(len(s.get("oneOf") or []), len(s.get("anyOf") or []), 1)
    types = max(len(_types(s)), 1)
    if "enum" in s:
        return max(len(s["enum"]), 1) + 1
    return max(3 * branches, 4 * types) + 1


def _dependencies(s: dict[str, Any]) -> Iterator[tuple[str, list[str]]]:
    for keyword in ("dependencies", "dependentRequired"):
        for name, needs in (s.get(keyword) or {}).items():
            if isinstance(needs, list):
                yield name, [n for n in needs if isinstance(n, str)]


def _map_key(
    pattern: str | None, name_schema: dict[str, Any], lo: int, hi: int, variant: int
) -> str | None:
    name_pattern = name_schema.get("pattern")
    if pattern is None and name_pattern is None:
        return "Key" if variant == 0 else f"Key{variant + 1}"
    key = _strings.matching_string(str(pattern or name_pattern), lo, hi, variant)
    if (
        key is not None
        and pattern
        and name_pattern
        and not _conformance._key_matches(name_pattern, key)
    ):
        return None
    return key
