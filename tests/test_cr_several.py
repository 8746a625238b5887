"""Templates with several custom resources: `cfngen test` runs the suite of each (named
`cr_create[LogicalId]`; `--resource` still picks one), `pytest --cfngen` makes an item of each,
and a properties schema or inputs file applies to the type it is for, never to every custom
type of the template (`properties-schema.json` for one type, `properties-schemas/
<Custom__Name>.json` for several)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cfngen._kinds.custom_resource._tests import TEST_NAMES
from tests.test_cr_protocol import RAW

#: RAW's resource for a type whose one property is a number of items.
SIZED = RAW.replace(
    '            if not properties.get("Name"):\n'
    '                raise ValueError("Name is required")\n'
    '            data = {"Greeting": "Hello, " + properties["Name"]}\n',
    '            data = {"Size": str(int(properties["Size"]))}  # ValueError unless a number\n',
)
assert SIZED != RAW

FUNCTION = """\
  {name}:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: {code}/
      Handler: app.handler
      Runtime: python3.12
      Timeout: 3
"""

RESOURCE = """\
  {name}:
    Type: {type}
    Properties:
      ServiceToken: !GetAtt {function}.Arn
      ServiceTimeout: 60
{properties}"""

#: (logical id, type, function, properties) of each custom resource, per layout.
LAYOUTS = {
    "two types, two functions": [
        ("Greeting", "Custom::Greeting", "GreetingFn", "Name: world"),
        ("Box", "Custom::Box", "BoxFn", 'Size: "3"'),
    ],
    "one type twice, one function": [
        ("First", "Custom::Greeting", "GreetingFn", "Name: one"),
        ("Second", "Custom::Greeting", "GreetingFn", "Name: two"),
    ],
    "the generic type beside a named one": [
        ("Greeting", "AWS::CloudFormation::CustomResource", "GreetingFn", "Name: world"),
        ("Box", "Custom::Box", "BoxFn", 'Size: "3"'),
    ],
}
CODE = {"GreetingFn": ("greeting", RAW), "BoxFn": ("box", SIZED)}


def make(root: Path, layout: str) -> Path:
    resources = LAYOUTS[layout]
    text = "Transform: AWS::Serverless-2016-10-31\nResources:\n"
    for function in sorted({r[2] for r in resources}):
        folder, code = CODE[function]
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "app.py").write_text(code)
        text += FUNCTION.format(name=function, code=folder)
    for name, kind, function, properties in resources:
        text += RESOURCE.format(
            name=name, type=kind, function=function, properties=f"      {properties}\n"
        )
    (root / "template.yaml").write_text(text)
    return root


def suite(cli, root: Path, *args: str) -> dict[str, tuple[str, str]]:
    ran = cli("test", root, "--format", "json", *args)
    assert ran.exit_code in (0, 1), ran.stderr
    return {t["name"]: (t["outcome"], t["message"] or "") for t in json.loads(ran.stdout)["tests"]}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_without_resource_every_custom_resource_gets_its_suite(cli, tmp_path, layout):
    root = make(tmp_path, layout)
    got = suite(cli, root)
    ids = [r[0] for r in LAYOUTS[layout]]
    assert list(got) == [f"{name}[{lid}]" for lid in ids for name in TEST_NAMES]
    failed = {name: message for name, (outcome, message) in got.items() if outcome == "failed"}
    assert not failed, failed
    assert all(got[f"cr_create[{lid}]"][0] == "passed" for lid in ids)


def test_resource_picks_one_suite_with_the_plain_names(cli, tmp_path):
    root = make(tmp_path, "two types, two functions")
    got = suite(cli, root, "--resource", "Box", "-k", "cr_create")
    assert list(got) == [name for name in TEST_NAMES if "cr_create" in name]
    assert got["cr_create"][0] == "passed"


def test_k_selects_across_the_suites_by_their_names(cli, tmp_path):
    root = make(tmp_path, "two types, two functions")
    assert list(suite(cli, root, "-k", "cr_delete_twice")) == [
        "cr_delete_twice[Greeting]",
        "cr_delete_twice[Box]",
    ]
    assert list(suite(cli, root, "-k", "cr_create[box]")) == ["cr_create[Box]"]


GREETING_SCHEMA = {
    "type": "object",
    "properties": {"Name": {"type": "string"}},
    "required": ["Name"],
}
BOX_SCHEMA = {
    "type": "object",
    "properties": {"Size": {"type": "integer", "minimum": 1}},
    "required": ["Size"],
}
#: How each type is told what its handler must refuse: its own schema, or its own inputs.
DECLARED = {
    "schema": (
        "properties-schemas",
        {"Custom__Greeting": GREETING_SCHEMA, "Custom__Box": BOX_SCHEMA},
    ),
    "inputs": (
        "custom-resource-inputs",
        {"Custom__Greeting": {"invalid": {"Name": ""}}, "Custom__Box": {"invalid": {"Size": "x"}}},
    ),
}


@pytest.mark.parametrize("declared", DECLARED)
def test_each_type_is_refused_what_its_own_file_declares(cli, tmp_path, declared):
    folder, files = DECLARED[declared]
    root = make(tmp_path, "two types, two functions")
    (root / folder).mkdir()
    for stem, body in files.items():
        (root / folder / f"{stem}.json").write_text(json.dumps(body))
    got = suite(cli, root, "-k", "failed_rollback")
    assert {name: outcome for name, (outcome, _) in got.items()} == {
        f"{name}[{lid}]": "passed"
        for lid in ("Greeting", "Box")
        for name in ("cr_create_failed_rollback_delete", "cr_update_failed_rollback_update")
    }, got


@pytest.mark.parametrize("single", ["properties-schema.json", "custom-resource-inputs.json"])
def test_a_single_type_file_applies_to_no_type_of_several(cli, tmp_path, single):
    """The greeting's schema (or inputs) at the single-type name made the box's handler
    "accept properties the schema rejects" (the box has no Name) and its validate fail."""
    root = make(tmp_path, "two types, two functions")
    body = GREETING_SCHEMA if single.startswith("properties") else {"invalid": {"Name": ""}}
    (root / single).write_text(json.dumps(body))
    ran = cli("test", root, "-k", "failed_rollback")
    assert ran.exit_code == 1, ran.stdout + ran.stderr  # every test skipped: nothing proven
    assert f"{single} applies to no resource" in ran.stderr
    assert "properties-schemas/<Custom__Name>.json" in ran.stderr
    assert "0 failed" in ran.stdout
    validated = cli("validate", root)
    assert validated.exit_code == 0, validated.stdout + validated.stderr
    if single.startswith("properties"):
        assert f"{single} applies to no resource" in validated.stdout


def test_validate_checks_each_resource_against_its_own_types_schema(cli, tmp_path):
    root = make(tmp_path, "two types, two functions")
    (root / "properties-schemas").mkdir()
    for stem, body in DECLARED["schema"][1].items():
        (root / "properties-schemas" / f"{stem}.json").write_text(json.dumps(body))
    ok = cli("validate", root)
    assert ok.exit_code == 0, ok.stdout + ok.stderr
    assert "3 files checked" in ok.stderr  # the template and both schemas
    template = root / "template.yaml"
    template.write_text(template.read_text().replace('Size: "3"', 'Size: "0"'))
    bad = cli("validate", root)
    assert bad.exit_code == 1
    (line,) = [line for line in bad.stdout.splitlines() if "error" in line]
    assert "properties-schemas/Custom__Box.json rejects Box's properties" in line
    assert "Greeting" not in line


def pytest_run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--cfngen", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_COLOR": "1", "PYTEST_ADDOPTS": ""},
        timeout=300,
    )


@pytest.mark.oracle
def test_pytest_gives_an_item_per_test_of_each_resource(cli, tmp_path):
    root = make(tmp_path / "several", "two types, two functions")
    listed = pytest_run(root, "--collect-only", "-q")
    items = [line.split("::")[-1] for line in listed.stdout.splitlines() if "::" in line]
    assert items == list(suite(cli, root)), listed.stdout + listed.stderr
    ran = pytest_run(root, "-q", "-k", "cr_create and Box and not failed")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "2 passed" in ran.stdout


HELPER = "from cfngen_custom_resource import CustomResource\n"


def models(root: Path) -> dict[str, str]:
    """Each code folder's properties model, by folder."""
    return {p.parent.name: p.read_text() for p in sorted(root.glob("*/properties_model.py"))}


