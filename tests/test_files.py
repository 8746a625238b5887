"""cfngen._files: transactions that apply all their changes or none, also when a system call
fails or the process is killed at any step, and the readers that never hang on a named pipe.

The faults are real: strace makes the Nth rename/link/unlink fail or kills the process there.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from cfngen._errors import CfngenError, ExitCode
from cfngen._files import (
    JOURNAL,
    Transaction,
    Workspace,
    canonical,
    read_bytes,
    read_optional,
    recover,
    sweep,
)
from tests._faults import strace
from tests._generate_helpers import snapshot_tree

#: A transaction touching every kind of change: replace, new folder, create, delete, new file.
SCRIPT = """\
import sys
from pathlib import Path
from cfngen._errors import CfngenError, ExitCode
from cfngen._files import Transaction

tx = Transaction(Path(sys.argv[1]))
tx.write("a.txt", b"new a\\n")
tx.write("docs/sub/c.md", b"c\\n")
tx.create("d.txt", b"d\\n")
tx.delete("b.txt")
tx.write("e.txt", b"e\\n")
try:
    tx.commit()
except CfngenError as exc:
    print(exc, file=sys.stderr)
    sys.exit(2)
"""
AFTER = {"a.txt": b"new a\n", "docs/sub/c.md": b"c\n", "d.txt": b"d\n", "e.txt": b"e\n"}
#: A journal as a Transaction writes it, of a transaction that had nothing to change yet.
EMPTY_JOURNAL = {
    "format": 1,
    "comment": "cfngen was writing these files",
    "id": "0123abcd",
    "pid": 1,
    "state": "committing",
    "dirs": [],
    "entries": [],
}
#: How often the script calls each of these while committing (journal included).
CALLS = {"rename": 5, "link": 4, "unlink": 6}


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "tx.py"
    path.write_text(SCRIPT)
    return path


def original(root: Path) -> dict[str, bytes]:
    root.mkdir()
    (root / "a.txt").write_bytes(b"old a\n")
    (root / "b.txt").write_bytes(b"b\n")
    return snapshot_tree(root)


def all_entries(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def run(script: Path, root: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(script), str(root)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **env},
    )


# --------------------------------------------------------------------------- the happy path


def test_commit_applies_every_change(tmp_path, script):
    root = tmp_path / "p"
    original(root)
    assert run(script, root).returncode == 0
    assert snapshot_tree(root) == AFTER
    assert all_entries(root) == {*AFTER, "docs", "docs/sub"}  # no journal, no backups


def test_new_files_follow_the_umask_and_replaced_ones_keep_their_mode(tmp_path, script):
    root = tmp_path / "p"
    original(root)
    os.chmod(root / "a.txt", 0o640)
    result = subprocess.run(
        f"umask 077 && {sys.executable} {script} {root}", shell=True, check=False
    )
    assert result.returncode == 0
    assert stat.S_IMODE(os.stat(root / "a.txt").st_mode) == 0o640
    assert stat.S_IMODE(os.stat(root / "d.txt").st_mode) == 0o600
    assert stat.S_IMODE(os.stat(root / "docs/sub/c.md").st_mode) == 0o600
    assert stat.S_IMODE(os.stat(root / "docs").st_mode) == 0o700


def test_create_refuses_a_path_that_exists_and_changes_nothing(tmp_path):
    root = tmp_path / "p"
    before = original(root)
    tx = Transaction(root)
    tx.write("new.txt", b"x")
    tx.create("a.txt", b"mine")
    with pytest.raises(CfngenError, match=r"a.txt exists; nothing was changed"):
        tx.commit()
    assert snapshot_tree(root) == before


@pytest.mark.parametrize("link", ["folder", "file"])
def test_a_change_through_a_link_to_outside_is_refused(tmp_path, link):
    root = tmp_path / "p"
    before = original(root)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.md").write_bytes(b"theirs")
    if link == "folder":
        (root / "docs").symlink_to(outside)
    else:
        (root / "docs").mkdir()
        (root / "docs" / "x.md").symlink_to(outside / "x.md")
    tx = Transaction(root)
    tx.write("a.txt", b"new a")
    tx.write("docs/x.md", b"x")
    with pytest.raises(CfngenError, match=r"leads outside .*; nothing was changed"):
        tx.commit()
    assert snapshot_tree(root) == (
        before if link == "folder" else {**before, "docs/x.md": b"theirs"}
    )
    assert os.readlink(root / ("docs" if link == "folder" else "docs/x.md"))
    assert [p.name for p in outside.iterdir()] == ["x.md"]
    assert (outside / "x.md").read_bytes() == b"theirs"


def test_a_file_where_a_folder_is_needed_changes_nothing(tmp_path):
    root = tmp_path / "p"
    original(root)
    (root / "docs").write_text("a file")
    before = snapshot_tree(root)
    tx = Transaction(root)
    tx.write("z.txt", b"z")
    tx.write("docs/x.md", b"x")
    with pytest.raises(CfngenError, match="needs a folder"):
        tx.commit()
    assert snapshot_tree(root) == before


@pytest.mark.parametrize("bad", ["/etc/passwd", "../x", "a/../../x", "", "."])
def test_paths_that_leave_the_folder_are_not_accepted(bad):
    assert canonical(bad) is None
    with pytest.raises(ValueError):
        Transaction(Path("/nonexistent")).write(bad, b"")


def test_one_spelling_per_path():
    assert canonical("./docs//a.md") == canonical("docs/a.md") == "docs/a.md"


# --------------------------------------------------------------------------- faults


@pytest.mark.parametrize(
    ("syscall", "when"), [(name, n) for name, count in CALLS.items() for n in range(1, count + 1)]
)
def test_a_failing_system_call_at_any_step_puts_everything_back(tmp_path, script, syscall, when):
    root = tmp_path / "p"
    before = original(root)
    result = strace(
        [sys.executable, str(script), str(root)], syscall=syscall, when=when, error="EIO"
    )
    if result.returncode == 0:
        # The failing call was one the commit may ignore (removing a backup afterwards).
        assert syscall == "unlink", result.stderr
        recover(root)
        assert snapshot_tree(root) == AFTER
    else:
        assert result.returncode == 2, result.stderr
        assert "Input/output error" in result.stderr
        assert "put back as it was" in result.stderr or "nothing was changed" in result.stderr
        assert snapshot_tree(root) == before
    assert all_entries(root) - {"docs", "docs/sub"} == set(snapshot_tree(root))


@pytest.mark.parametrize(
    ("syscall", "when"), [(name, n) for name, count in CALLS.items() for n in range(1, count + 1)]
)
def test_sigkill_at_any_step_is_undone_or_finished_by_the_next_command(
    tmp_path, script, syscall, when
):
    root = tmp_path / "p"
    before = original(root)
    result = strace(
        [sys.executable, str(script), str(root)], syscall=syscall, when=when, signal="KILL"
    )
    assert result.returncode in (-9, 137), result.stderr  # the kill happened
    recover(root)
    after = snapshot_tree(root)
    assert after in (before, AFTER)
    assert JOURNAL not in all_entries(root)
    assert not [p for p in all_entries(root) if ".cfngen-" in p]


def test_an_undo_that_fails_too_is_finished_by_the_next_command(tmp_path, script):
    root = tmp_path / "p"
    before = original(root)
    # Every rename from the fourth on fails: a delete, and the undo that renames a.txt back.
    result = strace(
        [sys.executable, str(script), str(root)], syscall="rename", when="4+", error="EIO"
    )
    assert result.returncode == 2
    assert "could not put" in result.stderr and JOURNAL in result.stderr
    assert (root / JOURNAL).exists()
    messages = recover(root)
    assert messages and "put back" in messages[0]
    assert snapshot_tree(root) == before
    assert all_entries(root) == set(before)


@pytest.mark.parametrize("change", ["other-bytes", "a-link"])
def test_an_undo_never_puts_a_backup_over_a_file_changed_since(tmp_path, script, change):
    """Killed after a.txt was swapped; before the next command, someone changes a.txt. The
    undo keeps their a.txt, says where the old content is, and finishes once one is gone."""
    root = tmp_path / "p"
    original(root)
    result = strace([sys.executable, str(script), str(root)], syscall="link", when=2, signal="KILL")
    assert result.returncode in (-9, 137), result.stderr
    assert (root / "a.txt").read_bytes() == b"new a\n"
    (root / "a.txt").unlink()
    if change == "a-link":
        (root / "a.txt").symlink_to("b.txt")
    else:
        (root / "a.txt").write_bytes(b"theirs\n")
    mine = os.readlink(root / "a.txt") if change == "a-link" else b"theirs\n"
    messages = recover(root)
    assert messages and "a.txt changed since; its old content is" in messages[0]
    assert (root / JOURNAL).exists()
    now = os.readlink(root / "a.txt") if change == "a-link" else (root / "a.txt").read_bytes()
    assert now == mine
    (backup,) = [p for p in root.iterdir() if p.name.endswith(".old")]
    assert backup.read_bytes() == b"old a\n"
    backup.unlink()  # they keep theirs
    assert recover(root) and not (root / JOURNAL).exists()


def test_a_second_writer_is_refused_and_recovery_leaves_it_alone(tmp_path):
    root = tmp_path / "p"
    before = original(root)
    (root / JOURNAL).write_text(json.dumps(EMPTY_JOURNAL))
    fd = os.open(root, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        tx = Transaction(root)
        tx.write("x.txt", b"x")
        with pytest.raises(CfngenError, match="another cfngen command is writing"):
            tx.commit()
        assert recover(root) == []
        assert (root / JOURNAL).exists()
    finally:
        os.close(fd)
    recover(root)
    assert snapshot_tree(root) == before


def test_a_damaged_journal_is_refused_not_guessed(tmp_path):
    root = tmp_path / "p"
    before = original(root)
    (root / JOURNAL).write_text("{not json")
    with pytest.raises(CfngenError, match="not a journal this cfngen writes") as caught:
        recover(root)
    assert caught.value.exit_code == ExitCode.USAGE
    assert f"rm -- {root / JOURNAL}" in (caught.value.hint or "")
    tx = Transaction(root)
    tx.write("x.txt", b"x")
    with pytest.raises(CfngenError, match="not a journal this cfngen writes"):
        tx.commit()
    assert snapshot_tree(root) == {**before, JOURNAL: b"{not json"}


# --------------------------------------------------------------------------- workspaces


def test_a_workspace_whose_process_died_is_swept(tmp_path):
    killed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, sys; from pathlib import Path; from cfngen._files import Workspace\n"
            f"w = Workspace(Path({str(tmp_path)!r}), 'init'); os.kill(os.getpid(), 9)",
        ],
        check=False,
    )
    assert killed.returncode == -9
    assert len(list(tmp_path.glob(".cfngen-init-*"))) == 1
    with Workspace(tmp_path, "init") as mine:
        assert sweep(tmp_path, "init") == [mine.path]
        assert list(tmp_path.glob(".cfngen-init-*")) == [mine.path]
    assert not list(tmp_path.glob(".cfngen-init-*"))


# --------------------------------------------------------------------------- reading


def test_a_named_pipe_is_refused_at_once(tmp_path):
    fifo = tmp_path / "schema.json"
    os.mkfifo(fifo)
    with pytest.raises(CfngenError, match=r"named pipe \(FIFO\), not a file"):
        read_bytes(fifo)


def test_links_and_folders(tmp_path):
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    with pytest.raises(CfngenError, match="symbolic link loop"):
        read_bytes(loop)
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "nowhere.json")
    with pytest.raises(CfngenError, match=r"symbolic link to .*nowhere.json, which does not exist"):
        read_bytes(dangling)
    assert read_optional(dangling) is None
    with pytest.raises(CfngenError, match="is a folder"):
        read_bytes(tmp_path)


# --------------------------------------------------------------------------- scratch folders


def test_a_scratch_folder_goes_with_its_process_not_with_a_forked_child(tmp_path):
    code = (
        "import os, sys\n"
        "from cfngen._files import scratch_folder\n"
        "folder = scratch_folder('cfngen-test-')\n"
        "(folder / 'f').write_text('x')\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    sys.exit(0)  # a normal exit: the child runs the exit handlers it inherited\n"
        "os.waitpid(pid, 0)\n"
        "print(folder, folder.is_dir())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "TMPDIR": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    )
    folder, alive_after_the_child = done.stdout.split()
    assert Path(folder).parent == tmp_path
    assert alive_after_the_child == "True"
    assert not Path(folder).exists()
