"""A command that runs long shows what it is doing on stderr, on a terminal only, and erases
the line before it prints its result."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pexpect
import pytest

from cfngen._progress import current, phase
from tests._big_schemas import flat


def env(**extra):
    return {
        **os.environ,
        "CFNGEN_PROGRESS_AFTER": "0.05",  # instead of 2 s: the schema takes longer than this
        "NO_COLOR": "1",
        **extra,
    }


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "big.json"
    path.write_text(json.dumps(flat(3000), indent=4))
    return path


def test_on_a_terminal_the_status_line_says_what_it_does_then_goes(big):
    child = pexpect.spawn(
        sys.executable,
        ["-m", "cfngen", "validate", str(big)],
        env=env(TERM="dumb"),
        encoding="utf-8",
        timeout=600,
    )
    child.expect(r"cfngen: validating big\.json\.\.\. \d+ s")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    # Erased before the summary: what the terminal shows is the summary alone.
    assert any(line.startswith("1 file checked: 1 valid") for line in visible(child.before))


def visible(text):
    """The lines as a terminal shows them: what follows the last carriage return of each."""
    return [line.split("\r")[-1] for line in text.replace("\r\n", "\n").split("\n")]


def test_generate_status_line_is_gone_before_the_first_line_of_output(tmp_path):
    from tests._generate_helpers import make_project

    root = make_project(tmp_path / "p", flat(1500))
    child = pexpect.spawn(
        sys.executable,
        ["-m", "cfngen", "generate", "--force", str(root)],
        env=env(AWS_EC2_METADATA_DISABLED="true"),
        encoding="utf-8",
        timeout=900,
    )
    child.expect(r"cfngen: [a-z][^.]*\.\.\. \d+ s")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    shown = visible(child.before)
    assert any(line.startswith("wrote ") for line in shown)
    assert not any("cfngen: " in line and "... " in line for line in shown), shown


def test_without_a_terminal_there_is_no_status_line(big):
    result = subprocess.run(
        [sys.executable, "-m", "cfngen", "validate", str(big)],
        capture_output=True,
        text=True,
        env=env(),
        check=False,
    )
    assert result.returncode == 0
    assert "validating" not in result.stderr and "\r" not in result.stderr


def test_phases_nest_and_restore():
    assert current() == ""
    with phase("outer"):
        assert current() == "outer"
        with phase("inner"):
            assert current() == "inner"
        assert current() == "outer"
    assert current() == ""
