"""A command that runs long shows what it is doing on stderr, on a terminal only, and erases
the line before it prints its result."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pexpect
import pytest

from cfngen._cli._status_line import render
from cfngen._progress import State, advance, current, phase, reporting, state
from tests._big_schemas import flat


def env(**extra):
    return {
        **os.environ,
        "CFNGEN_PROGRESS_AFTER": "0.05",  # instead of 2 s: the schema takes longer than this
        "CFNGEN_PROGRESS_EVERY": "0.05",
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

    root = make_project(tmp_path / "p", flat(200))
    child = pexpect.spawn(
        sys.executable,
        ["-m", "cfngen", "generate", "--force", str(root)],
        # Rendered, not read from the model cache: the models take longer than the 0.05 s.
        env=env(AWS_EC2_METADATA_DISABLED="true", CFNGEN_NO_CACHE="1"),
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


def test_phases_count_their_steps_and_restore_the_outer_count():
    with phase("outer", total=3):
        advance()
        with phase("inner", total=10):
            advance(4)
            assert state() == State("inner", 4, 10)
        assert state() == State("outer", 1, 3)
    assert state() == State("", 0, None)


# ---------------------------------------------------------------------------- the bar


def test_a_phase_with_a_total_is_a_bar_with_count_and_percentage():
    line = render(State("validating schemas", 412, 1898), 7.2, 120, "validate")
    assert line == "cfngen: validating schemas [######........................] 412/1898 21% 7 s"


def test_the_bar_is_empty_at_the_start_and_full_at_the_end():
    assert "[" + "." * 30 + "] 0/5 0%" in render(State("x", 0, 5), 0, 120, "c")
    assert "[" + "#" * 30 + "] 5/5 100%" in render(State("x", 5, 5), 0, 120, "c")
    # More steps than announced does not overflow the bar.
    assert "[" + "#" * 30 + "] 5/5 100%" in render(State("x", 9, 5), 0, 120, "c")


def test_the_bar_shrinks_to_the_terminal_and_goes_when_there_is_no_room():
    narrow = render(State("validating schemas", 1, 2), 3, 60, "validate")
    assert len(narrow) <= 59
    assert "[#" in narrow and narrow.endswith("] 1/2 50% 3 s")
    tiny = render(State("validating schemas", 1, 2), 3, 45, "validate")
    assert tiny == "cfngen: validating schemas 1/2 50% 3 s"
    assert len(render(State("validating schemas", 1, 2), 3, 20, "validate")) == 19


def test_a_phase_without_a_total_is_what_it_does_and_the_time():
    assert render(State("validating big.json", 0, None), 7, 120, "validate") == (
        "cfngen: validating big.json... 7 s"
    )
    assert render(State("", 0, None), 1, 120, "build") == "cfngen: build... 1 s"


# ---------------------------------------------------------------------------- counts arrive


class Recorder:
    def __init__(self):
        self.states = []

    def update(self, state):
        self.states.append(state)


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    folder = tmp_path_factory.mktemp("many")
    for number in range(60):
        schema = flat(30)
        schema["typeName"] = f"Org::Many::Type{number}"
        (folder / f"type{number}.json").write_text(json.dumps(schema), encoding="utf-8")
    return sorted(folder.glob("*.json"))


def test_validating_many_files_counts_each_file(many):
    from cfngen._validate import validate_paths

    sink = Recorder()
    with reporting(sink):
        reports = validate_paths(many[:5])
    assert all(report.valid for report in reports)
    counted = [s for s in sink.states if s.what == "validating schemas"]
    assert [s.done for s in counted] == [0, 1, 2, 3, 4, 5]
    assert {s.total for s in counted} == {5}
    assert sink.states[-1] == State("", 0, None)


def test_a_zip_counts_each_entry():
    from cfngen._package._zip import zip_bytes

    sink = Recorder()
    with reporting(sink):
        zip_bytes({"a": b"1", "b": b"2", "c": b"3"}, deflate=True, what="the handler")
    assert [(s.what, s.done, s.total) for s in sink.states[:-1]] == [
        ("zipping the handler", n, 3) for n in range(4)
    ]


def test_writing_files_counts_each_file(tmp_path):
    from cfngen._files import Transaction

    transaction = Transaction(tmp_path)
    for name in ("a.txt", "b/c.txt"):
        transaction.write(name, b"x")
    sink = Recorder()
    with reporting(sink):
        transaction.commit()
    written = [s.done for s in sink.states if s.what == "writing the files"]
    assert written == [0, 1, 2] and (tmp_path / "b/c.txt").read_bytes() == b"x"


# ---------------------------------------------------------------------------- a terminal, a pipe

_BAR = r"cfngen: validating schemas \[[#.]{10,}\] \d+/60 \d+% \d+ s"


def test_validating_many_files_on_a_terminal_shows_a_bar_then_erases_it(many):
    child = pexpect.spawn(
        sys.executable,
        ["-m", "cfngen", "validate", *map(str, many)],
        env=env(TERM="dumb"),
        encoding="utf-8",
        timeout=120,
        dimensions=(24, 100),
    )
    child.expect(_BAR)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    shown = visible(child.before)
    assert any(line.startswith("60 files checked: 60 valid") for line in shown), shown
    assert not any("[#" in line or "[." in line for line in shown), shown


def test_validating_many_files_piped_shows_no_bar(many):
    result = subprocess.run(
        [sys.executable, "-m", "cfngen", "validate", *map(str, many)],
        capture_output=True,
        text=True,
        env=env(),
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "60 files checked" in result.stderr + result.stdout
    for stream in (result.stdout, result.stderr):
        assert "validating schemas" not in stream and "\r" not in stream
