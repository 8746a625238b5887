"""`cfngen runtime` and `cfngen runtime set`: the user's .rpdk-config and template.yml change in
the values named and nowhere else, all together or not at all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from cfngen._cli import main
from cfngen._errors import CfngenError, ExitCode
from cfngen._languages._python_runtimes import DEFAULT_RUNTIME, get_runtime
from cfngen._runtime_set import edit_config, edit_template, set_runtime, show_runtime
from tests._generate_helpers import make_project, snapshot_tree

TODAY = "2026-11-25"

OFFICIAL_CONFIG = """\
{
    "artifact_type": "RESOURCE",
    "typeName": "Acme::Test::Old",
    "language": "python39",
    "runtime": "python3.9",
    "entrypoint": "acme_test_old.handlers.resource",
    "testEntrypoint": "acme_test_old.handlers.test_entrypoint",
    "settings": {
        "subparser_name": "python39",
        "language": "python39",
        "runtime": "python3.9",
        "use_docker": false
    }
}
"""

OFFICIAL_TEMPLATE = """\
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Description: AWS SAM template for the Acme::Test::Old resource type

Globals:
  Function:
    Timeout: 180  # docker start-up times can be long for SAM CLI
    MemorySize: 256

Resources:
  TypeFunction:
    Type: AWS::Serverless::Function
    Properties:
      Handler: acme_test_old.handlers.resource
      Runtime: python3.9
      CodeUri: build/

  TestEntrypoint:
    Type: AWS::Serverless::Function
    Properties:
      Handler: acme_test_old.handlers.test_entrypoint
      Runtime: python3.9
      CodeUri: build/
"""


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    """The (old, new) line pairs that differ; the line count must not change."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    assert len(old) == len(new)
    return [(a, b) for a, b in zip(old, new, strict=True) if a != b]


# --------------------------------------------------------------------------- .rpdk-config


def test_config_changes_only_the_two_values():
    after = edit_config(OFFICIAL_CONFIG, get_runtime("python3.12"), Path(".rpdk-config"))
    assert changed_lines(OFFICIAL_CONFIG, after) == [
        ('    "language": "python39",\n', '    "language": "python312",\n'),
        ('    "runtime": "python3.9",\n', '    "runtime": "python3.12",\n'),
    ]
    # The plugin's own "settings" (a record of how cfn init ran) are not the project's runtime.
    assert json.loads(after)["settings"]["runtime"] == "python3.9"


@pytest.mark.parametrize(
    ("name", "language"),
    [("python3.14", "python312"), ("python3.13", "python312"), ("python3.11", "python311")],
)
def test_config_records_the_language_the_official_plugin_knows(name, language):
    after = json.loads(edit_config(OFFICIAL_CONFIG, get_runtime(name), Path(".rpdk-config")))
    assert (after["runtime"], after["language"]) == (name, language)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # two-space indent, CRLF line ends, keys in another order, odd spacing kept
        (
            '{\r\n  "runtime" :"python3.9",\r\n  "language":  "python39",\r\n  "x": "é"\r\n}\r\n',
            '{\r\n  "runtime" :"python3.12",\r\n  "language":  "python312",\r\n  "x": "é"\r\n}\r\n',
        ),
        # one line, no final newline
        (
            '{"typeName": "A::B::C", "runtime": "python3.9", "language": "python39"}',
            '{"typeName": "A::B::C", "runtime": "python3.12", "language": "python312"}',
        ),
        # a missing key is added after the last member, laid out like it
        (
            '{\n    "typeName": "A::B::C",\n    "runtime": "python3.9"\n}\n',
            '{\n    "typeName": "A::B::C",\n    "runtime": "python3.12",\n'
            '    "language": "python312"\n}\n',
        ),
        (
            '{"typeName": "A::B::C"}\n',
            '{"typeName": "A::B::C", "runtime": "python3.12", "language": "python312"}\n',
        ),
        # escaped text elsewhere and unicode escapes stay as written
        (
            '{"d": "\\u00e9\\n", "runtime": "python3.9", "language": "python39"}',
            '{"d": "\\u00e9\\n", "runtime": "python3.12", "language": "python312"}',
        ),
    ],
)
def test_config_layouts_are_kept(before, after):
    assert edit_config(before, get_runtime("python3.12"), Path(".rpdk-config")) == after


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "invalid JSON"),
        ("[]", "expected a JSON object"),
        ('{"runtime": 3}', '"runtime" is not a string'),
    ],
)
def test_config_that_cannot_be_edited_is_an_error(text, message):
    with pytest.raises(CfngenError) as info:
        edit_config(text, get_runtime("python3.12"), Path(".rpdk-config"))
    assert message in info.value.message


