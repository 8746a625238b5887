"""`cfngen init` leaves nothing half-made: signals at any moment, a full disk (the git step
included), a read-only folder, two inits racing for one folder, a kill in the middle of the
final move (issue 8, items 3 and 15), and new files follow the umask (item 21).

Faults are real: signals sent to the running command, a small tmpfs and a read-only bind
mount in a private mount namespace, strace killing the process at its Nth link().
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cfngen._errors import ExitCode
from tests._faults import namespace, strace
from tests.conftest import SWEEPS
from tests.test_init_support import cfngen_env, git

TYPE_NAME = "Acme::Svc::Widget"
INIT = [sys.executable, "-m", "cfngen", "init", "--no-input", "-t", TYPE_NAME]


@pytest.fixture
def home(synced_home: Path) -> Path:
    """A HOME with the template cache built once, so every init here only renders."""
    return synced_home


def workspaces(folder: Path) -> list[Path]:
    return list(folder.glob(".cfngen-init-*")) if folder.is_dir() else []


def start_init(dest: Path, home: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*INIT, *extra, str(dest)],
        env=cfngen_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_workspace(folder: Path, process: subprocess.Popen[str]) -> bool:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if workspaces(folder):
            return True
        time.sleep(0.005)
    return False


# --------------------------------------------------------------------------- signals


DELAYS = {"early": 0.0, "middle": 0.3, "late": 0.8}
#: The inner loop's sample of the 18 combinations: each signal, each moment and both kinds
#: of folder at least once; the others are `exhaustive` (CI runs all 18).
SAMPLED = {
    ("new-folder", "early", "SIGTERM"),
    ("existing-folder", "middle", "SIGHUP"),
    ("new-folder", "late", "SIGINT"),
    ("existing-folder", "late", "SIGTERM"),
}
SIGNAL_CASES = [
    pytest.param(
        existing == "existing-folder",
        DELAYS[moment],
        signame,
        id=f"{existing}-{moment}-{signame}",
        marks=() if (existing, moment, signame) in SAMPLED else pytest.mark.exhaustive,
    )
    for existing in ("new-folder", "existing-folder")
    for moment in DELAYS
    for signame in ("SIGTERM", "SIGHUP", "SIGINT")
]


@pytest.mark.parametrize(("existing", "delay", "signame"), SIGNAL_CASES)
def test_a_signal_at_any_moment_leaves_nothing_behind(home, tmp_path, signame, delay, existing):
    parent = tmp_path / "work"
    parent.mkdir()
    dest = parent / "widget"
    if existing:
        dest.mkdir()
    process = start_init(dest, home)
    watched = dest if existing else parent
    if not wait_for_workspace(watched, process):
        pytest.fail(f"init ended before it made its workspace: {process.communicate()}")
    time.sleep(delay)
    process.send_signal(getattr(signal, signame))
    out, err = process.communicate(timeout=120)
    assert not workspaces(watched), err
    assert process.returncode >= 0, f"killed by a signal: {process.returncode} {err}"
    if "Created" in out:
        # The signal came after the last step: then the project is whole, whatever the exit code.
        assert process.returncode in (ExitCode.OK, ExitCode.INTERRUPTED), err
        assert (dest / ".rpdk-config").is_file()
        return
    assert process.returncode == ExitCode.INTERRUPTED, err
    assert "interrupted" in err and "Traceback" not in err and "Created" not in out
    if (dest / ".rpdk-config").is_file():
        # The interrupt came as the finished project was being reported: it is whole.
        assert (dest / "acme-svc-widget.json").is_file() and (dest / ".git").is_dir()
        return
    assert sorted(p.name for p in parent.iterdir()) == (["widget"] if existing else [])
    if existing:
        assert list(dest.iterdir()) == []


@pytest.mark.parametrize("existing", [False, True], ids=["new-folder", "existing-folder"])
def test_a_killed_init_is_swept_by_the_next_one(home, tmp_path, existing):
    parent = tmp_path / "work"
    parent.mkdir()
    dest = parent / "widget"
    if existing:
        dest.mkdir()
    process = start_init(dest, home)
    watched = dest if existing else parent
    assert wait_for_workspace(watched, process)
    time.sleep(0.3)
    process.kill()
    process.communicate()
    assert workspaces(watched)  # SIGKILL: nothing could clean up
    again = subprocess.run(
        [*INIT, str(dest)], env=cfngen_env(home), capture_output=True, text=True, check=False
    )
    assert again.returncode == ExitCode.OK, again.stderr
    assert not workspaces(parent) and not workspaces(dest)
    assert git(dest, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_kill_during_the_move_into_a_folder_is_undone_by_the_next_command(home, tmp_path):
    """Into an existing folder the files go in one transaction; killed at one of its link()s
    (some files in place), the next init finds the journal and starts from the empty folder."""
    dest = tmp_path / "widget"
    dest.mkdir()
    # The last link()s of an init are the move's (generate's own come first, in the
    # workspace): count back from the end until the kill lands in the move.
    for when in range(40, 0, -3):
        killed = strace(
            [*INIT, "--no-git", str(dest)],
            syscall="link",
            when=when,
            signal="KILL",
            env=cfngen_env(home),
        )
        if (dest / ".cfngen-journal.json").exists():
            break
        if killed.returncode == 0:  # past the last link(): start again with an empty folder
            shutil.rmtree(dest)
            dest.mkdir()
            continue
        assert {p.name for p in dest.iterdir()} <= {w.name for w in workspaces(dest)}
    else:
        pytest.fail("no kill landed in the final move")
    assert killed.returncode in (-9, 137), killed.stderr
    assert (dest / ".rpdk-config").exists() or any(
        p.is_file() and ".cfngen-" not in p.name for p in dest.rglob("*")
    )
    again = subprocess.run(
        [*INIT, "--no-git", str(dest)],
        env=cfngen_env(home),
        capture_output=True,
        text=True,
        check=False,
    )
    assert again.returncode == ExitCode.OK, again.stderr
    assert not workspaces(dest)
    assert not [p for p in dest.rglob("*") if ".cfngen-" in p.name]


# --------------------------------------------------------------------------- disk and folders


@pytest.mark.parametrize("stride", SWEEPS)
def test_a_full_disk_at_any_step_fails_cleanly_git_included(home, tmp_path, stride):
    """A tmpfs with room for more and more: every init either creates the whole project with
    its commit, or fails with one message, leaving neither the project nor a workspace. The
    sample (every third size) still fails before git, in `git init` and in `git commit`."""
    disk = tmp_path / "disk"
    disk.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    sizes = list(range(64, 1024, 64 * stride))  # KiB
    env = cfngen_env(home)
    # From too small for anything up to room for all; stop after two successes (the sample:
    # after the first).
    enough = 2 if stride == 1 else 1
    script = f"""
    made=0
    for size in {" ".join(map(str, sizes))}; do
        mount -t tmpfs -o size=${{size}}k tmpfs {disk}
        set +e
        {" ".join(INIT)} {disk}/widget > {out}/$size.out 2> {out}/$size.err
        echo $? > {out}/$size.rc
        set -e
        ls -A {disk} > {out}/$size.ls
        if [ -d {disk}/widget ]; then
            git -C {disk}/widget log --oneline > {out}/$size.log
            made=$((made + 1))
        fi
        umount {disk}
        if [ $made -ge {enough} ]; then break; fi
    done
    """
    result = namespace(script, env=env, timeout=900)
    assert result.returncode == 0, result.stderr
    outcomes = []
    sizes = [size for size in sizes if (out / f"{size}.rc").exists()]
    for size in sizes:
        rc = int((out / f"{size}.rc").read_text())
        err = (out / f"{size}.err").read_text()
        listing = (out / f"{size}.ls").read_text().split()
        if rc == ExitCode.OK:
            assert listing == ["widget"], size
            assert len((out / f"{size}.log").read_text().splitlines()) == 1
        else:
            assert rc == ExitCode.USAGE, err
            assert "Traceback" not in err and len(err.strip().splitlines()) <= 2, err
            assert "no space" in err.lower(), err
            assert ".cfngen-init-" not in err, err  # the workspace is not the user's business
            assert "Created" not in (out / f"{size}.out").read_text()
            assert listing == [], (size, listing)
        outcomes.append(rc)
    assert ExitCode.OK in outcomes and ExitCode.USAGE in outcomes
    # The smallest disks fail before git; some fail in git itself: both are failures.
    assert any("git" in (out / f"{s}.err").read_text() for s in sizes), "no git failure seen"


def test_a_read_only_folder_is_one_message(home, tmp_path):
    parent = tmp_path / "ro"
    parent.mkdir()
    result = namespace(
        f"mount --bind {parent} {parent} && mount -o remount,bind,ro {parent}\n"
        f"set +e; {' '.join(INIT)} {parent}/widget; echo rc=$?",
        env=cfngen_env(home),
    )
    assert "rc=2" in result.stdout, result.stderr
    assert "read-only" in result.stderr and "Traceback" not in result.stderr
    assert list(parent.iterdir()) == []


def test_two_inits_racing_for_one_folder_make_one_project(home, tmp_path):
    dest = tmp_path / "widget"
    first, second = start_init(dest, home), start_init(dest, home)
    results = [(p.wait(timeout=300), *p.communicate()) for p in (first, second)]
    codes = sorted(code for code, _, _ in results)
    assert codes[0] == ExitCode.OK, results
    assert codes[1] in (ExitCode.OK, ExitCode.USAGE), results
    if codes[1] == ExitCode.USAGE:
        loser = next(err for code, _, err in results if code == ExitCode.USAGE)
        assert "Traceback" not in loser
        assert "created while init was running" in loser or "not empty" in loser, loser
    assert git(dest, "rev-list", "--count", "HEAD").strip() == "1"
    assert git(dest, "status", "--porcelain", "--untracked-files=all") == ""
    assert not workspaces(tmp_path) and not workspaces(dest)


# --------------------------------------------------------------------------- umask (8.21)


def test_new_files_follow_the_umask(home, tmp_path):
    dest = tmp_path / "widget"
    result = subprocess.run(
        f"umask 027 && {' '.join(INIT)} {dest}",
        shell=True,
        env=cfngen_env(home),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    modes = {
        p.relative_to(dest).as_posix(): stat.S_IMODE(p.stat().st_mode)
        for p in dest.rglob("*")
        if ".git" not in p.relative_to(dest).parts
    }
    assert modes and all(
        mode == (0o750 if (dest / rel).is_dir() else 0o640) for rel, mode in modes.items()
    ), modes
    # generate's own files, written later into the project, too.
    (dest / "src/acme_svc_widget/models.py").unlink()
    subprocess.run(
        f"umask 077 && {sys.executable} -m cfngen generate {dest}",
        shell=True,
        env=cfngen_env(home),
        check=True,
        capture_output=True,
    )
    assert stat.S_IMODE(os.stat(dest / "src/acme_svc_widget/models.py").st_mode) == 0o600
