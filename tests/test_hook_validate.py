"""`cfngen validate` on hook schemas: planted bugs named where they are, the official loader as the
oracle, and every real hook schema in tests/fixtures/hooks accepted.

Each mutation breaks the official example hook schema in one way; cfngen must report exactly
that (severity, pointer, words, line and column, the position found without cfngen). The
official loader (`rpdk.core.data_loaders.load_hook_spec`) must agree: what it rejects is an error
for cfngen; what it accepts is at most a warning, except the rows of DIFFERENCES, which
docs/validate.md lists with their reasons.
"""

from __future__ import annotations

import copy
import io
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cfngen._kinds.hook import KIND as HOOK
from cfngen._validate import validate_paths, validate_text
from tests.test_validate_mutations import dump, sentinel_position

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "hooks"
CORPUS = sorted((FIXTURES / "corpus").glob("*.json"))


def official_example() -> dict[str, Any]:
    import rpdk.core

    path = Path(rpdk.core.__file__).parent / "data/examples/hook/sse.verification.v1.json"
    return json.loads(path.read_text(encoding="utf-8"))


def base() -> dict[str, Any]:
    """The official example under a name of our own (AWS:: is reserved: a warning)."""
    schema = official_example()
    schema["typeName"] = "Acme::Sse::VerificationHook"
    return schema


def official_verdict(text: str) -> str:
    """'ok', or 'rejected: <first line of the official message>'."""
    from rpdk.core import data_loaders
    from rpdk.core.exceptions import SpecValidationError

    stream = io.StringIO(text)
    stream.name = "/nonexistent/hook.json"
    logging.disable(logging.CRITICAL)
    try:
        data_loaders.load_hook_spec(stream)
    except SpecValidationError as exc:
        return "rejected: " + str(exc).splitlines()[0]
    finally:
        logging.disable(logging.NOTSET)
    return "ok"


# --------------------------------------------------------------------------- mutations