# --------------------------------------------------------------------------- template.yml


def test_template_changes_every_python_runtime_and_nothing_else():
    after, others = edit_template(OFFICIAL_TEMPLATE, get_runtime("python3.12"))
    assert others == []
    assert changed_lines(OFFICIAL_TEMPLATE, after) == [
        ("      Runtime: python3.9\n", "      Runtime: python3.12\n"),
        ("      Runtime: python3.9\n", "      Runtime: python3.12\n"),
    ]


def test_template_quotes_tags_comments_and_other_runtimes_are_kept():
    before = (
        "Globals:\n"
        "  Function:\n"
        "    Runtime: 'python3.9'   # the Lambda runtime\n"
        "Resources:\n"
        "  F:\n"
        "    Type: AWS::Serverless::Function\n"
        "    Properties:\n"
        '      Runtime: "python3.9"\n'
        "      Role: !GetAtt Role.Arn\n"
        "  Node:\n"
        "    Type: AWS::Lambda::Function\n"
        "    Properties: {Runtime: nodejs22.x, Code: !Sub '${A}'}\n"
        "  Listed:\n"
        "    - {Runtime: python3.9}\n"
    )
    after, others = edit_template(before, get_runtime("python3.13"))
    assert after == before.replace("python3.9", "python3.13")
    assert others == [(12, "nodejs22.x")]


def test_template_that_is_not_yaml_is_an_error():
    with pytest.raises(CfngenError) as info:
        edit_template("Resources: [\n", get_runtime("python3.12"))
    assert "cannot read it as YAML" in info.value.message


# --------------------------------------------------------------------------- the command


@pytest.fixture
def official(tmp_path):
    """A python3.9 project as `cfn init` writes it (the parts runtime set reads)."""
    root = make_project(tmp_path / "p", runtime="python3.9")
    config = OFFICIAL_CONFIG.replace("Acme::Test::Old", "Acme::Test::Widget")
    (root / ".rpdk-config").write_text(config.replace("acme_test_old", "acme_test_widget"))
    (root / "template.yml").write_text(OFFICIAL_TEMPLATE)
    return root


class Recorder:
    def __init__(self, fail: BaseException | None = None) -> None:
        self.seen: list[dict[str, bytes]] = []
        self.fail = fail

    def __call__(self, root: Path) -> str:
        self.seen.append(snapshot_tree(root))
        if self.fail is not None:
            raise self.fail
        return "generated"


def test_set_writes_both_files_then_regenerates_on_them(official):
    regenerate = Recorder()
    change = set_runtime(official, "python3.12", TODAY, regenerate=regenerate)
    assert sorted(change.diffs) == [".rpdk-config", "template.yml"]
    assert '+    "runtime": "python3.12",\n' in change.diffs[".rpdk-config"]
    assert change.generated == "generated" and change.warnings == []
    # generate saw the new runtime
    seen = regenerate.seen[0]
    assert json.loads(seen[".rpdk-config"])["runtime"] == "python3.12"
    assert (
        yaml.safe_load(seen["template.yml"])["Resources"]["TypeFunction"]["Properties"]["Runtime"]
        == "python3.12"
    )


