"""Running pip as a child process: its command line, its output line by line, its last error."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from cfngen._errors import CfngenError

ProgressLine = Callable[[str], None]


def pip_command(command: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pip",
        command,
        "--disable-pip-version-check",
        "--no-input",
        "--progress-bar",
        "off",
    ]


def run_pip(command: list[str], cwd: Path, on_line: ProgressLine | None) -> tuple[int, str]:
    """Run pip, passing each line of its output on as it comes; its exit code and output."""
    lines = []
    try:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            # Line by line as pip prints it: a pipe would otherwise get it in blocks, at the end.
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
        )
    except OSError as exc:
        raise CfngenError(f"cannot run pip: {exc}", "install pip beside cfngen") from None
    assert process.stdout is not None
    with process:
        for line in process.stdout:
            lines.append(line)
            if on_line is not None:
                on_line(line.rstrip("\n"))
    return process.returncode, "".join(lines)


def last_error(output: str) -> str:
    errors = [line[len("ERROR: ") :] for line in output.splitlines() if line.startswith("ERROR: ")]
    if errors:
        return " ".join(errors[-2:])
    tail = [line for line in output.splitlines() if line.strip()]
    return tail[-1] if tail else "no output"
