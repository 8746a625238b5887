"""Break real, valid AWS schemas in exactly one way; cfngen must find exactly that, where it is.

Each rule mutates the parsed schema, writes it back as a user would (4-space indent), and
expects one new diagnostic with the right severity, pointer, line and column. The severity is
the official validator's verdict on the same mutation: an error where it rejects the schema,
a warning (an error only with --strict) where it accepts it, so that strictness never locks out
a project the official tool accepts. The expected
position is computed independently of cfngen: the offending value (or key) is replaced by a
sentinel in a copy, and the sentinel is found in that copy's text.
"""

from __future__ import annotations

import copy
import io
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from cfngen._schema import join_pointer, pointer_tokens
from cfngen._validate import validate_text
from tests._corpus import corpus_schema

#: Valid real schemas of different shapes (checked valid by test_bases_are_valid).
BASES = (
    "AWS::SQS::Queue",
    "AWS::Lambda::Function",
    "AWS::Logs::LogGroup",
    "AWS::SNS::Topic",
    "AWS::ECS::Cluster",
    "AWS::KMS::Key",
    "AWS::Events::Rule",
    "AWS::IAM::Role",
    "AWS::EC2::VPCEndpoint",
    "AWS::StepFunctions::StateMachine",
    "AWS::CloudWatch::Alarm",
    "AWS::ApiGateway::RestApi",
)
PER_RULE = 3
SENTINEL = "@@cfngen-sentinel@@"


def dump(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=4) + "\n"


def _parent(doc: Any, pointer: str) -> tuple[Any, str]:
    tokens = pointer_tokens(pointer)
    node = doc
    for token in tokens[:-1]:
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node, tokens[-1]


def sentinel_position(schema: dict[str, Any], pointer: str, *, key: bool) -> tuple[int, int]:
    """Line and column of the value (or key) at `pointer`, found without cfngen."""
    if not pointer:
        return 1, 1
    doc = copy.deepcopy(schema)
    parent, last = _parent(doc, pointer)
    if key:
        items = [(SENTINEL if k == last else k, v) for k, v in parent.items()]
        parent.clear()
        parent.update(items)
    elif isinstance(parent, list):
        parent[int(last)] = SENTINEL
    else:
        parent[last] = SENTINEL
    text = dump(doc)
    offset = text.index(json.dumps(SENTINEL))
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


# --------------------------------------------------------------------------- choosing targets


def _referenced(schema: dict[str, Any], name: str) -> bool:
    text = json.dumps(schema)
    return f"/properties/{name}" in text or name in schema.get("required", [])


def plain_string_property(schema: dict[str, Any]) -> str | None:
    for name, prop in schema["properties"].items():
        if (
            prop.get("type") == "string"
            and not _referenced(schema, name)
            and not {"$ref", "enum", "const", "pattern"} & set(prop)
        ):
            return name
    return None


def array_property(schema: dict[str, Any]) -> str | None:
    for name, prop in schema["properties"].items():
        if (
            prop.get("type") == "array"
            and isinstance(prop.get("items"), dict)
            and "insertionOrder" in prop
        ):
            return name
    return None


def object_definition(schema: dict[str, Any]) -> str | None:
    for name, definition in schema.get("definitions", {}).items():
        if isinstance(definition.get("properties"), dict) and "patternProperties" not in definition:
            return name
    return None


# --------------------------------------------------------------------------- the rules


@dataclass(frozen=True)
class Expect:
    pointer: str
    fragment: str
    key: bool = False


Mutation = Callable[[dict[str, Any]], Expect | None]


def missing_description(s):
    del s["description"]
    return Expect("", "missing required key 'description'")


def bad_type_name(s):
    s["typeName"] = "Acme::Widget"
    return Expect("/typeName", "is not a valid type name")


def bad_property_name(s):
    name = plain_string_property(s)
    if name is None:
        return None
    s["properties"] = {("Bad-Name" if k == name else k): v for k, v in s["properties"].items()}
    return Expect("/properties/Bad-Name", "'Bad-Name' is not a valid property name", key=True)


