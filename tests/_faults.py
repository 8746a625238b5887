"""Fault injection that works as root (root ignores chmod): the real faults, not mocks.

- `strace(...)`: run a command with one system call failing (`error=ENOSPC`) or killing the
  process (`signal=KILL`) at its Nth call (`strace -e inject=...:when=N`).
- `namespace(...)`: run a shell script in a private mount namespace (`unshare -m`), where it
  may mount a small tmpfs (a disk that fills up) or bind-mount a folder read-only.

A missing tool is a failure, not a skip: without it these tests would prove nothing.
`scripts/test-machine` installs strace.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

ENV = {
    **os.environ,
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def require(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.fail(
            f"{tool} is not installed: these tests need it (scripts/test-machine installs it)"
        )
    return path


@functools.cache
def _namespaces_work() -> str | None:
    unshare = shutil.which("unshare")
    if unshare is None:
        return "unshare is not installed (apt-get install util-linux)"
    probe = subprocess.run(
        [unshare, "-m", "--propagation", "private", "true"],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        return f"unshare -m does not work here (run the tests as root): {probe.stderr.strip()}"
    return None


def strace(
    argv: Sequence[str],
    *,
    syscall: str,
    when: int | str,
    error: str | None = None,
    signal: str | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Run `argv` under strace with the `when`th call of `syscall` (counted per process)
    failing with `error` or delivering `signal`."""
    tool = require("strace")
    action = f"error={error}" if error else f"signal={signal}"
    return subprocess.run(
        [
            tool,
            "-f",
            # Only stop at the traced call (3x faster); strace cannot inject signals so.
            *(["--seccomp-bpf"] if error else []),
            "-qq",
            "-o",
            "/dev/null",
            "-e",
            f"trace={syscall}",
            "-e",
            f"inject={syscall}:{action}:when={when}",
            *argv,
        ],
        cwd=cwd,
        env=env or ENV,
        capture_output=True,
        check=False,
        text=True,
        timeout=timeout,
    )


def namespace(
    script: str, *, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run a bash script in a private mount namespace: its mounts vanish when it ends."""
    problem = _namespaces_work()
    if problem is not None:
        pytest.fail(problem)
    return subprocess.run(
        ["unshare", "-m", "--propagation", "private", "bash", "-euo", "pipefail", "-c", script],
        env=env or ENV,
        capture_output=True,
        check=False,
        text=True,
        timeout=timeout,
    )


def python() -> str:
    return sys.executable