def _set(pointer: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(schema: dict[str, Any]) -> None:
        *parents, last = pointer.strip("/").split("/")
        node: Any = schema
        for token in parents:
            node = node[int(token)] if isinstance(node, list) else node[token]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return mutate


def _delete(pointer: str) -> Callable[[dict[str, Any]], None]:
    def mutate(schema: dict[str, Any]) -> None:
        *parents, last = pointer.strip("/").split("/")
        node: Any = schema
        for token in parents:
            node = node[token]
        del node[last]

    return mutate


@dataclass(frozen=True)
class Mutation:
    name: str
    mutate: Callable[[dict[str, Any]], None]
    severity: str
    #: Where cfngen must report it, and whether at the key (a name) or the value.
    pointer: str
    words: str
    key: bool = False


T = "/handlers/preCreate/targetNames"
P = "/handlers/preCreate/permissions"
MUTATIONS = [
    # What the official loader rejects.
    Mutation("no typeName", _delete("/typeName"), "error", "", "missing required key 'typeName'"),
    Mutation("no description", _delete("/description"), "error", "", "'description'"),
    Mutation(
        "no typeConfiguration", _delete("/typeConfiguration"), "error", "", "'typeConfiguration'"
    ),
    Mutation(
        "additionalProperties true",
        _set("/additionalProperties", True),
        "error",
        "/additionalProperties",
        "must be false",
    ),
    Mutation(
        "top-level properties",
        _set("/properties", {"A": {"type": "string"}}),
        "error",
        "/properties",
        "unknown key 'properties'",
        key=True,
    ),
    Mutation(
        "bad typeName",
        _set("/typeName", "Acme::Sse"),
        "error",
        "/typeName",
        "not a valid type name",
    ),
    Mutation(
        "unknown handler",
        _set("/handlers/create", {"targetNames": [], "permissions": []}),
        "error",
        "/handlers/create",
        "unknown key 'create'",
        key=True,
    ),
    Mutation(
        "timeoutInMinutes",
        _set("/handlers/preCreate/timeoutInMinutes", 5),
        "error",
        "/handlers/preCreate/timeoutInMinutes",
        "unknown key 'timeoutInMinutes'",
        key=True,
    ),
    Mutation(
        "no permissions",
        _delete("/handlers/preCreate/permissions"),
        "error",
        "/handlers/preCreate",
        "missing required key 'permissions'",
    ),
    Mutation(
        "no targetNames",
        _delete("/handlers/preCreate/targetNames"),
        "error",
        "/handlers/preCreate",
        "missing required key 'targetNames'",
    ),
    Mutation("targetNames a string", _set(T, "AWS::S3::Bucket"), "error", T, "must be an array"),
    Mutation("cloudformation:*", _set(P, ["cloudformation:*"]), "error", f"{P}/0", "wildcard"),
    Mutation(
        "cloudformation:RegisterType",
        _set(P, ["cloudformation:RegisterType"]),
        "error",
        f"{P}/0",
        "cloudformation:RegisterType",
    ),
    Mutation("*? in a target", _set(f"{T}/0", "AWS::S3::*?"), "error", f"{T}/0", "'*?'"),
    Mutation(
        "reserved configuration name",
        _set("/typeConfiguration/properties/CloudFormationMode", {"type": "string"}),
        "error",
        "/typeConfiguration/properties/CloudFormationMode",
        "not a valid configuration",
        key=True,
    ),
    Mutation(
        "configuration additionalProperties true",
        _set("/typeConfiguration/additionalProperties", True),
        "error",
        "/typeConfiguration/additionalProperties",
        "must be false",
    ),
    Mutation(
        "configuration without properties",
        _delete("/typeConfiguration/properties"),
        "error",
        "/typeConfiguration",
        "missing required key 'properties'",
    ),
    Mutation(
        "bad configuration property schema",
        _set("/typeConfiguration/properties/EncryptionAlgorithm/type", "text"),
        "error",
        "/typeConfiguration/properties/EncryptionAlgorithm/type",
        "'text' is not a JSON type",
    ),
    Mutation(
        "dangling $ref",
        _set("/typeConfiguration/properties/EncryptionAlgorithm", {"$ref": "#/definitions/Nope"}),
        "error",
        "/typeConfiguration/properties/EncryptionAlgorithm/$ref",
        "Nope",
    ),
    # What the official loader accepts and cfngen warns about.
    Mutation(
        "unknown AWS type",
        _set(f"{T}/0", "AWS::S3::Bucketz"),
        "warning",
        f"{T}/0",
        "AWS::S3::Bucket'?",
    ),
    Mutation(
        "wrong case",
        _set(f"{T}/0", "AWS::S3::bucket"),
        "warning",
        f"{T}/0",
        "did you mean 'AWS::S3::Bucket'",
    ),
    Mutation(
        "AWS namespace in another case",
        _set(f"{T}/0", "aws::s3::bucket"),
        "warning",
        f"{T}/0",
        "did you mean 'AWS::S3::Bucket'",
    ),
    Mutation(
        "AWS namespace in another case, wildcard",
        _set(f"{T}/0", "Aws::s3::*"),
        "warning",
        f"{T}/0",
        "did you mean 'AWS::S3::*'",
    ),
    Mutation(
        "wildcard matching nothing",
        _set(f"{T}/0", "AWS::Nothing::*"),
        "warning",
        f"{T}/0",
        "matches none",
    ),
    Mutation(
        "not a type name",
        _set(f"{T}/0", "S3Bucket"),
        "warning",
        f"{T}/0",
        "neither a resource type",
    ),
    Mutation(
        "CLOUD_CONTROL", _set(f"{T}/0", "CLOUD_CONTROL"), "warning", f"{T}/0", "target operation"
    ),
    Mutation("empty targetNames", _set(T, []), "warning", T, "names no target"),
    Mutation(
        "repeated target",
        _set(T, ["AWS::S3::Bucket", "AWS::S3::Bucket"]),
        "warning",
        f"{T}/1",
        "listed twice",
    ),
    Mutation("* permission", _set(P, ["*"]), "warning", f"{P}/0", "wildcard permission"),
    Mutation("no handlers", _delete("/handlers"), "warning", "", "declares no handlers"),
    Mutation(
        "required names a property",
        _set("/required", ["Bucket"]),
        "warning",
        "/required/0",
        "no properties",
    ),
    Mutation(
        "configuration required names nothing",
        _set("/typeConfiguration/required", ["Nope"]),
        "warning",
        "/typeConfiguration/required/0",
        "not declared",
    ),
    Mutation(
        "reserved namespace",
        _set("/typeName", "AWS::Sse::VerificationHook"),
        "warning",
        "/typeName",
        "reserved",
    ),
]

#: What the official loader accepts that cfngen refuses, each for the reason docs/validate.md gives.
DIFFERENCES = {
    "typeName differs from .rpdk-config": "a project-level check: the official loader never "
    "sees .rpdk-config (test_a_project_whose_schema_names_another_type_is_invalid)",
}


def test_the_base_is_valid_and_clean() -> None:
    report = validate_text(dump(base()), kind=HOOK)
    assert report.diagnostics == []
    assert official_verdict(dump(base())) == "ok"


def test_the_official_example_has_only_the_reserved_namespace_warning() -> None:
    report = validate_text(dump(official_example()), kind=HOOK)
    assert report.valid
    assert [(d.severity, d.pointer) for d in report.diagnostics] == [("warning", "/typeName")]


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.name)
def test_a_planted_bug_is_named_where_it_is(mutation: Mutation) -> None:
    schema = base()
    mutation.mutate(schema)
    report = validate_text(dump(schema), kind=HOOK)
    found = [
        d
        for d in report.diagnostics
        if d.pointer == mutation.pointer and mutation.words in f"{d.message} ({d.hint})"
    ]
    assert found, f"{mutation.name}: not reported; got {report.diagnostics}"
    assert found[0].severity == mutation.severity
    assert (found[0].line, found[0].column) == sentinel_position(
        schema, mutation.pointer, key=mutation.key
    )
    others = [d for d in report.diagnostics if d.severity == "error" and d not in found]
    assert not others, f"{mutation.name}: more errors than the planted one: {others}"


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.name)
def test_cfngen_agrees_with_the_official_loader(mutation: Mutation) -> None:
    schema = base()
    mutation.mutate(schema)
    text = dump(schema)
    theirs = official_verdict(text)
    ours = validate_text(text, kind=HOOK)
    if theirs != "ok":
        assert not ours.valid, f"official {theirs}; cfngen accepts it"
    elif mutation.name in DIFFERENCES:
        assert not ours.valid
    else:
        assert ours.valid, f"the official loader accepts it; cfngen: {ours.diagnostics}"


