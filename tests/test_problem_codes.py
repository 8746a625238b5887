"""Every problem carries a stable code, the same in every format, and docs/problem-codes.md
lists each one: a rewording keeps the code, and a new check cannot ship without one."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cfngen._validate import validate_file, validate_text

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "problem-codes.md"
INVALID = sorted((Path(__file__).parent / "validate_cases" / "invalid").glob("*.json"))
#: Codes made from the rule a problem reports (docs/problem-codes.md names the families).
FAMILIES = re.compile(r"^(cfngen/schema-[a-z]+(-[a-z]+)*|cfn-lint/[EW]\d+)$")


def documented() -> set[str]:
    """The codes of validation problems the docs list (before the contract tests' section)."""
    text = DOC.read_text().split("## Contract tests")[0]
    return set(re.findall(r"^\| `(cfngen/[a-z0-9-]+)` \|", text, re.M))


def _constructions() -> list[tuple[str, int, ast.Call]]:
    """Every place cfngen makes a problem: Problem(...), Diagnostic(...), a module's out.add;
    a code given as a module constant (`code=CODE_SYNTAX`) is replaced by its value."""
    found = []
    for path in sorted((ROOT / "cfngen").rglob("*.py")):
        tree = ast.parse(path.read_text())
        constants = {
            target.id: node.value
            for node in tree.body
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(tree):
            for k in getattr(node, "keywords", []):
                if k.arg == "code" and isinstance(k.value, ast.Name) and k.value.id in constants:
                    k.value = constants[k.value.id]
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            named = isinstance(func, ast.Name) and func.id in ("Problem", "Diagnostic")
            added = (
                isinstance(func, ast.Attribute)
                and func.attr == "add"
                and isinstance(func.value, ast.Name)
                and func.value.id == "out"
                and "_kinds/module" in path.as_posix()
            )
            if named or added:
                found.append((path.relative_to(ROOT).as_posix(), node.lineno, node))
    return found


def test_every_problem_cfngen_makes_names_its_code():
    missing = [
        f"{path}:{line}"
        for path, line, call in _constructions()
        if not any(k.arg == "code" for k in call.keywords)
    ]
    assert not missing, f"problems made without code=: {missing}"


def test_the_docs_list_exactly_the_codes_in_the_source():
    in_source = set()
    for _path, _line, call in _constructions():
        for k in call.keywords:
            if k.arg == "code" and isinstance(k.value, ast.Constant):
                in_source.add(k.value.value)
    assert len(in_source) > 80  # the collector found the checks
    assert in_source - documented() == set(), "codes missing from docs/problem-codes.md"
    assert documented() - in_source == set(), "docs/problem-codes.md lists codes no check uses"


@pytest.mark.parametrize("case", INVALID, ids=lambda p: p.stem)
def test_every_finding_of_a_planted_bug_has_a_documented_code(case):
    report = validate_file(case)
    assert report.diagnostics, f"{case.name} is planted to fail"
    for d in report.diagnostics:
        assert d.code, d
        assert d.code in documented() or FAMILIES.match(d.code), d


#: A schema with `extra` added to a valid minimum.
def _schema(extra: str) -> str:
    return '{"typeName": "A::B::C", "properties": {}' + extra + "}"


#: A planted bug -> the code it must be reported with.
PLANTED = {
    "an unknown key": (_schema(', "bogus": 1'), "/bogus", "cfngen/schema-additional-properties"),
    "a duplicate key": (_schema(', "typeName": "A::B::D"'), "/typeName", "cfngen/json-duplicate-key"),  # noqa: E501
    "deprecated taggable": (_schema(', "taggable": false'), "/taggable", "cfngen/taggable-deprecated"),  # noqa: E501
    "required, undeclared": (_schema(', "required": ["No"]'), "/required/0", "cfngen/required-undeclared"),  # noqa: E501
    "a wrong type": (_schema(', "required": "No"'), "/required", "cfngen/schema-type"),
    "not JSON": ('{"typeName": ', "", "cfngen/json-invalid"),
}  # fmt: skip


@pytest.mark.parametrize("text,pointer,code", PLANTED.values(), ids=list(PLANTED))
def test_a_planted_bug_gets_its_code(text, pointer, code):
    found = {(d.pointer, d.code) for d in validate_text(text).diagnostics}
    assert (pointer, code) in found, found


def test_sarif_rule_ids_and_json_codes_are_the_same(tmp_path):
    case = tmp_path / "acme-b-c.json"
    case.write_text(PLANTED["deprecated taggable"][0])

    def run(fmt):
        done = subprocess.run(
            [sys.executable, "-m", "cfngen", "validate", "--format", fmt, str(case)],
            capture_output=True,
            text=True,
            env={**os.environ, "NO_COLOR": ""},
            check=False,
        )
        assert done.returncode == 1, done.stderr  # the schema lacks what the registry needs
        return json.loads(done.stdout)

    codes = [d["code"] for f in run("json")["files"] for d in f["diagnostics"]]
    rules = [r["ruleId"] for r in run("sarif")["runs"][0]["results"]]
    assert "cfngen/taggable-deprecated" in codes
    assert sorted(codes) == sorted(rules)
