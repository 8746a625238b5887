"""`cfngen validate` on `propertyTransform` expressions: every transform AWS ships parses, and
a broken one, a field no model has, or a pattern that does not compile is named at its key."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from cfngen._kinds._shared._transforms import TransformError, parse, split_alternatives
from cfngen._validate import validate_text
from tests._corpus import corpus, corpus_text

#: The transforms in the bundle of the cfn-lint version cfngen pins (1.58.0): keys, schemas
#: holding them, and alternatives once `$OR` is split.
BUNDLE_KEYS, BUNDLE_SCHEMAS, BUNDLE_ALTERNATIVES = 206, 109, 253


def _schema(transforms: dict[str, str]) -> dict:
    return {
        "typeName": "Acme::Test::Thing",
        "description": "a thing",
        "properties": {
            "Name": {"type": "string"},
            "EngineVersion": {"type": "string"},
            "Settings": {
                "type": "object",
                "additionalProperties": False,
                "properties": {"KmsKeyId": {"type": "string"}, "Mode": {"type": "string"}},
            },
            "Rules": {
                "type": "array",
                "insertionOrder": False,
                "items": {"$ref": "#/definitions/Rule"},
            },
        },
        "definitions": {
            "Rule": {
                "type": "object",
                "additionalProperties": False,
                "properties": {"Key": {"type": "string"}},
            }
        },
        "propertyTransform": transforms,
        "tagging": {"taggable": False},
        "additionalProperties": False,
        "primaryIdentifier": ["/properties/Name"],
        "createOnlyProperties": ["/properties/Name"],
        "handlers": {"read": {"permissions": ["s3:GetObject"]}},
    }


def _write(tmp_path: Path, transforms: dict[str, str]) -> tuple[Path, str]:
    text = json.dumps(_schema(transforms), indent=4)
    path = tmp_path / "acme-test-thing.json"
    path.write_text(text, encoding="utf-8")
    return path, text


def _key_position(text: str, key: str) -> tuple[int, int]:
    """1-based line and column of the key's opening quote."""
    for number, line in enumerate(text.splitlines(), start=1):
        column = line.find(json.dumps(key) + ":")
        if column >= 0:
            return number, column + 1
    raise AssertionError(f"{key} not in the text")


def _findings(cli, path: Path, code: str) -> list[dict]:
    result = cli("validate", path, "--format", "json")
    assert result.exit_code == 0, result.stdout + result.stderr  # warnings: still valid
    found = json.loads(result.stdout)["files"][0]["diagnostics"]
    return [d for d in found if d["code"] == code]


# --------------------------------------------------------------------------- the bundle


def test_every_transform_in_the_pinned_cfn_lint_bundle_parses():
    keys = alternatives = 0
    schemas = set()
    broken = []
    started = time.perf_counter()
    for name, schema in corpus().items():
        for key, expression in (schema.get("propertyTransform") or {}).items():
            keys += 1
            schemas.add(name)
            for alternative in split_alternatives(expression):
                alternatives += 1
                try:
                    parse(alternative.text)
                except TransformError as exc:
                    broken.append(f"{name} {key} #{alternative.number}: {exc}")
    seconds = time.perf_counter() - started
    assert not broken, "\n".join(broken)
    assert (keys, len(schemas), alternatives) == (
        BUNDLE_KEYS,
        BUNDLE_SCHEMAS,
        BUNDLE_ALTERNATIVES,
    )
    assert seconds < 5, f"parsing the bundle took {seconds:.2f} s"


def test_validate_reports_no_transform_syntax_in_the_bundle():
    """Through validate, which places findings: the same schemas, no syntax finding."""
    with_transforms = [n for n, s in corpus().items() if s.get("propertyTransform")]
    for name in with_transforms:
        report = validate_text(corpus_text(name), display=name)
        codes = {d.code for d in report.diagnostics}
        assert "cfngen/transform-syntax" not in codes, name


# --------------------------------------------------------------------------- syntax


@pytest.mark.parametrize(
    ("expression", "number"),
    [
        ("$lowercase(Name", 1),  # unclosed call
        ("Name $OR $join([Name, ", 2),  # the second alternative is broken
        ("Name $OR", 2),  # an empty alternative
        ("$lowercase(Name) $OR Name = = 'x'", 2),  # an operator without a left side
        ("Name.", 1),  # a path that stops
    ],
)
def test_a_broken_expression_is_named_at_its_key(cli, tmp_path, expression, number):
    path, text = _write(tmp_path, {"/properties/Name": expression})
    found = _findings(cli, path, "cfngen/transform-syntax")
    assert len(found) == 1, found
    line, column = _key_position(text, "/properties/Name")
    assert (found[0]["line"], found[0]["column"]) == (line, column)
    assert found[0]["severity"] == "warning"
    assert found[0]["pointer"] == "/propertyTransform/~1properties~1Name"
    message = found[0]["message"]
    assert "/properties/Name is not a JSONata expression" in message
    if len(split_alternatives(expression)) > 1:
        assert f"alternative {number} " in message
    # --strict: a schema whose transform cannot be evaluated is rejected.
    assert cli("validate", path, "--strict").exit_code == 1


