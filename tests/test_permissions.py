"""The permission contract (`contract_<action>_permissions`, issue 24 part 1): the AWS calls
handlers make in the contract tests, each mapped to its IAM action and checked against the
schema's `permissions`; `cfngen test --fix-permissions` adds the missing ones.

Planted on the working example (`cfngen init --example`, SSM parameters): a call no handler
declares fails, one declared only under another handler warns (fails with --strict), and a
declared permission no call needed warns; over two client styles real projects use.
"""

from __future__ import annotations

import difflib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import made_once, run_cli

SCHEMA = "example-ssm-parameter.json"
HANDLERS = "src/example_ssm_parameter/handlers.py"


@pytest.fixture(scope="session")
def example(tmp_path_factory) -> Path:
    return made_once(tmp_path_factory, "example", "--example")


def copy(tmp_path: Path, origin: Path) -> Path:
    root = tmp_path / origin.name
    shutil.copytree(origin, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def set_permissions(root: Path, handler: str, permissions: list[str]) -> None:
    """The handler's permissions list replaced (the schema rewritten as the example lays it
    out, then models regenerated so the run is not told they are older)."""
    path = root / SCHEMA
    schema = json.loads(path.read_text())
    schema["handlers"][handler]["permissions"] = permissions
    path.write_text(json.dumps(schema, indent=4) + "\n")
    assert run_cli("generate", cwd=root).exit_code == 0


def without(root: Path, handler: str, permission: str) -> list[str]:
    current = json.loads((root / SCHEMA).read_text())["handlers"][handler]["permissions"]
    assert permission in current
    return [p for p in current if p != permission]


#: How real projects reach SSM: through the session proxy the library passes, and a boto3
#: client made when the module is imported.
CLIENT_STYLES = {
    "session proxy": ("", 'session.client("ssm")'),
    "import time": ('import boto3\n\n_SSM = boto3.client("ssm")\n', "_SSM"),
}


def with_client_style(root: Path, style: str) -> None:
    prologue, expression = CLIENT_STYLES[style]
    path = root / HANDLERS
    text = path.read_text()
    assert 'client(session, "ssm")' in text
    text = text.replace('client(session, "ssm")', expression)
    if prologue:
        text = text.replace("\nLOG = ", f"\n{prologue}\nLOG = ", 1)
    path.write_text(text)


def run_json(root: Path, *args: str) -> tuple[int, dict, str]:
    result = run_cli("test", "--format", "json", *args, cwd=root)
    return result.exit_code, json.loads(result.stdout), result.stderr


def result_of(report: dict, name: str) -> dict:
    return next(t for t in report["tests"] if t["name"] == name)


# --------------------------------------------------------------------------- planted bugs


#: Each planted bug: the permissions of one handler changed (`drop` one, `add` some), the test
#: that must find it, its outcome without and with --strict, the code of what it reports and
#: words the report must hold.
PLANTED = {
    "a call no handler declares": {
        "handler": "delete",
        "drop": "ssm:DeleteParameter",
        "add": [],
        "outcome": ("failed", "failed"),
        "code": "cfngen/permission-missing",
        "words": ["the delete handler called ssm DeleteParameter", "needs ssm:DeleteParameter"],
    },
    "a call declared only under another handler": {
        "handler": "create",
        "drop": "ssm:PutParameter",
        "add": [],
        "outcome": ("passed", "failed"),
        "code": "cfngen/permission-elsewhere",
        "words": ["the create handler called ssm PutParameter", "declared only under update"],
    },
    "a declared permission no call needed": {
        "handler": "read",
        "drop": None,
        # iam:PassRole is never a call (no operation has it): never reported.
        "add": ["ssm:GetParametersByPath", "iam:PassRole"],
        "outcome": ("passed", "passed"),
        "code": "cfngen/permission-unused",
        "words": ["ssm:GetParametersByPath", "untested or unneeded"],
    },
}


def permissions_line(root: Path, handler: str) -> int:
    """The line of the handler's permissions list in the schema file."""
    lines = (root / SCHEMA).read_text().splitlines()
    start = next(n for n, text in enumerate(lines) if '"handlers"' in text)
    key = next(n for n in range(start, len(lines)) if f'"{handler}"' in lines[n])
    return next(n for n in range(key, len(lines)) if '"permissions"' in lines[n]) + 1


@pytest.mark.parametrize("style", sorted(CLIENT_STYLES))
@pytest.mark.parametrize("planted", list(PLANTED))
def test_a_planted_permission_bug_is_found(example, tmp_path, planted, style):
    bug = PLANTED[planted]
    handler = bug["handler"]
    root = copy(tmp_path, example)
    with_client_style(root, style)
    current = json.loads((root / SCHEMA).read_text())["handlers"][handler]["permissions"]
    if bug["drop"] is not None:
        current = without(root, handler, bug["drop"])
    set_permissions(root, handler, [*current, *bug["add"]])
    name = f"contract_{handler}_permissions"
    where = f"{SCHEMA}:{permissions_line(root, handler)}"
    for strict, outcome in zip((False, True), bug["outcome"], strict=True):
        code, report, _ = run_json(root, *(["--strict"] if strict else []))
        test = result_of(report, name)
        assert test["outcome"] == outcome, (strict, test)
        assert code == (1 if outcome == "failed" else 0)
        if outcome == "failed":
            found = test["message"]
            assert test["code"] == bug["code"]
        else:
            (found,) = [w for w, c in test["warning_codes"].items() if c == bug["code"]]
        assert all(words in found for words in bug["words"]), found
        assert where in found, found
        # Every other handler's test passes, with no report of this bug.
        others = [t for t in report["tests"] if t["name"] != name]
        assert all(t["outcome"] != "failed" for t in others)
        assert not any("iam:PassRole" in w for t in report["tests"] for w in t["warnings"])


def test_the_example_passes_every_permission_test(example, tmp_path):
    code, report, _ = run_json(copy(tmp_path, example))
    assert code == 0
    names = [t["name"] for t in report["tests"] if t["name"].endswith("_permissions")]
    assert names == [
        f"contract_{a}_permissions" for a in ("create", "read", "update", "delete", "list")
    ]
    assert all(result_of(report, n)["outcome"] == "passed" for n in names)


# --------------------------------------------------------------------------- --fix-permissions


def test_fix_permissions_adds_what_is_missing_and_keeps_every_other_byte(example, tmp_path):
    root = copy(tmp_path, example)
    set_permissions(root, "create", without(root, "create", "ssm:PutParameter"))
    set_permissions(root, "update", without(root, "update", "ssm:PutParameter"))
    before = (root / SCHEMA).read_text()
    result = run_cli("test", "--fix-permissions", cwd=root)
    assert result.exit_code == 1  # the run it fixed had failed
    after = (root / SCHEMA).read_text()
    assert f"+++ b/{SCHEMA}" in result.stderr
    assert '+                "ssm:PutParameter"' in result.stderr
    # Only lines added (and a comma after the line before each): every other byte kept.
    old = [line.rstrip(",") for line in before.splitlines()]
    new = [line.rstrip(",") for line in after.splitlines()]
    opcodes = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    assert {op for op, *_ in opcodes} == {"equal", "insert"}
    inserted = [line for op, _, _, j1, j2 in opcodes if op == "insert" for line in new[j1:j2]]
    assert sum('"ssm:PutParameter"' in line for line in inserted) == 2
    assert len(after) - len(before) == sum(len(line) + 2 for line in inserted)
    schema = json.loads(after)["handlers"]
    assert "ssm:PutParameter" in schema["create"]["permissions"]
    assert "ssm:PutParameter" in schema["update"]["permissions"]
    assert run_cli("generate", cwd=root).exit_code == 0
    code, report, _ = run_json(root)
    assert code == 0
    assert result_of(report, "contract_create_permissions")["outcome"] == "passed"


def test_fix_permissions_with_nothing_missing_changes_nothing(example, tmp_path):
    root = copy(tmp_path, example)
    before = (root / SCHEMA).read_bytes()
    result = run_cli("test", "--fix-permissions", "-k", "create", cwd=root)
    assert "nothing changed" in result.stderr
    assert (root / SCHEMA).read_bytes() == before


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"handlers": {"create": {"permissions": ["a:B"]}}}', ["a:B", "s3:ListBucket"]),
        ('{"handlers": {"create": {"permissions": []}}}', ["s3:ListBucket"]),
        ('{"handlers": {"create": {}}}', ["s3:ListBucket"]),
        (
            json.dumps({"handlers": {"create": {"permissions": ["a:B"]}}}, indent=2) + "\n",
            ["a:B", "s3:ListBucket"],
        ),
    ],
)
def test_the_schema_edit_adds_only_the_permission(text, expected):
    from cfngen._contract._fix_permissions import add_permissions

    out = add_permissions(text, "/handlers/create/permissions", ["s3:ListBucket"], "s.json")
    assert json.loads(out)["handlers"]["create"]["permissions"] == expected
    if "\n" in text:
        assert out.replace('"a:B",\n        "s3:ListBucket"', '"a:B"') == text