def conditional_keyword(s):
    name = plain_string_property(s)
    if name is None:
        return None
    s["properties"][name]["if"] = {"type": "string"}
    return Expect(f"/properties/{name}/if", "unknown key 'if'", key=True)


def misspelled_type(s):
    name = plain_string_property(s)
    if name is None:
        return None
    s["properties"][name]["type"] = "strng"
    return Expect(f"/properties/{name}/type", "'strng' is not a JSON type")


def timeout_too_short(s):
    s["handlers"]["create"]["timeoutInMinutes"] = 1
    return Expect("/handlers/create/timeoutInMinutes", "must be at least 2")


def timeout_too_long(s):
    s["handlers"]["update"]["timeoutInMinutes"] = 2161
    return Expect("/handlers/update/timeoutInMinutes", "must be at most 2160")


def handler_without_permissions(s):
    del s["handlers"]["read"]["permissions"]
    return Expect("/handlers/read", "missing required key 'permissions'")


def handler_with_empty_permissions(s):
    s["handlers"]["delete"]["permissions"] = []
    return Expect("/handlers/delete/permissions", "the delete handler lists no permissions")


def permission_with_a_space(s):
    s["handlers"]["read"]["permissions"][0] = "s3: GetObject"
    return Expect("/handlers/read/permissions/0", "is not an IAM action: it contains a space")


def open_resource(s):
    s["additionalProperties"] = True
    return Expect("/additionalProperties", "must be false")


def tuple_items(s):
    name = array_property(s)
    if name is None:
        return None
    prop = s["properties"][name]
    prop["items"] = [prop["items"]]
    return Expect(f"/properties/{name}/items", "must be an object, not an array")


def properties_and_pattern_properties(s):
    name = object_definition(s)
    if name is None:
        return None
    s["definitions"][name]["patternProperties"] = {".*": {"type": "string"}}
    return Expect(f"/definitions/{name}", "cannot be used together")


def enum_without_type(s):
    name = plain_string_property(s)
    if name is None:
        return None
    prop = s["properties"][name]
    del prop["type"]
    prop["enum"] = ["A", "B"]
    return Expect(f"/properties/{name}", '"enum" needs an explicit "type"')


def pointer_without_slash(s):
    # Not an identifier's: that one would also stop being readOnly (a second finding).
    candidates = [
        i for i, p in enumerate(s.get("readOnlyProperties", [])) if p not in s["primaryIdentifier"]
    ]
    if not candidates:
        return None
    s["readOnlyProperties"][candidates[0]] = s["readOnlyProperties"][candidates[0]].lstrip("/")
    return Expect(f"/readOnlyProperties/{candidates[0]}", "is not a JSON pointer")


def identifier_to_nothing(s):
    s["primaryIdentifier"][0] = "/properties/DoesNotExist"
    return Expect("/primaryIdentifier/0", "declares no property 'DoesNotExist'")


def dangling_ref(s):
    name = plain_string_property(s)
    if name is None:
        return None
    s["properties"][name] = {"$ref": "#/definitions/DoesNotExist"}
    return Expect(f"/properties/{name}/$ref", "does not resolve")


def read_only_and_write_only(s):
    if not s.get("readOnlyProperties"):
        return None
    s.setdefault("writeOnlyProperties", []).append(s["readOnlyProperties"][0])
    return Expect(
        f"/writeOnlyProperties/{len(s['writeOnlyProperties']) - 1}", "both readOnly and writeOnly"
    )


def read_only_and_create_only(s):
    if not s.get("readOnlyProperties"):
        return None
    s.setdefault("createOnlyProperties", []).append(s["readOnlyProperties"][0])
    return Expect(
        f"/createOnlyProperties/{len(s['createOnlyProperties']) - 1}",
        "both readOnly and createOnly",
    )


def conditional_and_create_only(s):
    if not s.get("createOnlyProperties"):
        return None
    s.setdefault("conditionalCreateOnlyProperties", []).append(s["createOnlyProperties"][0])
    index = len(s["conditionalCreateOnlyProperties"]) - 1
    return Expect(
        f"/conditionalCreateOnlyProperties/{index}", "both createOnly and conditionalCreateOnly"
    )