def test_text_output_gives_the_key_line_and_column(cli, tmp_path):
    path, text = _write(tmp_path, {"/properties/Name": "$uppercase(Name"})
    line, column = _key_position(text, "/properties/Name")
    result = cli("validate", path)
    assert f"{path.name}:{line}:{column}: warning: /propertyTransform/" in result.stdout


# --------------------------------------------------------------------------- fields, keys, patterns


@pytest.mark.parametrize(
    ("key", "expression", "unknown"),
    [
        ("/properties/Name", "$lowercase(Nmae)", "'Nmae'"),
        ("/properties/Name", "Name $OR $join([Nam, '.'])", "'Nam'"),
        ("/properties/Settings/KmsKeyId", "$split(KeyId, '/')[-1]", "'KeyId'"),
        ("/properties/Settings/KmsKeyId", "Settings.KmsKey", "'Settings.KmsKey'"),
        ("/properties/Rules/*/Key", "$lowercase(Keys)", "'Keys'"),
    ],
)
def test_an_alternative_naming_a_field_found_nowhere_is_a_warning(
    cli, tmp_path, key, expression, unknown
):
    path, _text = _write(tmp_path, {key: expression})
    found = _findings(cli, path, "cfngen/transform-unknown-field")
    assert len(found) == 1, found
    assert unknown in found[0]["message"]


@pytest.mark.parametrize(
    ("key", "expression"),
    [
        ("/properties/Name", "$lowercase(Name)"),  # at the root
        ("/properties/Settings/KmsKeyId", "$split(KmsKeyId, '/')[-1]"),  # in the parent
        ("/properties/Settings/KmsKeyId", "Settings.KmsKeyId $OR KmsKeyId"),  # both
        ("/properties/Rules/*/Key", "$lowercase(Key)"),  # in the item
        ("/properties/Name", "Rules[Key='x'] ? Name : $lowercase(Name)"),  # in a predicate
        ("/properties/Name", "$map(Rules, function($r){ $r.Key })[0]"),  # in a lambda
        ("/properties/Settings/Mode", "$uppercase(Settings.Mode)"),
    ],
)
def test_fields_that_exist_are_not_reported(cli, tmp_path, key, expression):
    path, _text = _write(tmp_path, {key: expression})
    assert _findings(cli, path, "cfngen/transform-unknown-field") == []
    assert _findings(cli, path, "cfngen/transform-syntax") == []


@pytest.mark.parametrize(
    ("key", "fragment"),
    [
        ("/properties/Name/*", "is not an array"),  # a string's items
        ("/properties/Settings/*/Mode", "is not an array"),  # an object's items
        ("/properties/Rules/Key", "write /properties/Rules/*/Key"),  # items without `*`
    ],
)
def test_a_wildcard_must_name_array_items(cli, tmp_path, key, fragment):
    path, text = _write(tmp_path, {key: "Name"})
    result = cli("validate", path, "--format", "json")
    found = [
        d
        for d in json.loads(result.stdout)["files"][0]["diagnostics"]
        if d["pointer"].startswith("/propertyTransform/")
    ]
    assert len(found) == 1, found
    assert fragment in found[0]["message"] + (found[0]["hint"] or "")
    assert (found[0]["line"], found[0]["column"]) == _key_position(text, key)


@pytest.mark.parametrize(
    ("expression", "pattern"),
    [
        ('$join(["[a-", Name])', "'[a-x'"),  # an unclosed class, built with the value
        ('$join([Name, "(.*"])', "'x(.*'"),  # an unclosed group
        ("$replace(Name, 'x', '[0-9+')", "'[0-9+'"),  # a literal alone
        ('$join(["a{2,1}", Name], "|")', "'a{2,1}|x'"),  # a separator joins the pieces
    ],
)
def test_a_pattern_a_transform_builds_must_compile(cli, tmp_path, expression, pattern):
    path, _text = _write(tmp_path, {"/properties/Name": expression})
    found = _findings(cli, path, "cfngen/transform-pattern")
    assert len(found) == 1, found
    assert pattern in found[0]["message"]


@pytest.mark.parametrize(
    "expression",
    [
        '$join([EngineVersion, ".*"])',
        '$join(["arn:.+?:kms:.+?:.+?:key\\\\/", Name])',
        '$join(["^", $replace($replace(Name, ".", "\\\\\\\\."), "x", "[0-9]+"), "$"])',
        '$join([Name, "."])',  # a dot and text: no pattern to check
        '"custom:" & Name',
    ],
)
def test_patterns_that_compile_are_not_reported(cli, tmp_path, expression):
    path, _text = _write(tmp_path, {"/properties/Name": expression})
    assert _findings(cli, path, "cfngen/transform-pattern") == []
    assert _findings(cli, path, "cfngen/transform-syntax") == []