# --------------------------------------------------------------------------- the IAM table


@pytest.mark.parametrize(
    ("service", "operation", "client", "action"),
    [
        ("ssm", "PutParameter", "ssm", "ssm:PutParameter"),
        ("s3", "ListObjectsV2", "s3", "s3:ListBucket"),
        ("s3", "ListBuckets", "s3", "s3:ListAllMyBuckets"),
        ("s3", "HeadObject", "s3", "s3:GetObject"),
        ("s3", "UploadPart", "s3", "s3:PutObject"),
        ("monitoring", "PutMetricData", "cloudwatch", "cloudwatch:PutMetricData"),
        # What an endpoint's recorder knows: the signing name alone.
        ("monitoring", "PutMetricData", None, "cloudwatch:PutMetricData"),
        ("states", "StartExecution", "stepfunctions", "states:StartExecution"),
    ],
)
def test_calls_map_to_their_iam_actions(service, operation, client, action):
    from cfngen._contract._iam import table

    assert table().action_of(service, operation, client).name == action


# --------------------------------------------------------------------------- no false failure


@pytest.mark.parametrize(
    "args", [("-t", "Acme::Svc::Widget"), ("--artifact-type", "hook", "-t", "Acme::Svc::Check")]
)
def test_the_starters_have_no_permission_failure(tmp_path_factory, tmp_path, args):
    origin = made_once(tmp_path_factory, "starter-" + args[-1].replace(":", ""), *args)
    root = copy(tmp_path, origin)
    _code, report, stderr = run_json(root)
    permission_tests = [t for t in report["tests"] if t["name"].endswith("_permissions")]
    assert permission_tests, stderr
    assert all(t["outcome"] != "failed" for t in permission_tests), permission_tests