def unknown_replacement_strategy(s):
    s["replacementStrategy"] = "create_first"
    return Expect("/replacementStrategy", '"create_first" is not allowed')


def tag_property_to_nothing(s):
    if not isinstance(s.get("tagging"), dict):
        return None
    s["tagging"]["tagProperty"] = "/properties/DoesNotExist"
    return Expect("/tagging/tagProperty", "declares no property 'DoesNotExist'")


def tagging_without_taggable(s):
    if not isinstance(s.get("tagging"), dict):
        return None
    del s["tagging"]["taggable"]
    return Expect("/tagging", "missing required key 'taggable'")


def transform_of_nothing(s):
    s.setdefault("propertyTransform", {})["/properties/DoesNotExist"] = "$lowercase(X)"
    return Expect("/propertyTransform/~1properties~1DoesNotExist", "declares no property", key=True)


def reserved_remote(s):
    s["remote"] = {}
    return Expect("/remote", "unknown key 'remote'", key=True)


def array_type_on_a_string(s):
    name = plain_string_property(s)
    if name is None:
        return None
    s["properties"][name]["arrayType"] = "Standard"
    return Expect(f"/properties/{name}/arrayType", "arrayType only applies to arrays")


def empty_nested_properties(s):
    name = object_definition(s)
    if name is None:
        return None
    s["definitions"][name]["properties"] = {}
    return Expect(f"/definitions/{name}/properties", "declares no properties")


def required_twice(s):
    name = plain_string_property(s)
    if name is None:
        return None
    s["required"] = [*s.get("required", []), name, name]
    return Expect("/required", "more than once")


def required_but_undeclared(s):
    s["required"] = [*s.get("required", []), "DoesNotExist"]
    return Expect(f"/required/{len(s['required']) - 1}", "is required but not declared")


def top_level_type_object(s):
    s["type"] = "object"
    return Expect("/type", 'must be "RESOURCE"')


def misspelled_top_level_key(s):
    s["readonlyProperties"] = s.pop("readOnlyProperties", ["/properties/X"])
    return Expect("/readonlyProperties", "unknown key 'readonlyProperties'", key=True)


def wildcard_permission(s):
    s["handlers"]["read"]["permissions"].append("s3:*")
    index = len(s["handlers"]["read"]["permissions"]) - 1
    return Expect(f"/handlers/read/permissions/{index}", "wildcard permission")


def array_without_insertion_order(s):
    name = array_property(s)
    if name is None:
        return None
    del s["properties"][name]["insertionOrder"]
    return Expect(f"/properties/{name}", "without an explicit insertionOrder")


def hard_coded_partition(s):
    name = plain_string_property(s)
    if name is None:
        return None
    s["properties"][name]["pattern"] = "^arn:aws:s3:::[a-z0-9.-]+$"
    return Expect(f"/properties/{name}/pattern", "hard-codes the aws partition")


def java_only_regex(s):
    name = plain_string_property(s)
    if name is None:
        return None
    s["properties"][name]["pattern"] = "^[\\p{L}\\p{N}]+$"
    return Expect(f"/properties/{name}/pattern", "Java-only regex syntax")


def no_tagging(s):
    if "tagging" not in s:
        return None
    del s["tagging"]
    return Expect("", "does not say whether the resource supports tags")


#: Rule -> whether the official validator rejects the same mutation (then cfngen reports an
#: error, else a warning, unless the generated files would be wrong: WRONG_OUTPUT).
RULES: dict[Mutation, bool] = {
    missing_description: True,
    bad_type_name: True,
    bad_property_name: True,
    conditional_keyword: True,
    misspelled_type: True,
    timeout_too_short: True,
    timeout_too_long: True,
    handler_without_permissions: True,
    handler_with_empty_permissions: False,
    permission_with_a_space: False,
    open_resource: True,
    tuple_items: True,
    properties_and_pattern_properties: True,
    enum_without_type: True,
    pointer_without_slash: False,
    identifier_to_nothing: False,
    dangling_ref: True,
    read_only_and_write_only: False,
    read_only_and_create_only: False,
    conditional_and_create_only: True,
    unknown_replacement_strategy: True,
    tag_property_to_nothing: False,
    tagging_without_taggable: True,
    transform_of_nothing: False,
    reserved_remote: True,
    array_type_on_a_string: True,
    empty_nested_properties: True,
    required_twice: True,
    required_but_undeclared: False,
    top_level_type_object: True,
    misspelled_top_level_key: True,
    wildcard_permission: False,
    array_without_insertion_order: False,
    hard_coded_partition: False,
    java_only_regex: False,
    no_tagging: False,
}


