"""`cfngen generate` renders models.py in a forked child when it runs as the `cfngen` command.

The child can only make generate faster, never different: the same files, byte for byte, as
without it (CFNGEN_NO_FORK=1, or generate_project called in-process); an invalid schema still
writes nothing; a child's CfngenError is the same error; a child that dies or hits a bug is
replaced by doing the work in-process; no child outlives the job.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import cfngen._process
from cfngen._errors import CfngenError, ExitCode
from cfngen._generate import _parallel, generate_project
from tests._generate_helpers import make_project, schema_path, snapshot_tree, widget_schema

REPO = Path(__file__).resolve().parents[1]
SNAPSHOTS = REPO / "snapshots" / "generate"
CAN_FORK = hasattr(os, "fork") and len(os.sched_getaffinity(0)) >= 2
needs_fork = pytest.mark.skipif(not CAN_FORK, reason="needs fork() and two CPUs")


def cli(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k != "CFNGEN_NO_FORK"}
    full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", "cfngen", "generate", *args, str(root)],
        capture_output=True,
        text=True,
        env=full_env,
        check=False,
    )


def snapshot_case(case: str, root: Path) -> Path:
    inputs = SNAPSHOTS / case / "input"
    make_project(root, json.loads((inputs / "schema.json").read_text(encoding="utf-8")))
    if (inputs / "callback-context.json").is_file():
        shutil.copy(inputs / "callback-context.json", root / "callback-context.json")
    return root


def large_case(root: Path) -> Path:
    from tests._corpus import corpus

    return make_project(root, dict(corpus()["AWS::AppFlow::Flow"], typeName="Acme::App::Flow"))


@pytest.fixture
def owned(monkeypatch: pytest.MonkeyPatch) -> None:
    """This test process plays the `cfngen` command, which may fork."""
    monkeypatch.delenv("CFNGEN_NO_FORK", raising=False)
    monkeypatch.setattr(cfngen._process, "_owned", False)
    cfngen._process.own()


# --------------------------------------------------------------------------- the command


@needs_fork
@pytest.mark.parametrize("case", ["awkward", "initech", "loggroup", "minimal", "large"])
def test_the_command_writes_the_same_bytes_with_and_without_the_child(case, tmp_path):
    build = large_case if case == "large" else lambda root: snapshot_case(case, root)
    forked, sequential, library = (build(tmp_path / name) for name in ("a", "b", "c"))
    done = cli(forked, PYTHONHASHSEED="1")
    assert done.returncode == 0, done.stderr
    done = cli(sequential, CFNGEN_NO_FORK="1", PYTHONHASHSEED="2")
    assert done.returncode == 0, done.stderr
    generate_project(library)
    expected = snapshot_tree(sequential)
    for root in (forked, library):
        got = snapshot_tree(root)
        assert sorted(got) == sorted(expected)
        assert [p for p in expected if got[p] != expected[p]] == []


@needs_fork
def test_the_command_renders_the_models_in_a_child_process(tmp_path):
    root = make_project(tmp_path / "widget")
    record = tmp_path / "pids.txt"
    script = (
        "import os, sys\n"
        "import cfngen._models\n"
        "real = cfngen._models.render_models\n"
        "def render(*args):\n"
        f"    with open({str(record)!r}, 'a') as f: f.write(str(os.getpid()) + '\\n')\n"
        "    return real(*args)\n"
        "cfngen._models.render_models = render\n"
        f"with open({str(record)!r}, 'a') as f: f.write(str(os.getpid()) + '\\n')\n"
        f"sys.argv = ['cfngen', 'generate', {str(root)!r}]\n"
        "from cfngen.__main__ import run\n"
        "run()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "CFNGEN_NO_FORK"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    command, renderer = record.read_text().split()
    assert renderer != command


@needs_fork
def test_an_invalid_schema_writes_nothing_and_reports_it(tmp_path):
    root = make_project(tmp_path / "widget")
    schema_path(root).write_text(json.dumps(widget_schema(primaryIdentifier=["/properties/Nope"])))
    before = snapshot_tree(root)
    done = cli(root)
    assert done.returncode == ExitCode.FAILED
    assert "/primaryIdentifier" in done.stderr
    assert "nothing was generated" in done.stderr
    assert snapshot_tree(root) == before


@needs_fork
def test_a_schema_that_is_not_json_writes_nothing(tmp_path):
    root = make_project(tmp_path / "widget")
    schema_path(root).write_text('{"typeName": ')
    before = snapshot_tree(root)
    done = cli(root)
    assert done.returncode == ExitCode.FAILED
    assert "invalid JSON" in done.stderr
    assert snapshot_tree(root) == before


def test_called_as_a_library_generate_starts_no_child(monkeypatch, tmp_path):
    monkeypatch.delenv("CFNGEN_NO_FORK", raising=False)
    monkeypatch.setattr(cfngen._process, "_owned", False)
    assert _parallel.start(os.getpid) is None


# --------------------------------------------------------------------------- the job


@needs_fork
def test_the_function_runs_in_a_child_and_its_value_comes_back(owned):
    job = _parallel.start(lambda text: (os.getpid(), text * 2), "ab")
    assert job is not None
    pid, value = job.result()
    assert pid != os.getpid()
    assert value == "abab"


@needs_fork
def test_a_large_value_comes_back_whole(owned):
    big = {"models.py": "x = 1\n" * 200_000}
    job = _parallel.start(lambda: big)
    assert job is not None
    assert job.result() == big


@needs_fork
def test_a_cfngen_error_in_the_child_is_the_same_error_here(owned):
    def fail() -> None:
        raise CfngenError("cannot model this", "simplify it", exit_code=ExitCode.INTERNAL)

    job = _parallel.start(fail)
    assert job is not None
    with pytest.raises(CfngenError) as caught:
        job.result()
    assert (caught.value.message, caught.value.hint) == ("cannot model this", "simplify it")
    assert caught.value.exit_code == ExitCode.INTERNAL


@needs_fork
def test_any_other_exception_in_the_child_is_redone_here(owned):
    parent = os.getpid()

    def only_in_a_child() -> str:
        if os.getpid() != parent:
            raise ValueError("a bug that shows only in the child")
        return "done here"

    job = _parallel.start(only_in_a_child)
    assert job is not None
    assert job.result() == "done here"


@needs_fork
def test_a_bug_raises_here_with_its_own_type(owned):
    def bug() -> None:
        raise KeyError("oops")

    job = _parallel.start(bug)
    assert job is not None
    with pytest.raises(KeyError):
        job.result()


@needs_fork
def test_a_child_that_dies_is_replaced_by_the_work_done_here(owned):
    parent = os.getpid()

    def die_in_the_child() -> str:
        if os.getpid() != parent:
            os._exit(3)
        return "done here"

    job = _parallel.start(die_in_the_child)
    assert job is not None
    assert job.result() == "done here"


@needs_fork
def test_cancel_kills_and_reaps_a_running_child(owned, tmp_path):
    pid_file = tmp_path / "pid"

    def sleep() -> None:
        pid_file.write_text(str(os.getpid()))
        time.sleep(60)

    job = _parallel.start(sleep)
    assert job is not None
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    started = time.monotonic()
    job.cancel()
    assert time.monotonic() - started < 5
    with pytest.raises(ProcessLookupError):  # not even a zombie: it was reaped
        os.kill(int(pid_file.read_text()), 0)
    job.cancel()  # twice is harmless


@needs_fork
def test_no_child_is_left_after_the_result(owned):
    job = _parallel.start(os.getpid)
    assert job is not None
    pid = job.result()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@needs_fork
def test_no_fork_when_asked_not_to(owned, monkeypatch):
    monkeypatch.setenv("CFNGEN_NO_FORK", "1")
    assert _parallel.start(os.getpid) is None


@needs_fork
def test_no_fork_while_another_thread_runs(owned):
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert _parallel.start(os.getpid) is None
    finally:
        stop.set()
        thread.join()


def test_no_fork_where_the_system_has_none(owned, monkeypatch):
    monkeypatch.delattr(os, "fork")
    assert _parallel.start(os.getpid) is None