def test_set_to_the_runtime_already_there_changes_nothing(official):
    set_runtime(official, "python3.12", TODAY, regenerate=Recorder())
    before = snapshot_tree(official)
    regenerate = Recorder()
    change = set_runtime(official, "python312", TODAY, regenerate=regenerate)
    assert change.diffs == {} and regenerate.seen == []
    assert snapshot_tree(official) == before


def test_set_warns_on_a_deprecated_runtime(official):
    change = set_runtime(official, "python3.10", TODAY, regenerate=Recorder())
    assert any("deprecated python3.10 on 2026-10-31" in w for w in change.warnings)


@pytest.mark.parametrize(
    ("name", "today", "message"),
    [
        ("python3.8", "2027-02-01", "Lambda no longer creates python3.8 functions"),
        ("python3.10", "2027-03-03", "Lambda no longer creates python3.10 functions"),
        ("python3.7", TODAY, "cannot move a project to python3.7"),
        ("python2.7", TODAY, "cannot move a project to python2.7"),
        ("nodejs22.x", TODAY, "unknown runtime 'nodejs22.x'"),
    ],
)
def test_set_refuses_runtimes_lambda_blocks(official, name, today, message):
    before = snapshot_tree(official)
    with pytest.raises(CfngenError) as info:
        set_runtime(official, name, today, regenerate=Recorder())
    assert message in info.value.message
    assert info.value.exit_code == ExitCode.USAGE
    assert snapshot_tree(official) == before


class FailingTransaction:
    """A cfngen._files.Transaction whose commit fails (a full disk, a signal) on the first
    `fail` commits: the transaction itself puts back what it wrote, runtime set the rest."""

    def __init__(self, error: BaseException, fail: int = 1) -> None:
        self.error = error
        self.fail = fail
        self.commits = 0

    def __call__(self, root: Path) -> Any:
        from cfngen._files import Transaction

        outer = self

        class Failing(Transaction):
            def commit(self) -> None:
                outer.commits += 1
                if outer.commits <= outer.fail:
                    raise outer.error
                super().commit()

        return Failing(root)


@pytest.mark.parametrize(
    "error", [OSError(28, "No space left on device"), KeyboardInterrupt()], ids=["ENOSPC", "SIGINT"]
)
def test_a_failed_write_leaves_both_files_as_they_were(official, error):
    before = snapshot_tree(official)
    regenerate = Recorder()
    with pytest.raises(type(error)):
        set_runtime(
            official,
            "python3.12",
            TODAY,
            regenerate=regenerate,
            transaction=FailingTransaction(error),
        )
    assert snapshot_tree(official) == before
    assert regenerate.seen == []


@pytest.mark.parametrize(
    "error", [CfngenError("the schema is invalid"), KeyboardInterrupt()], ids=["invalid", "SIGINT"]
)
def test_a_failed_regeneration_puts_both_files_back(official, error):
    before = snapshot_tree(official)
    with pytest.raises(type(error)):
        set_runtime(official, "python3.12", TODAY, regenerate=Recorder(fail=error))
    assert snapshot_tree(official) == before


def test_show(official):
    report = show_runtime(official, TODAY)
    assert (report.runtime, report.language, report.phase) == (
        "python3.9",
        "python39",
        "deprecated",
    )
    assert report.template_runtimes == ["python3.9", "python3.9"]
    assert report.row is not None and report.row.create_blocked_on == "2027-02-01"
    assert report.choices[0][0] == DEFAULT_RUNTIME


