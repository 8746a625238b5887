"""The `cfngen` command ends without the interpreter's teardown when nothing is left to run:
its output must still arrive whole, and its exit code unchanged."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cfngen._errors import ExitCode
from cfngen._kinds.resource import EXAMPLE_SCHEMA


def command(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cfngen", *args], capture_output=True, text=True, check=False
    )


def console_script(*args: str) -> subprocess.CompletedProcess[str]:
    """The same through the `cfngen` console script, as a user runs it."""
    script = Path(sys.executable).with_name("cfngen")
    assert script.exists(), "the cfngen console script is missing: pip install -e '.[dev]'"
    return subprocess.run([str(script), *args], capture_output=True, text=True, check=False)


def test_a_large_output_through_a_pipe_arrives_whole(tmp_path):
    # Far more than a pipe's 64 KiB buffer: everything must be flushed before the process ends.
    paths = []
    for i in range(500):
        path = tmp_path / f"schema-{i}.json"
        shutil.copy(EXAMPLE_SCHEMA, path)
        paths.append(str(path))
    done = command("validate", "--format", "json", *paths)
    assert done.returncode == ExitCode.OK, done.stderr
    assert len(done.stdout) > 64 * 1024
    assert len(json.loads(done.stdout)["files"]) == 500


@pytest.mark.parametrize("run", [command, console_script])
def test_exit_codes_are_kept(run, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"typeName": "Acme::Svc::Widget"}')
    assert run("validate", str(EXAMPLE_SCHEMA)).returncode == ExitCode.OK
    failed = run("validate", str(bad))
    assert failed.returncode == ExitCode.FAILED
    assert "bad.json" in failed.stdout + failed.stderr
    assert run("validate", str(tmp_path / "missing.json")).returncode == ExitCode.USAGE
    assert run("validate", "--no-such-flag").returncode == ExitCode.USAGE


def test_stdout_and_stderr_both_arrive(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"typeName": "Acme::Svc::Widget"}')
    done = command("validate", str(bad))
    assert "error" in done.stdout
    assert "1 invalid" in done.stderr


def test_exit_handlers_run_before_the_process_ends(tmp_path):
    """The command skips the interpreter's teardown, not the exit handlers registered with
    atexit (logging's flush, weakref.finalize's temporary folders): a handler a library
    registered still runs, once, and the exit code is the command's."""
    site = tmp_path / "site"
    site.mkdir()
    marker = tmp_path / "ran"
    (site / "sitecustomize.py").write_text(
        f"import atexit\natexit.register(lambda: open({str(marker)!r}, 'a').write('ran\\n'))\n"
    )
    bad = tmp_path / "bad.json"
    bad.write_text('{"typeName": "Acme::Svc::Widget"}')
    import os

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path])}
    for path, code in ((EXAMPLE_SCHEMA, ExitCode.OK), (bad, ExitCode.FAILED)):
        marker.unlink(missing_ok=True)
        done = subprocess.run(
            [sys.executable, "-m", "cfngen", "validate", str(path)],
            capture_output=True,
            text=True,
            check=False,
            env=env,
        )
        assert done.returncode == code, done.stderr
        assert marker.read_text() == "ran\n"