def test_the_differences_are_the_table_in_the_docs() -> None:
    text = (ROOT / "docs" / "validate.md").read_text(encoding="utf-8")
    section = text.split("## Hook schemas", 1)[1]
    rows = re.findall(r"^\| ([^|]+?) \| [^|]+ \|$", section, re.MULTILINE)
    documented = {row.strip().strip("`") for row in rows[1:]}  # below the header
    assert documented == set(DIFFERENCES), "docs/validate.md's hook table and DIFFERENCES differ"


# --------------------------------------------------------------------------- real hooks


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_real_hook_schemas_are_valid_and_the_official_loader_agrees(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert official_verdict(text) == "ok"
    report = validate_text(text, path=path, kind=HOOK)
    errors = [d for d in report.diagnostics if d.severity == "error"]
    assert not errors


def test_real_wildcard_targets_are_known() -> None:
    report = validate_text((FIXTURES / "corpus" / "lambda-invoker.json").read_text(), kind=HOOK)
    assert [d for d in report.diagnostics if "/targetNames" in d.pointer] == []


def test_empty_target_lists_of_real_hooks_are_warnings() -> None:
    path = FIXTURES / "corpus" / "s3-bucketversioningenabled.json"
    report = validate_text(path.read_text(), path=path, kind=HOOK)
    assert [(d.severity, d.pointer) for d in report.diagnostics] == [
        ("warning", "/handlers/preDelete/targetNames")
    ]


# --------------------------------------------------------------------------- projects


def _project(tmp_path: Path, schema: dict[str, Any], type_name: str) -> Path:
    config = {
        "artifact_type": "HOOK",
        "typeName": type_name,
        "language": "python312",
        "runtime": "python3.12",
        "entrypoint": "acme_sse_verificationhook.handlers.hook",
    }
    (tmp_path / ".rpdk-config").write_text(json.dumps(config))
    name = "-".join(type_name.split("::")).lower() + ".json"
    (tmp_path / name).write_text(dump(schema))
    return tmp_path


def test_a_project_whose_schema_names_another_type_is_invalid(tmp_path: Path) -> None:
    schema = base()
    schema["typeName"] = "Acme::Sse::OtherHook"
    root = _project(tmp_path, schema, "Acme::Sse::VerificationHook")
    (report,) = validate_paths([root])
    assert not report.valid
    (problem,) = report.diagnostics
    assert problem.pointer == "/typeName" and "registers" in problem.message
    assert official_verdict(dump(schema)) == "ok"  # a row of DIFFERENCES


def test_a_hook_project_validates_as_a_hook(tmp_path: Path) -> None:
    root = _project(tmp_path, base(), "Acme::Sse::VerificationHook")
    (report,) = validate_paths([root])
    assert report.valid and report.diagnostics == []


def test_the_cli_prints_json_and_exits_1_on_an_invalid_hook(tmp_path: Path, capsys) -> None:
    from cfngen._cli import main

    schema = base()
    schema["handlers"]["preCreate"]["permissions"] = ["cloudformation:*"]
    path = tmp_path / "hook.json"
    path.write_text(dump(schema))
    assert main(["validate", "--format", "json", str(path)]) == 1
    doc = json.loads(capsys.readouterr().out)
    (diagnostic,) = doc["files"][0]["diagnostics"]
    assert diagnostic["pointer"] == "/handlers/preCreate/permissions/0"
    assert diagnostic["line"] is not None


def test_strict_fails_on_a_hook_warning(tmp_path: Path) -> None:
    schema = copy.deepcopy(base())
    schema["handlers"]["preCreate"]["permissions"] = ["*"]
    path = tmp_path / "hook.json"
    path.write_text(dump(schema))
    (loose,) = validate_paths([path])
    (strict,) = validate_paths([path], strict=True)
    assert loose.valid and not strict.valid


# --------------------------------------------------------------------------- type configurations

CONFIGURED = {
    "typeName": "Acme::Guard::Hook",
    "description": "a hook with settings",
    "definitions": {"Level": {"type": "string", "enum": ["low", "high"]}},
    "typeConfiguration": {
        "properties": {
            "EncryptionAlgorithm": {"type": "string", "enum": ["AES256", "aws:kms"]},
            "Level": {"$ref": "#/definitions/Level"},
            "Limit": {"type": "integer"},
        },
        "required": ["Level"],
        "additionalProperties": False,
    },
    "handlers": {"preCreate": {"targetNames": ["STACK"], "permissions": []}},
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("configuration", "problems"),
    [
        ({"Level": "low", "EncryptionAlgorithm": "AES256", "Limit": 3}, []),
        ({"Level": "low", "Mode": "x"}, ["/Mode: unknown key 'Mode'"]),
        ({"Level": "medium"}, ["/Level: "]),  # through its $ref
        ({"Level": "low", "Limit": "3"}, ["/Limit: must be an integer, not a string"]),
        ({}, ["/Level: missing required key 'Level'"]),
    ],
)
def test_a_type_configuration_is_checked_against_the_hooks_settings(
    tmp_path, configuration, problems
):
    from cfngen._contract._type_configuration import type_configuration
    from cfngen._errors import CfngenError

    path = tmp_path / "config.json"
    path.write_text(json.dumps(configuration))
    try:
        type_configuration(tmp_path, {}, CONFIGURED, path)
        found = ""
    except CfngenError as error:
        found = error.message
    assert all(problem in found for problem in problems), found
    assert bool(found) == bool(problems), found
