"""`cfngen validate PATH` on a named pipe: refused at once with one message, never a wait.

Opening a FIFO for reading blocks until someone writes to it, so every read of a path the
user names must go through the one reader that refuses anything but a regular file
(cfngen/_files/_read.py). A kind's claim on the file ("is this my schema?") read it with
`open()` before validate did: the hook kind's claim waited forever on any `*.json` pipe.
Each case runs in a process of its own, with a deadline: a regression hangs that process,
never the test run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.test_init_support import cfngen_argv, cfngen_env

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")

#: kind -> the `cfngen init --no-input` arguments of a project of that kind.
PROJECTS = {
    "resource": ("-t", "Acme::Svc::Widget"),
    "hook": ("--artifact-type", "hook", "-t", "Acme::Svc::Guard"),
    "module": ("--artifact-type", "module", "-t", "Acme::Svc::Stack::MODULE"),
    "custom_resource": ("--artifact-type", "custom_resource"),
}

#: (kind or None for a folder that is no project, the pipe's path in it): where each kind
#: looks for what it claims, and names no kind claims.
PIPES = [
    ("resource", "other-schema.json"),
    ("resource", "inputs/inputs_2_create.json"),
    ("hook", "other-hook.json"),
    ("hook", "inputs/inputs_2_pre_create.json"),
    ("module", "fragments/other.yaml"),
    ("module", "fragments/other.json"),
    ("custom_resource", "other-template.yaml"),
    ("custom_resource", "other.json"),
    (None, "schema.json"),
    (None, "template.yaml"),
    (None, "no-suffix"),
]


def validate(root: Path, home: Path, *paths: str) -> subprocess.CompletedProcess[str]:
    """`cfngen validate PATHS` in `root`, failing the test if it takes more than a few
    seconds (it would wait forever)."""
    try:
        return subprocess.run(
            [*cfngen_argv(), "validate", *paths],
            cwd=root,
            env=cfngen_env(home),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"cfngen validate {' '.join(paths)} waited on the pipe")


@pytest.mark.parametrize(("kind", "name"), PIPES, ids=[f"{k}-{n}" for k, n in PIPES])
def test_validate_refuses_a_named_pipe_at_once(made_project, tmp_path, kind, name):
    if kind is None:
        root = tmp_path / "folder"
        root.mkdir()
    else:
        root = tmp_path / kind
        shutil.copytree(made_project(f"pipes-{kind}", *PROJECTS[kind]), root, symlinks=True)
    pipe = root / name
    pipe.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(pipe)
    result = validate(root, tmp_path, name)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.count("cfngen: error:") == 1, result.stderr
    assert f"{name}: is a named pipe (FIFO), not a file" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_pipe_beside_a_file_is_refused_before_anything_is_checked(made_project, tmp_path):
    """The pre-commit hook passes several files: the pipe stops the run, at once."""
    root = tmp_path / "hook"
    shutil.copytree(made_project("pipes-hook", *PROJECTS["hook"]), root, symlinks=True)
    os.mkfifo(root / "other-hook.json")
    result = validate(root, tmp_path, "acme-svc-guard.json", "other-hook.json")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.count("cfngen: error:") == 1, result.stderr
    assert "other-hook.json: is a named pipe (FIFO), not a file" in result.stderr
