"""`cfngen generate`: orchestration, ownership, --check, the no-op path, handler warnings.

The model and example-input renderers are replaced by small fakes (see _generate_helpers), so
these tests exercise what generate itself decides: what is written, what is left alone, when.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cfngen._instances
import cfngen._models
from cfngen._cli import main
from cfngen._errors import CfngenError, ExitCode
from cfngen._files._ownership import MANIFEST_PATH, MARKER
from cfngen._generate import InvalidSchemaError, generate_project
from cfngen._support import LIBRARY_REQUIREMENT, package_files
from tests._generate_helpers import (
    FakeRenderers,
    fake_cli_script,
    make_project,
    schema_path,
    snapshot_tree,
    widget_schema,
)

DERIVED = {
    "docs/README.md",
    "docs/config.md",
    "example_inputs/inputs_1_create.json",
    "example_inputs/inputs_1_invalid.json",
    "example_inputs/inputs_1_update.json",
    # The contract tests' inputs: derived until the user's first edit (test_generate_safety).
    "inputs/inputs_1_create.json",
    "inputs/inputs_1_invalid.json",
    "inputs/inputs_1_update.json",
    "resource-role.yaml",
    *(f"src/acme_test_widget/{path}" for path in package_files()),
    "src/acme_test_widget/models.py",
    "src/requirements.txt",
    "template.yml",
}


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> FakeRenderers:
    fake = FakeRenderers()
    monkeypatch.setattr(cfngen._models, "render_models", fake.render_models)
    monkeypatch.setattr(cfngen._instances, "example_inputs", fake.example_inputs)
    return fake


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "widget")


def paths(items: list[Path]) -> set[str]:
    return {p.as_posix() for p in items}


def edit_schema(root: Path, **changes: object) -> None:
    path = schema_path(root)
    schema = json.loads(path.read_text())
    schema.update(changes)
    path.write_text(json.dumps(schema, indent=4) + "\n")


# --------------------------------------------------------------------------- writing


def test_writes_every_derived_file_with_a_header(fakes, project):
    result = generate_project(project)
    assert paths(result.written) == DERIVED
    assert not result.skipped and not result.unchanged
    for relpath in DERIVED:
        data = (project / relpath).read_text()
        if relpath.endswith(".json"):
            json.loads(data)  # JSON cannot carry a comment: the manifest tracks it
        else:
            first = data.splitlines()[0]
            assert MARKER in first and "cfngen generate" in first, relpath
    assert (project / MANIFEST_PATH).is_file()


def test_markdown_header_is_an_html_comment(fakes, project):
    generate_project(project)
    first = (project / "docs/README.md").read_text().splitlines()[0]
    assert first.startswith("<!--") and first.endswith("-->")


def test_passes_the_parsed_schema_and_callback_context_to_the_models(fakes, project):
    context = {"type": "object", "properties": {"Attempts": {"type": "integer"}}}
    (project / "callback-context.json").write_text(json.dumps(context))
    generate_project(project)
    schema, passed = fakes.models_calls[-1]
    assert schema == widget_schema()
    assert passed == context


def test_without_callback_context_the_models_get_none(fakes, project):
    generate_project(project)
    assert fakes.models_calls[-1][1] is None


def test_invalid_callback_context_is_a_usage_error_and_writes_nothing(fakes, project):
    (project / "callback-context.json").write_text('{"type": ')
    before = snapshot_tree(project)
    with pytest.raises(CfngenError) as info:
        generate_project(project)
    assert "callback-context.json:1:" in info.value.message
    assert info.value.exit_code == ExitCode.USAGE
    assert snapshot_tree(project) == before


def test_never_touches_handlers_py(fakes, project):
    handlers = project / "src/acme_test_widget/handlers.py"
    before = handlers.read_bytes()
    generate_project(project)
    generate_project(project, force=True)
    assert handlers.read_bytes() == before


def test_src_requirements_includes_the_projects_own(fakes, project):
    generate_project(project)
    lines = (project / "src/requirements.txt").read_text().splitlines()
    assert lines[1:] == ["-r ../requirements.txt"]


def test_src_requirements_without_a_requirements_file(fakes, tmp_path):
    root = make_project(tmp_path / "p", requirements=False)
    generate_project(root)
    lines = (root / "src/requirements.txt").read_text().splitlines()
    # The runtime library's one declared range (SAM's file said >=2.1.20 alone before).
    assert lines[1:] == [LIBRARY_REQUIREMENT]
    assert LIBRARY_REQUIREMENT == "cloudformation-cli-python-lib>=2.1.20,<2.2"


def test_uses_the_package_named_by_the_entrypoint(fakes, project):
    config = json.loads((project / ".rpdk-config").read_text())
    config["entrypoint"] = "renamed.handlers.resource"
    config["testEntrypoint"] = "renamed.handlers.test_entrypoint"
    (project / ".rpdk-config").write_text(json.dumps(config))
    (project / "src/acme_test_widget").rename(project / "src/renamed")
    result = generate_project(project)
    assert "src/renamed/models.py" in paths(result.written)


# --------------------------------------------------------------------------- failures


@pytest.mark.parametrize(
    "text",
    ['{"typeName": "Acme::Test::Widget",', '{"typeName": "A::B::C", "typeName": "A::B::C"}'],
    ids=["syntax", "duplicate-key"],
)
def test_invalid_schema_writes_nothing(fakes, project, text):
    schema_path(project).write_text(text)
    before = snapshot_tree(project)
    with pytest.raises(InvalidSchemaError) as info:
        generate_project(project)
    assert info.value.exit_code == ExitCode.FAILED
    assert not info.value.report.valid
    assert snapshot_tree(project) == before
    assert not fakes.models_calls


def test_cli_invalid_schema_prints_the_diagnostics_and_exits_1(fakes, project, capsys):
    schema_path(project).write_text('{"a": 1, "a": 2}')
    assert main(["generate", str(project)]) == ExitCode.FAILED
    out, err = capsys.readouterr()
    assert out == ""
    assert "acme-test-widget.json:1:" in err and "duplicate key" in err
    assert "nothing was generated" in err


def test_a_renderer_failure_writes_nothing(fakes, project):
    generate_project(project)
    edit_schema(project, description="changed")
    before = snapshot_tree(project)
    fakes.fail_models = CfngenError("cannot model this", "simplify it")
    with pytest.raises(CfngenError):
        generate_project(project)
    assert snapshot_tree(project) == before


def test_a_failed_first_run_leaves_no_file(fakes, project):
    before = snapshot_tree(project)
    fakes.fail_models = RuntimeError("boom")
    with pytest.raises(RuntimeError):
        generate_project(project)
    assert snapshot_tree(project) == before


def test_missing_schema_file_says_which(fakes, project):
    schema_path(project).unlink()
    with pytest.raises(CfngenError) as info:
        generate_project(project)
    assert "acme-test-widget.json: no such file" in info.value.message


def test_not_a_project(fakes, tmp_path):
    with pytest.raises(CfngenError) as info:
        generate_project(tmp_path)
    assert "not a project folder" in info.value.message


def test_modules_are_refused(fakes, project):
    config = json.loads((project / ".rpdk-config").read_text())
    config["artifact_type"] = "MODULE"
    (project / ".rpdk-config").write_text(json.dumps(config))
    with pytest.raises(CfngenError) as info:
        generate_project(project)
    assert "MODULE" in info.value.message


# --------------------------------------------------------------------------- ownership


def test_a_file_without_the_header_is_the_users(fakes, project):
    (project / "template.yml").write_text("# my own SAM template\n")
    (project / "docs").mkdir()
    (project / "docs/README.md").write_text("# My docs\n")
    result = generate_project(project)
    assert paths(result.skipped) == {"template.yml", "docs/README.md"}
    assert (project / "template.yml").read_text() == "# my own SAM template\n"
    assert (project / "docs/README.md").read_text() == "# My docs\n"
    # ... and stays the user's on the next run, which is a no-op.
    again = generate_project(project)
    assert again.up_to_date
    assert paths(again.skipped) == {"template.yml", "docs/README.md"}


def test_cli_says_in_one_line_which_files_it_left_alone(fakes, project, capsys):
    (project / "template.yml").write_text("mine\n")
    assert main(["generate", str(project)]) == ExitCode.OK
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "template.yml" in line]
    assert len(lines) == 1 and "left template.yml alone" in lines[0]


def test_deleting_a_user_file_hands_the_path_back_to_cfngen(fakes, project):
    (project / "template.yml").write_text("mine\n")
    generate_project(project)
    (project / "template.yml").unlink()
    result = generate_project(project)
    assert "template.yml" in paths(result.written)


def test_json_inputs_cfngen_wrote_are_updated(fakes, project):
    generate_project(project)
    edit_schema(
        project,
        properties={"Title": {"type": "string"}, **widget_schema()["properties"]},
    )
    result = generate_project(project)
    assert "example_inputs/inputs_1_create.json" in paths(result.written)
    assert json.loads((project / "example_inputs/inputs_1_create.json").read_text()) == {
        "Title": "a"
    }


def test_json_inputs_without_a_manifest_are_the_users(fakes, project):
    (project / "example_inputs").mkdir()
    (project / "example_inputs/inputs_1_create.json").write_text('{"Name": "x"}\n')
    result = generate_project(project)
    assert "example_inputs/inputs_1_create.json" in paths(result.skipped)


def test_stale_derived_files_are_removed(fakes, project):
    generate_project(project)
    assert (project / "docs/config.md").is_file()
    schema = widget_schema()
    del schema["properties"]["Config"]
    del schema["definitions"]
    schema_path(project).write_text(json.dumps(schema))
    result = generate_project(project)
    assert paths(result.removed) == {"docs/config.md"}
    assert not (project / "docs/config.md").exists()


def test_stale_files_the_user_took_over_are_kept(fakes, project):
    generate_project(project)
    (project / "docs/config.md").write_text("# Mine now\n")
    schema = widget_schema()
    del schema["properties"]["Config"]
    del schema["definitions"]
    schema_path(project).write_text(json.dumps(schema))
    result = generate_project(project)
    assert not result.removed
    assert (project / "docs/config.md").read_text() == "# Mine now\n"


# --------------------------------------------------------------------------- no-op, --force


def test_second_run_is_a_no_op(fakes, project):
    generate_project(project)
    before = {p: os.stat(project / p).st_mtime_ns for p in DERIVED}
    calls = len(fakes.models_calls)
    result = generate_project(project)
    assert result.up_to_date
    assert not result.written and paths(result.unchanged) == DERIVED
    assert len(fakes.models_calls) == calls
    assert {p: os.stat(project / p).st_mtime_ns for p in DERIVED} == before


def test_force_renders_again_but_rewrites_nothing_that_is_equal(fakes, project):
    generate_project(project)
    calls = len(fakes.models_calls)
    result = generate_project(project, force=True)
    assert not result.up_to_date
    assert len(fakes.models_calls) == calls + 1
    assert not result.written and paths(result.unchanged) == DERIVED


@pytest.mark.parametrize(
    "change",
    ["schema", "rpdk-config", "callback-context", "derived-file-deleted", "requirements"],
)
def test_any_input_change_leaves_the_no_op_path(fakes, project, change):
    generate_project(project)
    if change == "schema":
        edit_schema(project, description="new")
    elif change == "rpdk-config":
        config = json.loads((project / ".rpdk-config").read_text())
        config["runtime"] = "python3.13"
        (project / ".rpdk-config").write_text(json.dumps(config))
    elif change == "callback-context":
        (project / "callback-context.json").write_text('{"properties": {"N": {}}}')
    elif change == "derived-file-deleted":
        (project / "docs/README.md").unlink()
    else:
        (project / "requirements.txt").unlink()
    result = generate_project(project)
    assert not result.up_to_date
    assert result.written


def test_runtime_change_rewrites_the_sam_template(fakes, project):
    generate_project(project)
    config = json.loads((project / ".rpdk-config").read_text())
    config["runtime"] = "python3.13"
    (project / ".rpdk-config").write_text(json.dumps(config))
    result = generate_project(project)
    assert paths(result.written) == {"template.yml"}
    assert "Runtime: python3.13" in (project / "template.yml").read_text()


def test_no_op_imports_nothing_heavy(fakes, project):
    generate_project(project)
    code = (
        "import sys\n"
        "from cfngen._cli import main\n"
        f"rc = main(['generate', {str(project)!r}])\n"
        "heavy = {'jsonschema', 'jinja2', 'black', 'datamodel_code_generator', 'yaml',\n"
        "         'cloudformation_cli_python_lib', 'boto3', 'copier'}\n"
        "print(rc, sorted(heavy & {m.split('.')[0] for m in sys.modules}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "0 []"


# --------------------------------------------------------------------------- --check


def test_check_on_a_fresh_project_reports_everything_and_writes_nothing(fakes, project, capsys):
    before = snapshot_tree(project)
    assert main(["generate", "--check", str(project)]) == ExitCode.FAILED
    assert snapshot_tree(project) == before
    out = capsys.readouterr().out
    assert {line.removeprefix("out of date: ") for line in out.splitlines()} >= DERIVED


def test_check_after_generate_passes(fakes, project, capsys):
    generate_project(project)
    assert main(["generate", "--check", str(project)]) == ExitCode.OK
    assert "up to date" in capsys.readouterr().out


def test_check_lists_only_what_drifted(fakes, project, capsys):
    generate_project(project)
    role = project / "resource-role.yaml"
    role.write_text(role.read_text().replace("s3:GetObject", "s3:*"))
    before = snapshot_tree(project)
    assert main(["generate", "--check", str(project)]) == ExitCode.FAILED
    out = capsys.readouterr().out
    assert out.splitlines() == ["edited by hand: resource-role.yaml"]
    assert snapshot_tree(project) == before


def test_check_reports_stale_files(fakes, project):
    generate_project(project)
    schema = widget_schema()
    del schema["properties"]["Config"]
    del schema["definitions"]
    schema_path(project).write_text(json.dumps(schema))
    result = generate_project(project, check=True)
    assert "docs/config.md" in paths(result.drift)
    assert (project / "docs/config.md").exists()


def test_check_ignores_user_files(fakes, project):
    (project / "template.yml").write_text("mine\n")
    generate_project(project)
    assert generate_project(project, check=True, force=True).drift == []


# --------------------------------------------------------------------------- handlers.py


def test_warns_about_declared_handlers_that_are_not_registered(fakes, project):
    edit_schema(
        project,
        handlers={
            "create": {"permissions": ["s3:PutObject"]},
            "read": {"permissions": ["s3:GetObject"]},
            "delete": {"permissions": ["s3:DeleteObject"]},
            "list": {"permissions": ["s3:ListBucket"]},
        },
    )
    result = generate_project(project)
    warned = " ".join(result.warnings)
    assert "delete handler" in warned and "Action.DELETE" in warned
    assert "list handler" in warned and "Action.LIST" in warned
    assert "create handler" not in warned and "read handler" not in warned


def test_registered_handlers_give_no_warning(fakes, project):
    assert generate_project(project).warnings == []


def test_warns_on_the_no_op_path_too(fakes, project):
    edit_schema(project, handlers={"delete": {"permissions": ["s3:DeleteObject"]}})
    generate_project(project)
    result = generate_project(project)
    assert result.up_to_date
    assert any("delete handler" in w for w in result.warnings)


def test_unparsable_handlers_py_is_a_warning(fakes, tmp_path):
    root = make_project(tmp_path / "p", handlers="def broken(:\n")
    result = generate_project(root)
    assert any("does not parse" in w and "handlers.py:1" in w for w in result.warnings)


def test_cli_prints_handler_warnings(fakes, tmp_path, capsys):
    root = make_project(tmp_path / "p", handlers="")
    assert main(["generate", str(root)]) == ExitCode.OK
    err = capsys.readouterr().err
    assert "warning" in err and "create handler" in err


# --------------------------------------------------------------------------- runtimes


def test_deprecated_runtime_warns(fakes, tmp_path):
    root = make_project(tmp_path / "p", runtime="python3.10")
    result = generate_project(root)
    assert any("deprecated python3.10" in w for w in result.warnings)
    assert "Runtime: python3.10" in (root / "template.yml").read_text()


def test_unknown_runtime_warns_and_is_kept(fakes, tmp_path):
    root = make_project(tmp_path / "p", runtime="python3.15")
    result = generate_project(root)
    assert any('runtime "python3.15" is not one cfngen supports' in w for w in result.warnings)
    assert "Runtime: python3.15" in (root / "template.yml").read_text()


@pytest.mark.parametrize(
    ("runtime", "python"),
    [
        ("python3.8", (3, 8)),
        ("python3.9", (3, 9)),
        ("python3.12", (3, 12)),
        # No Python runtime: the "language" the official plugin wrote (python312) says it.
        ("java21", (3, 12)),
    ],
)
def test_models_are_made_for_the_declared_runtime(fakes, tmp_path, runtime, python):
    root = make_project(tmp_path / "p", runtime=runtime)
    result = generate_project(root)
    assert fakes.models_pythons == [python]
    if runtime in ("python3.8", "python3.9"):
        assert any(f"deprecated {runtime}" in w for w in result.warnings)
        assert any("cfngen runtime set" in w for w in result.warnings)


@pytest.mark.parametrize(("runtime", "language"), [("python3.7", "python37"), ("python3.6", "")])
def test_python37_projects_are_refused_before_anything_is_written(
    fakes, tmp_path, runtime, language
):
    root = make_project(tmp_path / "p", runtime=runtime)
    config = json.loads((root / ".rpdk-config").read_text())
    config["language"] = language
    (root / ".rpdk-config").write_text(json.dumps(config))
    before = snapshot_tree(root)
    with pytest.raises(CfngenError) as info:
        generate_project(root)
    assert info.value.exit_code == ExitCode.USAGE
    assert runtime in info.value.message
    assert "cfngen runtime set" in (info.value.hint or "")
    assert snapshot_tree(root) == before
    assert fakes.models_calls == []


# --------------------------------------------------------------------------- determinism


def test_same_bytes_under_another_hash_seed(tmp_path):
    script = fake_cli_script(tmp_path)
    trees = []
    for seed in ("0", "4242"):
        root = make_project(tmp_path / f"seed{seed}")
        # Rendered both times: from cfngen's model cache the second would match trivially.
        env = {**os.environ, "PYTHONHASHSEED": seed, "CFNGEN_NO_CACHE": "1"}
        subprocess.run(
            [sys.executable, str(script), "generate", str(root)],
            env=env,
            check=True,
            capture_output=True,
        )
        trees.append(snapshot_tree(root))
    assert trees[0] == trees[1]
