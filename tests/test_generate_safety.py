"""`cfngen generate` never loses a user's file and never leaves a project half-written.

- what it may remove: only files it derives, inside the project, carrying its hash (issue 8.1);
- a broken `.rpdk-config` entrypoint stops it before anything is written (8.2);
- hand edits to generated files stop it, or are saved / kept on request (8.6);
- files it cannot read (pipes, loops, links) are named, never waited on (8.15);
- real faults in the write phase (a read-only mount, a full disk, a failing rename, SIGKILL,
  SIGTERM) leave the project byte for byte as it was, or finish it (8.3).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cfngen._instances
import cfngen._models
from cfngen._cli import main
from cfngen._errors import CfngenError, ExitCode
from cfngen._files import sha256
from cfngen._files._ownership import MANIFEST_PATH
from cfngen._generate import HandEditsError, generate_project
from tests._faults import namespace, strace
from tests._generate_helpers import (
    FakeRenderers,
    fake_cli_script,
    make_project,
    schema_path,
    snapshot_tree,
    widget_schema,
)
from tests.conftest import SWEEPS, fault_steps

PACKAGE = "acme_test_widget"
DERIVED = (
    "docs/README.md",
    "docs/config.md",
    "example_inputs/inputs_1_create.json",
    "example_inputs/inputs_1_invalid.json",
    "example_inputs/inputs_1_update.json",
    "resource-role.yaml",
    f"src/{PACKAGE}/cfngen_runtime/steps.py",
    f"src/{PACKAGE}/models.py",
    "src/requirements.txt",
    "template.yml",
)


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


def write_manifest(root: Path, files: dict[str, str]) -> None:
    manifest = json.loads((root / MANIFEST_PATH).read_text())
    manifest["files"] = files
    (root / MANIFEST_PATH).write_text(json.dumps(manifest))


def drop_config_definition(root: Path) -> None:
    """A schema edit after which docs/config.md is no longer derived."""
    schema = widget_schema()
    del schema["properties"]["Config"]
    del schema["definitions"]
    schema["properties"]["Title"] = {"type": "string"}
    schema_path(root).write_text(json.dumps(schema, indent=4) + "\n")


# --------------------------------------------------------------------------- 8.1 deletion


def test_manifest_entries_that_are_not_derived_paths_are_never_removed(fakes, project, tmp_path):
    generate_project(project)
    outside = tmp_path / "outside.txt"
    outside.write_text("not yours\n")
    victims = {
        f"src/{PACKAGE}/handlers.py": project / f"src/{PACKAGE}/handlers.py",
        "requirements.txt": project / "requirements.txt",
        "../outside.txt": outside,
        str(outside): outside,
        f"src/{PACKAGE}/../{PACKAGE}/handlers.py": project / f"src/{PACKAGE}/handlers.py",
    }
    before = {name: path.read_bytes() for name, path in victims.items()}
    write_manifest(project, {name: sha256(data) for name, data in before.items()})
    drop_config_definition(project)
    result = generate_project(project)
    assert {name: path.read_bytes() for name, path in victims.items()} == before
    for name in victims:
        assert any(repr(name) in w and "ignored" in w for w in result.warnings), name
    assert not result.removed


def test_duplicate_spellings_of_one_path_are_one_path(fakes, project):
    generate_project(project)
    digest = sha256((project / "docs/config.md").read_bytes())
    spellings = ["docs/config.md", "./docs/config.md", "docs//config.md", "docs/./config.md"]
    write_manifest(project, dict.fromkeys(spellings, digest))
    drop_config_definition(project)
    assert main(["generate", str(project)]) == ExitCode.OK
    assert not (project / "docs/config.md").exists()


def test_a_stale_file_edited_since_is_kept_with_a_warning(fakes, project):
    generate_project(project)
    config = project / "docs/config.md"
    config.write_text(config.read_text() + "My notes.\n")
    drop_config_definition(project)
    result = generate_project(project)
    assert config.read_text().endswith("My notes.\n")
    assert not result.removed
    assert any("docs/config.md is no longer generated" in w for w in result.warnings)


def test_a_stale_file_behind_a_link_to_outside_is_not_removed(fakes, project, tmp_path):
    generate_project(project)
    elsewhere = tmp_path / "elsewhere"
    shutil.move(project / "docs", elsewhere)
    (project / "docs").symlink_to(elsewhere)
    drop_config_definition(project)
    result = generate_project(project)
    assert (elsewhere / "config.md").is_file()
    assert "docs/README.md" in paths(result.skipped)
    assert "outside the project" in result.skip_reasons["docs/README.md"]


def test_a_file_with_the_header_that_cfngen_never_recorded_is_not_removed(fakes, project):
    generate_project(project)
    mine = project / "docs/extra.md"
    mine.write_text(
        "<!-- Generated by cfngen. Do not edit: run `cfngen generate` to refresh. -->\n"
    )
    generate_project(project, force=True)
    assert mine.exists()


def test_a_stale_json_file_is_left_in_place_with_a_warning(tmp_path):
    """JSON has no comment for cfngen's header, so only the manifest says a JSON file is
    cfngen's: enough to rewrite it with what the schema derives at that path, never to remove
    it (a crafted record would remove a user's file). A hook's copy of a target's schema is
    such a file when the target goes."""
    from tests.test_hook_generate import hook_project, schema_with

    root = hook_project(tmp_path, schema_with(["AWS::SQS::Queue"]))
    generate_project(root)
    copy = root / "target-schemas" / "aws-sqs-queue.json"
    data = copy.read_bytes()
    schema = json.loads((root / "acme-guard-hook.json").read_text())
    schema["handlers"]["preCreate"]["targetNames"] = ["AWS::SNS::Topic"]
    (root / "acme-guard-hook.json").write_text(json.dumps(schema, indent=4))
    result = generate_project(root)
    assert copy.read_bytes() == data
    # The target's model, a .py file with the header, goes as before.
    assert paths(result.removed) == {"src/acme_guard_hook/target_models/aws_sqs_queue.py"}
    assert any(
        "target-schemas/aws-sqs-queue.json is no longer generated" in w and "JSON" in w
        for w in result.warnings
    ), result.warnings
    assert (
        "target-schemas/aws-sqs-queue.json"
        not in json.loads((root / MANIFEST_PATH).read_text())["files"]
    )


# --------------------------------------------------------------------------- 8.2 entrypoint


@pytest.mark.parametrize(
    ("entrypoint", "expected"),
    [
        ("os.system", "src/os/ does not exist"),
        ("acme_test_wigdet.handlers.resource", "src/acme_test_wigdet/ does not exist"),
        ("acme_test_widget.handler.resource", "src/acme_test_widget/handler.py does not exist"),
    ],
)
def test_a_broken_entrypoint_stops_before_anything_is_written(
    fakes, project, capsys, entrypoint, expected
):
    generate_project(project)
    config = json.loads((project / ".rpdk-config").read_text())
    config["entrypoint"] = entrypoint
    (project / ".rpdk-config").write_text(json.dumps(config))
    drop_config_definition(project)
    before = snapshot_tree(project)
    assert main(["generate", str(project)]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert expected in err and '"acme_test_widget.handlers.resource"' in err
    assert snapshot_tree(project) == before


def test_a_missing_handlers_module_stops_with_how_to_restore_it(fakes, project):
    (project / f"src/{PACKAGE}/handlers.py").unlink()
    with pytest.raises(CfngenError) as info:
        generate_project(project)
    assert info.value.exit_code == ExitCode.USAGE
    assert f"git checkout -- src/{PACKAGE}/handlers.py" in (info.value.hint or "")
    assert not (project / f"src/{PACKAGE}/models.py").exists()


# --------------------------------------------------------------------------- 8.6 hand edits


def edit(path: Path, *, keep_header: bool) -> bytes:
    data = path.read_bytes()
    if path.suffix == ".json":
        data = data.replace(b"\n", b"\n ", 1) + b"\n"
    elif keep_header:
        data += b"# my change\n"
    else:
        data = b"# mine now\n" + data.split(b"\n", 1)[1]
    path.write_bytes(data)
    return data


@pytest.mark.parametrize("relpath", DERIVED)
@pytest.mark.parametrize("keep_header", [True, False], ids=["header-kept", "header-removed"])
def test_a_hand_edit_to_any_generated_file_stops_generate(
    fakes, project, capsys, relpath, keep_header
):
    generate_project(project)
    edit(project / relpath, keep_header=keep_header)
    drop_config_definition(project) if relpath != "docs/config.md" else None
    before = snapshot_tree(project)
    assert main(["generate", str(project)]) == ExitCode.FAILED
    err = capsys.readouterr().err
    assert relpath in err and "edited by hand" in err and "nothing was written" in err
    assert "--discard-edits" in err
    assert snapshot_tree(project) == before


def test_check_names_hand_edits(fakes, project, capsys):
    generate_project(project)
    edit(project / "example_inputs/inputs_1_create.json", keep_header=True)
    assert main(["generate", "--check", str(project)]) == ExitCode.FAILED
    assert "edited by hand: example_inputs/inputs_1_create.json" in capsys.readouterr().out


def test_discard_edits_saves_each_edited_file_then_overwrites_it(fakes, project, capsys):
    generate_project(project)
    role = project / "resource-role.yaml"
    fresh = role.read_bytes()
    edited = edit(role, keep_header=True)
    (project / "resource-role.yaml.cfngen-old").write_bytes(b"an older save\n")
    assert main(["generate", "--discard-edits", str(project)]) == ExitCode.OK
    assert role.read_bytes() == fresh
    assert (project / "resource-role.yaml.cfngen-old").read_bytes() == b"an older save\n"
    assert (project / "resource-role.yaml.cfngen-old-2").read_bytes() == edited
    assert "saved your edited version as resource-role.yaml.cfngen-old-2" in capsys.readouterr().out


def test_keep_edits_makes_the_files_the_users(fakes, project):
    generate_project(project)
    inputs = project / "example_inputs/inputs_1_create.json"
    edited = edit(inputs, keep_header=True)
    result = generate_project(project, edits="keep")
    assert "example_inputs/inputs_1_create.json" in paths(result.skipped)
    drop_config_definition(project)
    again = generate_project(project)
    assert inputs.read_bytes() == edited
    assert "example_inputs/inputs_1_create.json" in paths(again.skipped)


def _official(root: Path, relpath: str) -> bytes:
    """What the official `cfn generate` writes at `relpath` over cfngen's file, in its form:
    its own header on models.py, its own role template, cfngen's docs without their header
    (cfngen's docs are written as the official ones are)."""
    if relpath.endswith("models.py"):
        return b"# DO NOT modify this file by hand, changes will be overwritten\nimport sys\n"
    if relpath == "resource-role.yaml":
        return (
            b'AWSTemplateFormatVersion: "2010-09-09"\nDescription: >\n  This CloudFormation '
            b"template creates a role assumed by CloudFormation\n  during CRUDL operations to "
            b"mutate resources on behalf of the customer.\n\nResources: {}\n"
        )
    return (root / relpath).read_bytes().split(b"\n", 1)[1] + b"\n"


@pytest.mark.parametrize(
    "rewritten",
    [
        (f"src/{PACKAGE}/models.py", "resource-role.yaml", "docs/README.md", "docs/config.md"),
        (f"src/{PACKAGE}/models.py",),
        (f"src/{PACKAGE}/models.py", "docs/README.md"),
    ],
    ids=["models-role-docs", "models", "models-docs"],
)
def test_what_the_official_generate_wrote_over_cfngens_files_is_not_a_hand_edit(
    fakes, project, rewritten
):
    generate_project(project)
    before = snapshot_tree(project)
    for relpath in rewritten:
        (project / relpath).write_bytes(_official(project, relpath))
    result = generate_project(project)
    assert set(rewritten) <= paths(result.written)
    assert snapshot_tree(project) == before


def test_docs_without_their_header_are_a_hand_edit_where_the_official_generate_did_not_run(
    fakes, project
):
    """cfngen's docs without their first line read like the official ones: only the official
    models.py beside them shows that `cfn generate` wrote them."""
    generate_project(project)
    (project / "docs/README.md").write_bytes(_official(project, "docs/README.md"))
    with pytest.raises(HandEditsError) as stopped:
        generate_project(project)
    assert stopped.value.paths == ["docs/README.md"]


def test_contract_inputs_are_derived_until_the_first_edit_makes_them_the_users(
    fakes, project, capsys, monkeypatch
):
    """Issue 8.11: inputs/ follow the schema while nobody touched them; an edit does not stop
    generate (as for other derived files) but makes that file the user's for good."""
    generate_project(project)
    create, update = (
        project / "inputs/inputs_1_create.json",
        project / "inputs/inputs_1_update.json",
    )
    assert create.read_bytes() == (project / "example_inputs/inputs_1_create.json").read_bytes()
    ours = b'{"Name": "mine"}\n'
    create.write_bytes(ours)
    monkeypatch.setattr(
        cfngen._instances,
        "example_inputs",
        lambda schema: {
            kind: {"Name": f"after-{kind}"} for kind in ("create", "update", "invalid")
        },
    )
    drop_config_definition(project)  # a schema edit
    assert main(["generate", str(project)]) == ExitCode.OK
    err = capsys.readouterr().err
    assert "inputs/inputs_1_create.json alone: you edited it, so it is yours (delete" in err
    assert create.read_bytes() == ours
    assert json.loads(update.read_text()) == {"Name": "after-update"}
    manifest = json.loads((project / MANIFEST_PATH).read_text())
    assert "inputs/inputs_1_create.json" in manifest["user_files"]
    assert "inputs/inputs_1_create.json" not in manifest["files"]
    # For good: even when the user's bytes happen to equal what generate would write.
    create.write_text(json.dumps({"Name": "after-create"}, indent=4) + "\n")
    assert "inputs/inputs_1_create.json" in paths(generate_project(project, force=True).skipped)
    manifest = json.loads((project / MANIFEST_PATH).read_text())
    assert "inputs/inputs_1_create.json" not in manifest["files"]


def test_inputs_the_project_already_had_stay_the_users(fakes, project):
    """Projects made before inputs/ were derived (or by the official tool) keep theirs."""
    (project / "inputs").mkdir()
    theirs = b'{"Name": "theirs"}\n'
    (project / "inputs/inputs_1_create.json").write_bytes(theirs)
    result = generate_project(project)
    assert "inputs/inputs_1_create.json" in paths(result.skipped)
    assert (project / "inputs/inputs_1_create.json").read_bytes() == theirs
    assert "inputs/inputs_1_update.json" in paths(result.written)


def test_inputs_template_0_1_0_rendered_and_nobody_touched_are_derived_now(fakes, project):
    """Projects from template 0.1.0 got inputs/ from copier; untouched, they are generate's."""
    (project / "inputs").mkdir()
    untouched = (
        b'{\n    "Name": "cfngen-contract-test",\n'
        b'    "Description": "Created by the contract tests"\n}\n'
    )
    edited = b'{\n    "Name": "cfngen-contract-test",\n    "Description": "Ours"\n}\n'
    (project / "inputs/inputs_1_create.json").write_bytes(untouched)
    (project / "inputs/inputs_1_update.json").write_bytes(edited)
    result = generate_project(project)
    assert "inputs/inputs_1_create.json" in paths(result.written)
    assert (project / "inputs/inputs_1_create.json").read_bytes() != untouched
    assert "inputs/inputs_1_update.json" in paths(result.skipped)
    assert (project / "inputs/inputs_1_update.json").read_bytes() == edited


def test_the_two_edit_flags_exclude_each_other(project):
    with pytest.raises(SystemExit) as info:
        main(["generate", "--discard-edits", "--keep-edits", str(project)])
    assert info.value.code == 2


def test_hand_edits_error_lists_every_file():
    error = HandEditsError(["a.md", "b.json"])
    assert error.exit_code == ExitCode.FAILED and "a.md, b.json" in error.message


# --------------------------------------------------------------------------- 8.15 odd files


def test_a_named_pipe_as_the_schema_is_refused_at_once(fakes, project):
    schema = schema_path(project)
    schema.unlink()
    os.mkfifo(schema)
    started = time.monotonic()
    for argv in (["generate", str(project)], ["validate", str(project)], ["validate", str(schema)]):
        assert main(argv) == ExitCode.USAGE
    assert time.monotonic() - started < 10


def test_a_symlink_loop_as_the_schema_is_one_message(fakes, project, capsys):
    schema = schema_path(project)
    schema.unlink()
    schema.symlink_to(schema.name)
    assert main(["generate", str(project)]) == ExitCode.USAGE
    assert "symbolic link loop" in capsys.readouterr().err


def test_links_pipes_and_folders_at_derived_paths_are_left_alone(fakes, project, tmp_path):
    (project / "template.yml").symlink_to(tmp_path / "nowhere.yml")
    (project / "docs").mkdir()
    os.mkfifo(project / "docs/README.md")
    (project / "resource-role.yaml").mkdir()
    result = generate_project(project)
    assert {"template.yml", "docs/README.md", "resource-role.yaml"} <= paths(result.skipped)
    assert (project / "template.yml").is_symlink()
    assert not (tmp_path / "nowhere.yml").exists()
    assert "named pipe" in result.skip_reasons["docs/README.md"]
    assert generate_project(project).up_to_date  # and the quick path does not hang either


def test_a_named_pipe_as_the_manifest_is_one_message(fakes, project):
    generate_project(project)
    (project / MANIFEST_PATH).unlink()
    os.mkfifo(project / MANIFEST_PATH)
    with pytest.raises(CfngenError, match="named pipe"):
        generate_project(project)


# --------------------------------------------------------------------------- 8.3 real faults


@pytest.fixture
def changed(fakes, project: Path) -> tuple[Path, dict[str, bytes], dict[str, bytes]]:
    """A project after a schema edit that rewrites, adds and removes derived files: (root,
    the tree before generate, the tree a clean generate makes)."""
    generate_project(project)
    drop_config_definition(project)
    before = snapshot_tree(project)
    clean = project.parent / "clean"
    shutil.copytree(project, clean)
    generate_project(clean)
    expected = snapshot_tree(clean)
    assert expected != before
    return project, before, expected


def leftovers(root: Path) -> list[str]:
    return [p.name for p in root.rglob("*") if ".cfngen-" in p.name and "cfngen-old" not in p.name]


def test_a_read_only_project_is_one_message_and_unchanged(changed, tmp_path):
    root, before, _ = changed
    script = fake_cli_script(tmp_path)
    result = namespace(
        f"mount --bind {root} {root} && mount -o remount,bind,ro {root}\n"
        f"{sys.executable} {script} generate {root}"
    )
    assert result.returncode == ExitCode.USAGE, result.stderr
    assert "read-only" in result.stderr and "Traceback" not in result.stderr
    assert snapshot_tree(root) == before


def test_a_read_only_subfolder_undoes_what_was_staged_elsewhere(changed, tmp_path):
    root, before, _ = changed
    script = fake_cli_script(tmp_path)
    result = namespace(
        f"mount --bind {root}/docs {root}/docs && mount -o remount,bind,ro {root}/docs\n"
        f"{sys.executable} {script} generate {root}"
    )
    assert result.returncode == ExitCode.USAGE, result.stderr
    assert "cannot write docs/" in result.stderr and "nothing was changed" in result.stderr
    assert snapshot_tree(root) == before
    assert not leftovers(root)


@pytest.mark.parametrize("stride", SWEEPS)
def test_a_full_disk_at_any_point_leaves_the_project_whole(changed, tmp_path, stride):
    """A 1 MiB tmpfs filled up but `free` bytes, for free = 0, 4 KiB, 8 KiB, ... 32 KiB (the
    sample: 0, 12, 24 and 32 KiB): each run either completes or fails with one message and the
    project exactly as before."""
    root, before, expected = changed
    script = fake_cli_script(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    disk = tmp_path / "disk"
    disk.mkdir()
    steps = 8  # the changed files need about 5 pages: every failure point, then success
    chosen = sorted({*fault_steps(0, steps, stride), steps})
    result = namespace(
        f"""
        mount -t tmpfs -o size=1m tmpfs {disk}
        for step in {" ".join(map(str, chosen))}; do
            rm -rf {disk}/p {disk}/filler
            cp -a {root} {disk}/p
            avail=$(df --output=avail -B1 {disk} | tail -1)
            free=$((step * 4096))
            if [ "$avail" -gt "$free" ]; then
                head -c $((avail - free)) /dev/zero > {disk}/filler || true
            fi
            set +e
            {sys.executable} {script} generate {disk}/p > {out}/$step.out 2> {out}/$step.err
            echo $? > {out}/$step.rc
            set -e
            rm -f {disk}/filler
            cp -a {disk}/p {out}/$step.tree
        done
        """
    )
    assert result.returncode == 0, result.stderr
    outcomes = set()
    for step in chosen:
        rc = int((out / f"{step}.rc").read_text())
        err = (out / f"{step}.err").read_text()
        tree = snapshot_tree(out / f"{step}.tree")
        if rc == 0:
            assert tree == expected, step
        else:
            assert rc == ExitCode.USAGE, err
            assert "no space left" in err and "Traceback" not in err
            assert tree == before, step
        assert not leftovers(out / f"{step}.tree")
        outcomes.add(rc)
    assert outcomes == {0, 2}  # the sweep reached both outcomes


def generate_under_strace(
    root: Path, script: Path, **fault: object
) -> subprocess.CompletedProcess[str]:
    return strace([sys.executable, str(script), "generate", str(root)], **fault)  # type: ignore[arg-type]


@pytest.mark.parametrize("stride", SWEEPS)
@pytest.mark.parametrize("syscall", ["rename", "link"])
def test_a_failing_rename_or_link_at_any_step_puts_everything_back(
    changed, tmp_path, syscall, stride
):
    root, before, expected = changed
    script = fake_cli_script(tmp_path)
    for when in fault_steps(1, 39, stride):
        result = generate_under_strace(root, script, syscall=syscall, when=when, error="EIO")
        if result.returncode == 0:
            break
        assert result.returncode == ExitCode.USAGE, result.stderr
        assert "Input/output error" in result.stderr and "Traceback" not in result.stderr
        assert snapshot_tree(root) == before, when
        assert not leftovers(root)
    assert when > 3  # the first three calls at least fail the command
    assert snapshot_tree(root) == expected


@pytest.mark.parametrize("stride", SWEEPS)
@pytest.mark.parametrize("syscall", ["rename", "link", "unlink"])
def test_sigkill_at_any_step_is_recovered_by_the_next_command(changed, tmp_path, syscall, stride):
    """Killed at the Nth call: the next command (here `cfngen validate`, which only reads)
    finds the journal and puts the project back, or finishes a commit that was complete."""
    root, before, expected = changed
    script = fake_cli_script(tmp_path)
    for when in fault_steps(1, 39, stride):
        work = tmp_path / f"kill{when}"
        shutil.copytree(root, work, symlinks=True)
        result = generate_under_strace(work, script, syscall=syscall, when=when, signal="KILL")
        main(["validate", str(work)])
        assert snapshot_tree(work) in (before, expected), when
        assert not leftovers(work)
        if result.returncode == 0:
            break
    assert when > 3


@pytest.mark.parametrize("stride", SWEEPS)
def test_sigterm_during_the_swap_leaves_the_project_as_it_was(changed, tmp_path, stride):
    root, before, expected = changed
    script = fake_cli_script(tmp_path, owned=True)
    for when in fault_steps(1, 39, stride):
        result = generate_under_strace(root, script, syscall="link", when=when, signal="TERM")
        if result.returncode == 0:
            break
        assert result.returncode == ExitCode.INTERRUPTED, result.stderr
        assert "interrupted" in result.stderr and "Traceback" not in result.stderr
        assert snapshot_tree(root) == before, when
        assert not leftovers(root)
    assert when > 3
    assert snapshot_tree(root) == expected