#: Mistakes the official validator accepts that make a derived file wrong: errors all the same.
#: (IAM rejects resource-role.yaml with an action it cannot parse.)
WRONG_OUTPUT = {permission_with_a_space}


def _cases():
    for rule, official in RULES.items():
        found = 0
        for base in BASES:
            schema = copy.deepcopy(corpus_schema(base))
            if rule(schema) is None:
                continue
            yield pytest.param(rule, base, official, id=f"{rule.__name__}-{base}")
            found += 1
            if found == PER_RULE:
                break
        assert found, f"no base schema fits {rule.__name__}"


def _keys(report, severity):
    return {(d.pointer, d.message) for d in report.diagnostics if d.severity == severity}


def official_rejects(text: str) -> bool:
    from rpdk.core import data_loaders
    from rpdk.core.exceptions import SpecValidationError

    stream = io.StringIO(text)
    stream.name = "/nonexistent/schema.json"
    logging.disable(logging.CRITICAL)
    try:
        data_loaders.load_resource_spec(stream)
    except SpecValidationError:
        return True
    finally:
        logging.disable(logging.NOTSET)
    return False


@pytest.mark.parametrize("base", BASES)
def test_bases_are_valid(base):
    report = validate_text(dump(corpus_schema(base)))
    assert report.valid, [d for d in report.diagnostics if d.severity == "error"]


@pytest.mark.parametrize(("rule", "base", "official"), list(_cases()))
def test_one_mutation_one_diagnostic_at_the_right_place(rule, base, official):
    before = validate_text(dump(corpus_schema(base)))
    schema = copy.deepcopy(corpus_schema(base))
    expect = rule(schema)
    text = dump(schema)
    after = validate_text(text)
    severity = "error" if official or rule in WRONG_OUTPUT else "warning"

    new = _keys(after, severity) - _keys(before, severity)
    assert len(new) == 1, f"expected exactly one new {severity}, got {sorted(new)}"
    [diagnostic] = [
        d for d in after.diagnostics if d.severity == severity and (d.pointer, d.message) in new
    ]
    assert diagnostic.pointer == expect.pointer
    assert expect.fragment in diagnostic.message
    expected = sentinel_position(schema, expect.pointer, key=expect.key)
    assert (diagnostic.line, diagnostic.column) == expected
    assert after.valid is (severity == "warning")
    assert validate_text(text, strict=True).valid is False
    assert official_rejects(text) is official


@pytest.mark.parametrize("base", BASES[:PER_RULE])
def test_duplicate_key_is_reported_at_the_second_occurrence(base):
    text = dump(corpus_schema(base))
    lines = text.splitlines(keepends=True)
    [index] = [i for i, line in enumerate(lines) if line.startswith('    "description": ')]
    lines.insert(index + 1, '    "description": "A second description.",\n')
    report = validate_text("".join(lines))
    [dup] = [d for d in report.diagnostics if "duplicate key" in d.message]
    assert (dup.pointer, dup.line, dup.column) == ("/description", index + 2, 5)
    # The official tool keeps the last one, as cfngen does: a warning, an error with --strict.
    assert dup.severity == "warning" and report.valid
    assert not validate_text("".join(lines), strict=True).valid
    assert not official_rejects("".join(lines))


def test_sentinel_positions_match_cfngens_own_map():
    # The independent position finder agrees with cfngen's map on a whole real schema.
    from cfngen._schema import loads

    schema = corpus_schema("AWS::SQS::Queue")
    doc = loads(dump(schema))
    for name in schema["properties"]:
        pointer = join_pointer("/properties", name)
        assert sentinel_position(schema, pointer, key=False) == doc.position(pointer)
        assert sentinel_position(schema, pointer, key=True) == doc.key_position(pointer)