def test_cli_show_and_set_with_the_real_generate(official, capsys, monkeypatch):
    import cfngen._instances
    import cfngen._models
    from tests._generate_helpers import FakeRenderers

    fakes = FakeRenderers()
    monkeypatch.setattr(cfngen._models, "render_models", fakes.render_models)
    monkeypatch.setattr(cfngen._instances, "example_inputs", fakes.example_inputs)
    assert main(["runtime", "--project", str(official)]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "runtime python3.9, language python39" in out
    assert "python3.9 is deprecated since 2025-12-15" in out
    assert f"Move with: cfngen runtime set {DEFAULT_RUNTIME.name}" in out

    assert main(["runtime", "set", "python3.12", "--project", str(official)]) == ExitCode.OK
    captured = capsys.readouterr()
    assert '-    "runtime": "python3.9",' in captured.out
    assert "+      Runtime: python3.12" in captured.out
    assert "moved to python3.12" in captured.out
    assert fakes.models_pythons == [(3, 12)]
    assert main(["runtime", "set", "python3.7", "--project", str(official)]) == ExitCode.USAGE


def test_a_custom_resource_moves_its_functions_runtime_in_its_template(made_project, tmp_path, cli):
    """A custom resource has no .rpdk-config (and must not get one): its runtime is its
    function's, in the template the project is found by."""
    import shutil

    root = tmp_path / "cr"
    shutil.copytree(made_project("cr-runtime", "--artifact-type", "custom-resource"), root)
    template = root / "template.yaml"
    before = template.read_text()
    shown = cli("runtime", "--project", root)
    assert shown.exit_code == ExitCode.OK, shown.stderr
    assert f"{template.name}: Runtime {DEFAULT_RUNTIME.name} (1 function(s))" in shown.stdout
    assert ".rpdk-config" not in shown.stdout
    moved = cli("runtime", "set", "python3.12", "--project", root)
    assert moved.exit_code == ExitCode.OK, moved.stderr
    assert "+      Runtime: python3.12" in moved.stdout
    after = template.read_text()
    assert after == before.replace(f"Runtime: {DEFAULT_RUNTIME.name}", "Runtime: python3.12")
    assert after != before
    assert not (root / ".rpdk-config").exists()
    assert cli("validate", cwd=root).exit_code == ExitCode.OK


def test_a_module_has_no_runtime_and_is_left_alone(made_project, tmp_path, cli):
    import shutil

    root = tmp_path / "module"
    shutil.copytree(
        made_project("module-runtime", "--artifact-type", "module", "-t", "Acme::Net::Vpc::MODULE"),
        root,
    )
    before = snapshot_tree(root)
    for args in (["runtime"], ["runtime", "set", "python3.12"]):
        result = cli(*args, "--project", root)
        assert result.exit_code == ExitCode.USAGE
        assert "a module has no handlers, so no Lambda runtime" in result.stderr
    assert snapshot_tree(root) == before


@pytest.mark.parametrize(
    ("failure", "error"),
    [
        ("write", OSError(28, "No space left on device")),
        ("write", KeyboardInterrupt()),
        ("regenerate", CfngenError("the template is invalid")),
        ("regenerate", KeyboardInterrupt()),
    ],
    ids=["ENOSPC", "SIGINT-writing", "invalid", "SIGINT-regenerating"],
)
def test_a_custom_resource_whose_move_fails_keeps_its_template(
    made_project, tmp_path, failure, error
):
    import shutil

    root = tmp_path / "cr"
    shutil.copytree(made_project("cr-runtime", "--artifact-type", "custom-resource"), root)
    before = snapshot_tree(root)
    with pytest.raises(type(error)):
        if failure == "write":
            set_runtime(
                root,
                "python3.12",
                TODAY,
                regenerate=Recorder(),
                transaction=FailingTransaction(error),
            )
        else:
            set_runtime(root, "python3.12", TODAY, regenerate=Recorder(fail=error))
    assert snapshot_tree(root) == before
    assert not (root / ".rpdk-config").exists()


def test_strict_fails_on_a_deprecated_python_runtime(official, capsys):
    """`cfngen runtime --strict`: a runtime Lambda deprecated (python3.9) is exit 1; the same
    show without --strict stays 0, and a supported runtime passes --strict."""
    assert main(["runtime", "--project", str(official)]) == ExitCode.OK
    assert main(["runtime", "--strict", "--project", str(official)]) == ExitCode.FAILED
    config = official / ".rpdk-config"
    config.write_text(config.read_text().replace('"python3.9"', f'"{DEFAULT_RUNTIME.name}"'))
    assert main(["runtime", "--strict", "--project", str(official)]) == ExitCode.OK
    capsys.readouterr()
