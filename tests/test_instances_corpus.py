"""Example inputs for every corpus schema, judged by a validator independent of cfngen's.

The oracle is jsonschema's Draft 7 validator with cfn-lint's format checks (its checker and its
AWS::* format rules) and patterns evaluated as AWS does (cfngen._patterns, itself checked against
Java in test_patterns.py). Issue 5 asks for valid create inputs for at least 99 % of the corpus:
EXPECTED lists every schema that falls short, with the reason, so a regression (or a fix) fails.

    python -m pytest tests/test_instances_corpus.py -n 2
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from typing import Any

import pytest

from cfngen._instances import example_inputs
from cfngen._patterns import PatternError, search
from tests._corpus import corpus, corpus_names, corpus_schema

pytestmark = pytest.mark.corpus

#: type name -> (what fails: "create", "update", "invalid", or "lint" for a create input that
#: AWS accepts but cfn-lint's AWS::* format hints do not; why).
EXPECTED: dict[str, tuple[str, str]] = {
    "AWS::Kendra::DataSource": (
        "lint",
        "LambdaArn's pattern is a JavaScript literal (^/arn:.../$): no value matches both it and "
        "cfn-lint's AWS::Lambda::Function.Arn format; the input follows the pattern, as AWS does",
    ),
    "AWS::Logs::StorageTierPolicy": (
        "update",
        "StorageTier, the only updatable property, is required and its enum has one value",
    ),
}

_MISSING = object()


@functools.cache
def _aws_formats() -> dict[str, str]:
    """cfn-lint's AWS::* format keywords and the pattern each one checks."""
    import cfnlint.rules.formats as package
    from cfnlint.rules.formats.FormatKeyword import FormatKeyword

    out = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        rule = getattr(module, info.name, None)
        if isinstance(rule, type) and issubclass(rule, FormatKeyword) and rule is not FormatKeyword:
            instance = rule()
            if instance.format_keyword:
                out[instance.format_keyword] = instance.pattern
    return out


def _format(validator, fmt, instance, schema):
    from cfnlint.jsonschema._format import cfn_format_checker
    from jsonschema import ValidationError

    if fmt in cfn_format_checker.checkers:
        check, _ = cfn_format_checker.checkers[fmt]
        try:
            ok = check(instance)
        except Exception:  # cfn-lint's checks raise for some bad values
            ok = False
        if not ok:
            yield ValidationError(f"{instance!r} is not a {fmt}")


def _lint_format(validator, fmt, instance, schema):
    """cfn-lint's AWS::* formats: lint hints AWS does not check, that realistic values meet."""
    import regex
    from jsonschema import ValidationError

    yield from _format(validator, fmt, instance, schema)
    if (
        fmt in _aws_formats()
        and isinstance(instance, str)
        and not regex.match(_aws_formats()[fmt], instance)
    ):
        yield ValidationError(f"{instance!r} is not a {fmt} (cfn-lint)")


def _matches(pattern: str, value: str) -> bool:
    try:
        return search(pattern, value)
    except PatternError:
        return True  # Java cannot compile it either (see test_patterns.CORPUS_REJECTED)


def _pattern(validator, pattern, instance, schema):
    from jsonschema import ValidationError

    if isinstance(instance, str) and not _matches(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator, patterns, instance, schema):
    if isinstance(instance, dict):
        for pattern, subschema in patterns.items():
            for key, value in instance.items():
                if _matches(pattern, key):
                    yield from validator.descend(value, subschema, path=key)


def _additional_properties(validator, allowed, instance, schema):
    from jsonschema import ValidationError

    if not isinstance(instance, dict):
        return
    extras = [
        key
        for key in instance
        if key not in schema.get("properties", {})
        and not any(_matches(p, key) for p in schema.get("patternProperties", {}))
    ]
    if isinstance(allowed, dict):
        for key in extras:
            yield from validator.descend(instance[key], allowed, path=key)
    elif allowed is False and extras:
        yield ValidationError(f"unexpected properties {extras}")


@functools.cache
def _oracle_class(lint: bool = False) -> Any:
    from jsonschema import Draft7Validator, validators

    return validators.extend(
        Draft7Validator,
        {
            "format": _lint_format if lint else _format,
            "pattern": _pattern,
            "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties,
        },
    )


def _names(schema: dict[str, Any], key: str, depth: int | None = None) -> set[str]:
    """Top-level property names in a list of `/properties/...` pointers."""
    out = set()
    for pointer in schema.get(key, []):
        parts = pointer.split("/")
        if len(parts) >= 3 and parts[1] == "properties" and (depth is None or len(parts) == depth):
            out.add(parts[2])
    return out


def oracle_errors(schema: dict[str, Any], instance: Any, lint: bool = False) -> list[str]:
    """Why `instance` is not a valid create/update input (readOnly properties not required).

    lint=True also holds strings to cfn-lint's AWS::* formats.
    """
    read_only = _names(schema, "readOnlyProperties", depth=3)
    effective = dict(schema, required=[r for r in schema.get("required", []) if r not in read_only])
    validator = _oracle_class(lint)(effective)
    return [
        f"/{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}"
        for e in validator.iter_errors(instance)
    ]


def _outcome(schema: dict[str, Any]) -> tuple[str, str]:
    inputs = example_inputs(schema)
    create, update, invalid = inputs["create"], inputs["update"], inputs["invalid"]
    read_only = _names(schema, "readOnlyProperties", depth=3)
    if errors := oracle_errors(schema, create):
        return "create", "; ".join(errors[:3])
    if read_only & set(create):
        return "create", f"holds readOnly properties {sorted(read_only & set(create))}"
    if errors := oracle_errors(schema, update):
        return "update", "; ".join(errors[:3])
    create_only = _names(schema, "createOnlyProperties")
    changed = [
        name for name in create_only if create.get(name, _MISSING) != update.get(name, _MISSING)
    ]
    if changed:
        return "update", f"changes createOnly properties {changed}"
    fixed = create_only | read_only | _names(schema, "primaryIdentifier")
    updatable = [name for name in schema.get("properties", {}) if name not in fixed]
    if updatable and all(create.get(n, _MISSING) == update.get(n, _MISSING) for n in updatable):
        return "update", f"changes none of the updatable properties {updatable}"
    if not oracle_errors(schema, invalid):
        return "invalid", "validates"
    if errors := oracle_errors(schema, create, lint=True):
        return "lint", "; ".join(errors[:3])
    return "ok", ""


@pytest.mark.parametrize("type_name", corpus_names())
def test_example_inputs(type_name):
    what, why = _outcome(corpus_schema(type_name))
    expected = EXPECTED.get(type_name, ("ok", ""))[0]
    assert what == expected, (
        f"{type_name}: {what} fails: {why}"
        if what != "ok"
        else (f"{type_name} now passes: remove it from EXPECTED in {__file__}")
    )


def test_valid_create_inputs_for_99_percent_of_the_corpus():
    failing_creates = [name for name, (what, _) in EXPECTED.items() if what == "create"]
    assert 1 - len(failing_creates) / len(corpus()) >= 0.99
