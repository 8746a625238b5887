"""`cfngen test` reads `propertyTransform` as drift detection does: a returned value that
differs from the input is in sync when a transform alternative, on the model's root or on the
object holding the property, gives the value, or a pattern that matches it.

The project (tests/fixtures/contract/drift) is a resource type whose handlers return values
the way services keep them; each case switches one such habit on and runs the tests that
compare a returned model with its input (create, update, read), with the schema's transform
for that property and without it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cfngen._contract import run_contract_tests

FIXTURE = Path(__file__).parent / "fixtures" / "contract" / "drift"
SCHEMA = "acme-drift-record.json"
HANDLERS = "src/acme_drift_record/handlers.py"
QUIRK_LINE = "QUIRK = None  # QUIRK"
#: The tests whose models are compared with their input: CREATE and READ, UPDATE and READ.
COMPARING = "contract_create_read or contract_update_read"

#: habit the handlers have -> (the transform key that explains it, the alternative that
#: puts it in sync, on what, how).
CASES = {
    "trailing-dot": ("/properties/Domain", 1, "root", "equal"),
    "lowercase": ("/properties/Engine", 1, "root", "equal"),
    "bare-name": ("/properties/FunctionName", 2, "root", "equal"),
    "upper-keys": ("/properties/Rules/*/Key", 1, "parent", "equal"),
    "patch-version": ("/properties/EngineVersion", 1, "root", "pattern"),
}


def _project(tmp_path: Path, quirk: str | None, *, drop: str | None = None, **replace: str) -> Path:
    root = tmp_path / "record"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("__pycache__"))
    handlers = root / HANDLERS
    text = handlers.read_text()
    assert text.count(QUIRK_LINE) == 1
    handlers.write_text(text.replace(QUIRK_LINE, f"QUIRK = {quirk!r}"))
    schema_path = root / SCHEMA
    schema = json.loads(schema_path.read_text())
    if drop is not None:
        del schema["propertyTransform"][drop]
    schema["propertyTransform"].update(replace)
    schema_path.write_text(json.dumps(schema, indent=4))
    return root


def _outcomes(result) -> dict[str, str]:
    return {test.name: test.outcome for test in result.tests}


@pytest.mark.parametrize("with_transform", [True, False], ids=["with", "without"])
@pytest.mark.parametrize("quirk", list(CASES))
def test_a_value_the_service_keeps_its_own_way_is_in_sync_only_by_its_transform(
    tmp_path, quirk, with_transform
):
    key, number, scope, by = CASES[quirk]
    root = _project(tmp_path, quirk, drop=None if with_transform else key)
    result = run_contract_tests(root, keyword=COMPARING)
    outcomes = _outcomes(result)
    assert set(outcomes) == {"contract_create_read", "contract_update_read"}
    if not with_transform:
        assert set(outcomes.values()) == {"failed"}, outcomes
        message = result.tests[0].message or ""
        assert "differs from its input" in message
        return
    assert set(outcomes.values()) == {"passed"}, [t.message for t in result.tests]
    notes = result.tests[0].transforms
    assert notes, "the passing test says which transform put the value in sync"
    assert {(n["key"], n["alternative"], n["scope"], n["by"]) for n in notes} == {
        (key, number, scope, by)
    }
    assert {n["action"] for n in notes} == {"CREATE", "READ"}


def test_without_habits_nothing_is_judged(tmp_path):
    result = run_contract_tests(_project(tmp_path, None), keyword=COMPARING)
    assert set(_outcomes(result).values()) == {"passed"}
    assert all(test.transforms == [] for test in result.tests)


def test_json_output_names_the_alternative(cli, tmp_path):
    root = _project(tmp_path, "patch-version")
    result = cli("test", root, "-k", "contract_create_read", "--format", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    (test,) = json.loads(result.stdout)["tests"]
    (create, read) = test["transforms"]
    assert create == {
        "action": "CREATE",
        "pointer": "/EngineVersion",
        "key": "/properties/EngineVersion",
        "alternative": 1,
        "expression": '$join([EngineVersion, ".*"])',
        "scope": "root",
        "result": "5.7.*",
        "by": "pattern",
    }
    assert read["action"] == "READ"


def test_verbose_output_names_the_alternative(cli, tmp_path):
    root = _project(tmp_path, "bare-name")
    quiet = cli("test", root, "-k", "contract_create_read")
    assert quiet.exit_code == 0
    assert "IN_SYNC" not in quiet.stdout
    result = cli("test", root, "-k", "contract_create_read", "-v")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert (
        "IN_SYNC CREATE /FunctionName: alternative 2 of propertyTransform "
        '/properties/FunctionName ($split(FunctionName, ":")[-1]) on the root gives "Worker", '
        "equal"
    ) in result.stdout


@pytest.mark.parametrize(
    "expression",
    [
        "$number(Engine)",  # MySQL is no number
        "$lowercase(Engine, 'x', 'y')",  # too many arguments
        "$uppercase(Engine) $OR $substring(Engine)",  # one alternative fails, none in sync
    ],
)
def test_a_transform_that_fails_is_a_failure_naming_the_key(cli, tmp_path, expression):
    root = _project(tmp_path, "lowercase", **{"/properties/Engine": expression})
    result = cli("test", root, "-k", "contract_create_read")
    assert result.exit_code == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert "the model CREATE returned differs from its input" in result.stdout
    assert "propertyTransform /properties/Engine at /Engine: alternative" in result.stdout
    assert "failed on the root" in result.stdout


def test_an_alternative_that_fails_beside_one_in_sync_is_no_failure(tmp_path):
    root = _project(
        tmp_path, "lowercase", **{"/properties/Engine": "$number(Engine) $OR $lowercase(Engine)"}
    )
    result = run_contract_tests(root, keyword=COMPARING)
    assert set(_outcomes(result).values()) == {"passed"}, [t.message for t in result.tests]
    assert {n["alternative"] for n in result.tests[0].transforms} == {2}
