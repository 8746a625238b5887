"""`module_schema_up_to_date` says what `cfngen generate --check` finds, each state in its own
words: a failure for derived files cfngen wrote that are stale or edited, a skip (saying which
and why) for files that are not there yet, the official tool's rewrite of schema.json, or the
user's own, and a skip when the fragment does not validate. Before, it looked at schema.json
alone: stale docs behind a missing or official schema.json were skipped as "missing" or "the
official tool's", and a schema.json of the user's passed.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import run_cli

TYPE_NAME = "Acme::Check::Thing::MODULE"
FRAGMENT = """\
Description: A topic
Parameters:
  Name: {Type: String, Default: news}
Resources:
  Topic:
    Type: AWS::SNS::Topic
    Properties:
      TopicName: !Ref Name
"""


@pytest.fixture(autouse=True)
def _no_report_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CFNGEN_NO_CACHE", "1")


def edit_fragment(root: Path) -> None:
    path = root / "fragments" / "module.yaml"
    path.write_text(path.read_text().replace("A topic", "A topic for news"))


def official_schema(root: Path) -> None:
    from rpdk.core.fragment.generator import TemplateFragment

    TemplateFragment(TYPE_NAME, root).generate_schema()


def never_generated(root: Path) -> None:
    for name in ("schema.json", "docs", ".cfngen"):
        path = root / name
        shutil.rmtree(path) if path.is_dir() else path.unlink()


def users_schema(root: Path) -> None:
    never_generated(root)
    (root / "schema.json").write_text(json.dumps({"typeName": TYPE_NAME, "mine": True}) + "\n")


def both(*changes: Callable[[Path], None]) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        for one in changes:
            one(root)

    return change


#: What happened since `cfngen generate` -> (outcome, words its line must hold).
STATES: dict[str, tuple[Callable[[Path], None], str, str]] = {
    "current": (lambda root: None, "passed", ""),
    "fragment-edited": (edit_fragment, "failed", "out of date: docs/README.md, schema.json"),
    "docs-edited-by-hand": (
        lambda root: (root / "docs" / "README.md").write_text("mine\n"),
        "failed",
        "edited by hand since `cfngen generate` wrote them: docs/README.md",
    ),
    "never-generated": (
        never_generated,
        "skipped",
        "docs/README.md and schema.json are not there: `cfngen generate` writes them",
    ),
    "official-rewrite": (
        official_schema,
        "skipped",
        "schema.json is the official tool's rewrite (`cfn validate` and `cfn submit` write it)",
    ),
    "official-rewrite-and-stale-docs": (
        both(edit_fragment, official_schema),
        "failed",
        "out of date: docs/README.md",
    ),
    "schema-deleted-and-stale-docs": (
        both(edit_fragment, lambda root: (root / "schema.json").unlink()),
        "failed",
        "out of date: docs/README.md",
    ),
    "schema-json-of-the-users": (
        users_schema,
        "skipped",
        "schema.json is yours",
    ),
    "fragment-invalid": (
        lambda root: (root / "fragments" / "module.yaml").write_text("Resources: {}\n"),
        "skipped",
        "the fragment does not validate (module_fragment_valid says why)",
    ),
}


@pytest.mark.parametrize("state", list(STATES))
def test_each_state_of_the_derived_files_is_reported_as_it_is(tmp_path: Path, state: str) -> None:
    change, outcome, words = STATES[state]
    root = tmp_path / "m"
    (root / "fragments").mkdir(parents=True)
    config = {"artifact_type": "MODULE", "typeName": TYPE_NAME, "settings": {}}
    (root / ".rpdk-config").write_text(json.dumps(config, indent=4) + "\n")
    (root / "fragments" / "module.yaml").write_text(FRAGMENT)
    assert run_cli("generate", root).exit_code == 0
    change(root)
    ran = run_cli("test", root, "-k", "schema", "--format", "json")
    (test,) = json.loads(ran.stdout)["tests"]
    assert (test["name"], test["outcome"]) == ("module_schema_up_to_date", outcome), test
    assert words in (test["message"] or ""), test
    assert ran.exit_code == (1 if outcome == "failed" else 0)
