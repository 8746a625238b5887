"""scripts/test-machine: the README's test line passes on a fresh machine because this script puts
every oracle in place first, and where it cannot (no root, no pyenv CPython) it names what to
install in one line and exits 2 — a missing oracle is never a skip."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "test-machine"
#: command -> the Debian package the script names for it.
TOOLS = {
    "strace": "strace",
    "zsh": "zsh",
    "fish": "fish",
    "curl": "curl",
    "ip": "iproute2",
    "unshare": "util-linux",
    "git": "git",
    "java": "default-jdk-headless",
    "node": "nodejs",
    "npm": "npm",
}


def machine_without(tmp_path: Path, missing: str) -> Path:
    """A PATH folder with every command of this machine but `missing`, and an `id` that says
    the user is not root (so nothing is installed)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for folder in ("/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"):
        for entry in sorted(Path(folder).iterdir()) if Path(folder).is_dir() else []:
            target = bin_dir / entry.name
            if entry.name not in (missing, "id") and not target.exists():
                target.symlink_to(entry.resolve() if entry.is_symlink() else entry)
    (bin_dir / "id").write_text('#!/bin/sh\n[ "$1" = -u ] && echo 1000 || echo "uid=1000"\n')
    (bin_dir / "id").chmod(0o755)
    return bin_dir


def run(path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT)],
        env={**os.environ, "PATH": str(path), **env},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


@pytest.mark.parametrize("tool", list(TOOLS))
def test_a_tool_it_cannot_install_is_named_in_one_line(tmp_path, tool):
    result = run(machine_without(tmp_path, tool))
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"apt-get install {TOOLS[tool]}" in lines[0], result.stderr


@pytest.mark.parametrize("minor", ["3.8", "3.13"])
def test_a_missing_runtime_python_is_named_in_one_line(tmp_path, minor):
    versions = tmp_path / "versions"
    for other in ("3.8.18", "3.9.1", "3.10.2", "3.11.3", "3.12.4", "3.13.5"):
        if not other.startswith(minor + "."):
            (versions / other / "bin").mkdir(parents=True)
            (versions / other / "bin" / "python").symlink_to("/bin/true")
    result = run(Path(os.environ["PATH"]), CFNGEN_TEST_PYENV=str(versions))
    assert result.returncode == 2, result.stdout + result.stderr
    assert re.fullmatch(
        rf"test-machine: .*CPython {re.escape(minor)} under .*pyenv install {re.escape(minor)}.*\n",
        result.stderr,
    ), result.stderr


def test_on_a_machine_that_has_everything_it_does_nothing():
    result = run(Path(os.environ["PATH"]))
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_the_readme_test_line_runs_it_first():
    readme = (REPO / "README.md").read_text()
    block = readme.split("## Running the tests", 1)[1].split("```", 2)[1]
    assert block.strip().startswith("scripts/test-machine && ")


def tool_venv(tools: Path, name: str, *, whole: bool = True, python: str = "/bin/true") -> None:
    """A stand-in for a tool's virtualenv in the machine's tools folder: its tool, its Python
    (`python`), and the mark the script leaves when it is whole."""
    venv = tools / name
    (venv / "bin").mkdir(parents=True)
    tool = name.rsplit("-", 1)[0]
    (venv / "bin" / tool).write_text("#!/bin/sh\n")
    (venv / "bin" / tool).chmod(0o755)
    (venv / "bin" / "python").symlink_to(python)
    if whole:
        (venv / ".complete").write_text("")


def pins() -> tuple[str, str]:
    script = SCRIPT.read_text()
    (sam,) = re.findall(r'^sam_version="(.+)"$', script, re.MULTILINE)
    (guard_rail,) = re.findall(r'^guard_rail_version="(.+)"$', script, re.MULTILINE)
    return f"sam-{sam}", f"guard-rail-{guard_rail}"


def test_the_tools_virtualenvs_outside_the_clone_are_used_as_they_are(tmp_path):
    tools = tmp_path / "tools"
    for name in pins():
        tool_venv(tools, name)
    result = run(Path(os.environ["PATH"]), CFNGEN_TEST_TOOLS=str(tools))
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


@pytest.mark.parametrize("damage", ["not marked whole", "its Python gone"])
def test_a_tool_virtualenv_left_unfinished_or_broken_is_made_again(tmp_path, damage):
    tools = tmp_path / "tools"
    sam, guard_rail = pins()
    tool_venv(tools, guard_rail)
    if damage == "not marked whole":
        tool_venv(tools, sam, whole=False)
    else:
        tool_venv(tools, sam, python=str(tmp_path / "gone" / "python"))
    (tools / sam / "leftover").write_text("")
    # No package index: the install fails at once, and says so, rather than download the SAM CLI.
    result = run(Path(os.environ["PATH"]), CFNGEN_TEST_TOOLS=str(tools), PIP_NO_INDEX="1")
    assert "installing aws-sam-cli==" in result.stdout and str(tools / sam) in result.stdout
    assert result.returncode == 2, result.stdout + result.stderr
    assert "could not install aws-sam-cli==" in result.stderr.strip().splitlines()[-1]
    assert not (tools / sam).exists()