@pytest.mark.oracle
def test_an_official_cfn_init_project_has_no_permission_failure(tmp_path, oracle_tool):
    root = tmp_path / "official"
    root.mkdir()
    init = subprocess.run(
        [
            oracle_tool("cfn"),
            "init",
            "-t",
            "Acme::Test::Thing",
            "-a",
            "RESOURCE",
            "python312",
            "--no-docker",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert init.returncode == 0, init.stderr[-300:]
    (root / "inputs").mkdir()
    (root / "inputs" / "inputs_1_create.json").write_text(
        json.dumps({"Title": "A report of twenty chars or more", "TestCode": "NOT_STARTED"})
    )
    _code, report, _ = run_json(root)
    permission_tests = [t for t in report["tests"] if t["name"].endswith("_permissions")]
    assert permission_tests
    assert all(t["outcome"] != "failed" for t in permission_tests), permission_tests


# --------------------------------------------------------------------------- hooks


@pytest.mark.parametrize(
    ("create", "update", "outcome", "warning"),
    [
        ([], [], "failed", None),
        ([], ["s3:ListAllMyBuckets"], "passed", "cfngen/permission-elsewhere"),
        (["s3:List*"], ["s3:ListAllMyBuckets"], "passed", None),
    ],
)
def test_a_hooks_call_is_judged_against_its_handlers_permissions(
    tmp_path, create, update, outcome, warning
):
    from cfngen._generate import generate_project
    from tests._hook_projects import guard_project

    root = guard_project(tmp_path / "hook")
    handlers = root / "src" / "acme_guard_hook" / "handlers.py"
    text = handlers.read_text()
    assert text.count("    return check(request)\n") == 1
    handlers.write_text(
        text.replace(
            "    return check(request)\n",
            '    session.client("s3").list_buckets()\n    return check(request)\n',
        )
    )
    schema_path = root / "acme-guard-hook.json"
    schema = json.loads(schema_path.read_text())
    schema["handlers"]["preCreate"]["permissions"] = create
    schema["handlers"]["preUpdate"]["permissions"] = update
    schema_path.write_text(json.dumps(schema, indent=4))
    generate_project(root)
    code, report, _ = run_json(root)
    test = result_of(report, "contract_pre_create_permissions")
    assert test["outcome"] == outcome, test
    assert code == (1 if outcome == "failed" else 0)
    assert sorted(test["warning_codes"].values()) == ([warning] if warning else [])
    if outcome == "failed":
        assert test["code"] == "cfngen/permission-missing"
        assert "the preCreate handler called s3 ListBuckets" in test["message"]
        assert "needs s3:ListAllMyBuckets" in test["message"]
        assert "/handlers/preCreate/permissions at acme-guard-hook.json:" in test["message"]


def test_ci_formats_pin_a_missing_permission_to_its_schema_line(example, tmp_path):
    root = copy(tmp_path, example)
    set_permissions(root, "delete", without(root, "delete", "ssm:DeleteParameter"))
    result = run_cli("test", "--format", "sarif", cwd=root)
    assert result.exit_code == 1
    (found,) = [
        r
        for r in json.loads(result.stdout)["runs"][0]["results"]
        if r["ruleId"] == "cfngen/permission-missing"
    ]
    where = found["locations"][0]["physicalLocation"]
    line = next(
        n
        for n, text in enumerate((root / SCHEMA).read_text().splitlines(), 1)
        if '"delete"' in text
    )
    assert where["artifactLocation"]["uri"] == SCHEMA
    assert where["region"]["startLine"] == line + 1
