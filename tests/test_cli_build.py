"""What `cfngen build` prints: what it built, and pip's own output only when asked (-v)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests._wheelhouse import write_wheel
from tests.test_init_support import cfngen_argv, cfngen_env, made_once


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> Path:
    house = tmp_path_factory.mktemp("wheels")
    write_wheel(house, "tinypure", "1.0", {"tinypure.py": b"ANSWER = 42\n"})
    return house


def build(root: Path, home: Path, wheels: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    env = cfngen_env(home, PIP_CONFIG_FILE=os.devnull, CFNGEN_HOME=str(home / "cfngen"))
    return subprocess.run(
        [*cfngen_argv(), "build", "--no-index", "--find-links", str(wheels), *flags],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


#: The inner loop's sample (the code before showed pip's lines by default); CI runs all.
INNER_FLAGS = {("default", "tinypure\n"), ("v", "nosuchdist\n")}


@pytest.mark.parametrize(
    ("flags", "shown", "requirements"),
    [
        pytest.param(
            flags,
            shown,
            requirements,
            id=f"{requirements.strip()}-{name}",
            marks=() if (name, requirements) in INNER_FLAGS else pytest.mark.exhaustive,
        )
        for flags, shown, name in [
            ((), False, "default"),
            (("-q",), False, "quiet"),
            (("-v",), True, "v"),
            (("--verbose",), True, "verbose"),
        ]
        for requirements in ("tinypure\n", "nosuchdist\n")
    ],
)
def test_pip_output_shows_only_with_verbose(
    tmp_path_factory, tmp_path, wheels, *, flags, shown, requirements
):
    root = tmp_path / "widget"
    shutil.copytree(made_once(tmp_path_factory, "widget", "-t", "Acme::Svc::Widget"), root)
    (root / "requirements.txt").write_text(requirements)
    result = build(root, tmp_path, wheels, *flags)
    ok = requirements == "tinypure\n"
    assert result.returncode == (0 if ok else 1), result.stderr
    assert ("pip |" in result.stderr) == shown, result.stderr
    if not ok:  # pip's own reason is in the message, with or without -v
        assert "nosuchdist" in result.stderr
        assert "Traceback" not in result.stderr
