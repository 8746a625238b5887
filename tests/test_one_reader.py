"""One reader per fact: CloudFormation templates are read in one module
(cfngen/_cfn_template.py), whichever kind or command reads them."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "cfngen"
TEMPLATE_LAYER = ROOT / "_cfn_template.py"
#: Reads YAML nodes to edit a template's Runtime values in place, keeping every other byte: a
#: writer's need, not a reading of the template.
EDITORS = {ROOT / "_runtime_edits.py"}


def _modules():
    for path in sorted(ROOT.rglob("*.py")):
        if "_support" not in path.parts:
            yield path, ast.parse(path.read_text())


def test_only_the_template_layer_decodes_templates_with_cfn_lint():
    found = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "cfnlint.decode":
                found.append(path)
    assert found == [TEMPLATE_LAYER]


def test_only_the_template_layer_makes_a_yaml_loader_for_templates():
    found = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "SafeLoader":
                found.append(path)
    assert set(found) - EDITORS == {TEMPLATE_LAYER}


def test_the_layer_reads_short_forms_both_ways():
    from cfngen._cfn_template import decode, plain, position, read_plain

    text = (
        "Resources:\n  B:\n    Type: AWS::S3::Bucket\n"
        "    Properties:\n      BucketName: !Ref Name\n"
    )
    decoded = decode(text)
    assert plain(decoded.template)["Resources"]["B"]["Properties"]["BucketName"] == {"Ref": "Name"}
    assert position(decoded.template["Resources"]["B"]) == (3, 5)
    assert read_plain(text)["Resources"]["B"]["Properties"]["BucketName"] == "Name"
    assert decode("Resources: [\n").errors and decode("Resources: [\n").template is None


def test_no_logic_module_is_over_400_lines():
    """Small modules: a data table (the Unicode classes) and the custom resource helper, which
    projects get as one standard-library file on purpose, are the exceptions; the rest of the
    runtime library (cfngen/_support/cfngen_runtime/) counts like any module."""
    exceptions = {
        ROOT / "_patterns" / "_unicode.py",
        ROOT / "_support" / "cfngen_runtime" / "custom_resource.py",
    }
    long = [
        path.relative_to(ROOT).as_posix()
        for path in sorted(ROOT.rglob("*.py"))
        if path not in exceptions and len(path.read_text().splitlines()) > 400
    ]
    assert long == []


#: What the file layer may import from cfngen: itself and the modules below every engine.
_BELOW_ENGINES = ("cfngen._files", "cfngen._errors", "cfngen._git", "cfngen._progress")


def _imports(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module, [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []


def test_the_file_layer_imports_no_engine_and_no_kind():
    """The manifest, the conflict detector and the caches sit below every engine."""
    upward = [
        (path.relative_to(ROOT).as_posix(), module)
        for path, tree in _modules()
        if "_files" in path.relative_to(ROOT).parts
        for module, names in _imports(tree)
        if module.startswith("cfngen")
        and module != "cfngen"  # the version
        and not module.startswith(_BELOW_ENGINES)
    ]
    assert upward == []


def test_no_engine_imports_another_for_the_ownership_manifest():
    """init, upgrade, test and build read which files are cfngen's from the file layer, not
    from the generate engine."""
    manifest_names = {"_ownership", "_conflicts", "refuse_conflicts", "conflicted_files"}
    found = [
        (path.relative_to(ROOT).as_posix(), module)
        for path, tree in _modules()
        if "_generate" not in path.relative_to(ROOT).parts
        for module, names in _imports(tree)
        if module.startswith("cfngen._generate")
        and (module.rsplit(".", 1)[-1] in manifest_names or manifest_names & set(names))
    ]
    assert found == []


#: The modules that write a file by renaming a temporary one over it: write_atomic, the
#: Transaction and its journal, and the cache entries (locked and synced, one layer).
_ATOMIC_WRITERS = {ROOT / "_files" / name for name in ("_atomic.py", "_journal.py", "_cache.py")}
_ATOMIC_WRITERS.add(ROOT / "_files" / "_transaction.py")
#: git wants a fresh index file name for `git write-tree`: a name, not a write of cfngen's.
_GIT_INDEX = ROOT / "_init" / "_template_repo.py"


def _calls(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            yield node, node.func.attr, owner.id if isinstance(owner, ast.Name) else None


def test_one_digest_of_bytes():
    """Every digest cfngen records or compares (manifest, journal, cache entries, build keys,
    the watch) is cfngen._files.sha256: no second `hashlib.<algorithm>(data).hexdigest()`."""
    found = [
        path.relative_to(ROOT).as_posix()
        for path, tree in _modules()
        for node, attr, _owner in _calls(tree)
        if attr == "hexdigest" and isinstance(node.func.value, ast.Call) and node.func.value.args
    ]
    assert found == ["_files/_digest.py"]


def test_one_atomic_write():
    """A file replaced whole goes through the file layer (write_atomic, a Transaction, a
    cache): no module elsewhere renames a temporary file over another."""
    found = [
        (path.relative_to(ROOT).as_posix(), node.lineno)
        for path, tree in _modules()
        if path not in _ATOMIC_WRITERS
        for node, attr, owner in _calls(tree)
        if (attr == "replace" and owner == "os")
        # Path.replace(target); str.replace takes two arguments, dataclasses.replace keywords
        or (attr == "replace" and len(node.args) == 1 and not node.keywords)
        or (attr in ("mkstemp", "NamedTemporaryFile") and path != _GIT_INDEX)
    ]
    assert found == []


# ------------------------------------------------------------------ one wording of a broken rule

#: What cfngen says when a value breaks a schema's rule, whichever check finds it.
_RULES = {
    "type": ({"type": "integer"}, "3", "must be an integer, not a string"),
    "minLength": (
        {"type": "string", "minLength": 2},
        "k",
        "must be at least 2 characters long, not 1",
    ),
    "maximum": ({"type": "integer", "maximum": 10}, 30, "must be at most 10, not 30"),
    "enum": ({"enum": ["A", "B"]}, "C", '"C" is not allowed; use one of "A", "B"'),
}


def _configuration_problem(tmp_path, schema, value):
    from cfngen._errors import CfngenError
    from cfngen._kind import Configuration
    from cfngen._package._configure import read_configuration

    path = tmp_path / "config.json"
    path.write_text(json.dumps({"Size": value}))
    try:
        read_configuration(path, Configuration(), schema)
    except CfngenError as error:
        return error.message.rsplit("schema: ", 1)[1]
    return None


@pytest.mark.parametrize("rule", list(_RULES))
def test_a_broken_rule_reads_the_same_in_every_check(tmp_path, rule):
    """A model a handler returns (and an input), a type configuration and a custom resource's
    properties are checked against a schema by different validators: each says the same
    sentence, the one `cfngen validate` says about a schema (cfngen/_schema/_wording.py)."""
    from cfngen._instances import model_errors

    rule_schema, value, said = _RULES[rule]
    schema = {
        "typeName": "Acme::Test::Thing",
        "properties": {"Size": rule_schema},
        "additionalProperties": False,
        "primaryIdentifier": ["/properties/Size"],
    }
    assert model_errors(schema, {"Size": value}) == [("/Size", said)]
    configuration = {"properties": {"Size": rule_schema}, "additionalProperties": False}
    assert _configuration_problem(tmp_path, configuration, value) == f"/Size: {said}"


@pytest.mark.parametrize(
    ("text", "pointer", "said"),
    [
        ('"description": 5', "/description", "must be a string, not an integer"),
        ('"descriptoin": "x", "description": "x"', "/descriptoin", "unknown key 'descriptoin'"),
    ],
)
def test_validate_says_it_of_a_schema_in_the_same_words(cli, tmp_path, text, pointer, said):
    """The meta-schema's findings and an instance's, for the same rule: the same sentence."""
    from cfngen._instances import model_errors

    path = tmp_path / "acme-test-thing.json"
    path.write_text(
        '{"typeName": "Acme::Test::Thing", '
        + text
        + ', "properties": {"Id": {"type": "string"}}, "additionalProperties": false, '
        '"primaryIdentifier": ["/properties/Id"]}'
    )
    done = cli("validate", path, "--format", "json")
    found = {
        (d["pointer"], d["message"]) for d in json.loads(done.stdout)["files"][0]["diagnostics"]
    }
    assert (pointer, said) in found
    instance_schema = {
        "typeName": "Acme::Test::Thing",
        "properties": {"description": {"type": "string"}},
        "additionalProperties": False,
        "primaryIdentifier": ["/properties/description"],
    }
    key = pointer.lstrip("/")
    value = 5 if key == "description" else "x"
    assert (pointer, said) in model_errors(instance_schema, {"description": "x", key: value})


def test_only_the_wording_module_words_a_broken_rule():
    """The sentences are written in one module; the checks hand it the keyword and values.
    No module reads jsonschema's own message for a user (`'x' is a required property`)."""
    phrases = (
        "missing required key",
        "characters long, not",
        "more than once",
        "allowed alternatives",
        "required when",
        "is not a property this object",  # the conformance checker's old wording
        "is a required property",  # jsonschema's
    )
    found = sorted(
        {
            path.relative_to(ROOT).as_posix()
            for path, tree in _modules()
            for text in _strings_but_docstrings(tree)
            if any(phrase in text for phrase in phrases)
        }
    )
    assert found == ["_schema/_wording.py"]


def _strings_but_docstrings(tree):
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            yield node.value