@pytest.mark.parametrize(
    ("layout", "files", "expected"),
    [
        (
            "two types, two functions",
            {"properties-schemas/Custom__Greeting.json": GREETING_SCHEMA}
            | {"properties-schemas/Custom__Box.json": BOX_SCHEMA},
            {"greeting": "Name", "box": "Size"},
        ),
        (
            "two types, two functions",
            {"properties-schema.json": GREETING_SCHEMA},
            {},
        ),
        (
            "one type twice, one function",
            {"properties-schema.json": GREETING_SCHEMA},
            {"greeting": "Name"},
        ),
    ],
    ids=["own schemas", "a single-type schema for several", "one type"],
)
def test_generate_gives_each_code_folder_the_model_of_the_types_it_serves(
    cli, tmp_path, layout, files, expected
):
    root = make(tmp_path, layout)
    for folder in ("greeting", "box"):
        if (root / folder).is_dir():
            (root / folder / "app.py").write_text(HELPER)
    for name, body in files.items():
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text(json.dumps(body))
    done = cli("generate", root)
    assert done.exit_code == 0, done.stdout + done.stderr
    found = models(root)
    assert set(found) == set(expected), sorted(found)
    for folder, field in expected.items():
        assert f"    {field}:" in found[folder], found[folder]
        other = {"Name", "Size"} - {field}
        assert not any(f"    {o}:" in found[folder] for o in other)


def test_a_code_folder_serving_types_with_different_schemas_gets_no_model_and_a_note(cli, tmp_path):
    root = make(tmp_path, "two types, two functions")
    template = root / "template.yaml"
    template.write_text(template.read_text().replace("!GetAtt BoxFn.Arn", "!GetAtt GreetingFn.Arn"))
    (root / "greeting" / "app.py").write_text(HELPER)
    (root / "properties-schemas").mkdir()
    for stem, body in DECLARED["schema"][1].items():
        (root / "properties-schemas" / f"{stem}.json").write_text(json.dumps(body))
    done = cli("generate", root)
    assert done.exit_code == 0, done.stdout + done.stderr
    assert models(root) == {}
    assert "no properties_model.py" in done.stderr and "schemas differ" in done.stderr
    assert (root / "greeting" / "cfngen_custom_resource.py").is_file()
