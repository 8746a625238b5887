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
from pathlib import Path

import pytest

from cfngen._errors import ExitCode
from cfngen._generate import generate_project
from tests._generate_helpers import make_project, schema_path, snapshot_tree, widget_schema

REPO = Path(__file__).resolve().parents[1]
SNAPSHOTS = REPO / "snapshots" / "generate"
CAN_FORK = hasattr(os, "fork") and len(os.sched_getaffinity(0)) >= 2
needs_fork = pytest.mark.skipif(not CAN_FORK, reason="needs fork() and two CPUs")


def cli(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    # The models rendered in each run (with the child or without), not read from the cache.
    full_env = {k: v for k, v in os.environ.items() if k != "CFNGEN_NO_FORK"}
    full_env["CFNGEN_NO_CACHE"] = "1"
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
    from tests._corpus import corpus_schema

    return make_project(root, dict(corpus_schema("AWS::AppFlow::Flow"), typeName="Acme::App::Flow"))


# --------------------------------------------------------------------------- the command


@needs_fork
@pytest.mark.parametrize(
    "case",
    [
        "awkward",
        "large",
        # The inner loop compares the two hardest; CI every snapshot case (tests/conftest.py).
        *(
            pytest.param(case, marks=pytest.mark.exhaustive)
            for case in ("initech", "loggroup", "minimal")
        ),
    ],
)
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
        "def render(*args, **kwargs):\n"
        f"    with open({str(record)!r}, 'a') as f: f.write(str(os.getpid()) + '\\n')\n"
        "    return real(*args, **kwargs)\n"
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
    schema = widget_schema()
    schema["properties"]["Config"] = {"$ref": "#/definitions/Nope"}
    schema_path(root).write_text(json.dumps(schema))
    before = snapshot_tree(root)
    done = cli(root)
    assert done.returncode == ExitCode.FAILED
    assert "/properties/Config/$ref" in done.stderr
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


# --------------------------------------------------------------------------- the job

#: Each scenario runs in a fresh interpreter that plays the `cfngen` command: a test process may
#: hold threads that other tests left, and then (rightly) nothing forks.
PRELUDE = """\
import json, os, sys, time
import cfngen._process
from cfngen._errors import CfngenError, ExitCode
from cfngen._generate import _parallel

cfngen._process.own()
parent = os.getpid()
"""


def scenario(body: str) -> object:
    env = {k: v for k, v in os.environ.items() if k != "CFNGEN_NO_FORK"}
    done = subprocess.run(
        [sys.executable, "-c", PRELUDE + body],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@needs_fork
def test_the_function_runs_in_a_child_and_its_value_comes_back():
    got = scenario(
        "job = _parallel.start(lambda text: (os.getpid(), text * 2), 'ab')\n"
        "pid, value = job.result()\n"
        "print(json.dumps([pid != parent, value]))\n"
    )
    assert got == [True, "abab"]


@needs_fork
def test_a_large_value_comes_back_whole():
    got = scenario(
        "big = {'models.py': 'x = 1\\n' * 200_000}\n"
        "job = _parallel.start(lambda: big)\n"
        "print(json.dumps(job.result() == big))\n"
    )
    assert got is True


@needs_fork
def test_a_cfngen_error_in_the_child_is_the_same_error_here():
    got = scenario(
        "def fail():\n"
        "    raise CfngenError('cannot model this', 'simplify it', exit_code=ExitCode.INTERNAL)\n"
        "job = _parallel.start(fail)\n"
        "try:\n"
        "    job.result()\n"
        "except CfngenError as error:\n"
        "    print(json.dumps([error.message, error.hint, int(error.exit_code)]))\n"
    )
    assert got == ["cannot model this", "simplify it", ExitCode.INTERNAL]


@needs_fork
def test_any_other_exception_in_the_child_is_redone_here():
    got = scenario(
        "def only_in_a_child():\n"
        "    if os.getpid() != parent:\n"
        "        raise ValueError('a bug that shows only in the child')\n"
        "    return 'done here'\n"
        "print(json.dumps(_parallel.start(only_in_a_child).result()))\n"
    )
    assert got == "done here"


@needs_fork
def test_a_bug_raises_here_with_its_own_type():
    got = scenario(
        "def bug():\n"
        "    raise KeyError('oops')\n"
        "try:\n"
        "    _parallel.start(bug).result()\n"
        "except KeyError as error:\n"
        "    print(json.dumps(str(error)))\n"
    )
    assert got == "'oops'"


@needs_fork
def test_a_child_that_dies_is_replaced_by_the_work_done_here():
    got = scenario(
        "def die_in_the_child():\n"
        "    if os.getpid() != parent:\n"
        "        os._exit(3)\n"
        "    return 'done here'\n"
        "print(json.dumps(_parallel.start(die_in_the_child).result()))\n"
    )
    assert got == "done here"


@needs_fork
def test_cancel_kills_and_reaps_a_running_child(tmp_path):
    pid_file = tmp_path / "pid"
    got = scenario(
        "def sleep():\n"
        f"    open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(60)\n"
        "job = _parallel.start(sleep)\n"
        "deadline = time.monotonic() + 30\n"
        f"while not (os.path.exists({str(pid_file)!r}) and os.path.getsize({str(pid_file)!r})):\n"
        "    assert time.monotonic() < deadline\n"
        "    time.sleep(0.01)\n"
        "started = time.monotonic()\n"
        "job.cancel()\n"
        "took = time.monotonic() - started\n"
        "job.cancel()  # twice is harmless\n"
        "try:\n"
        f"    os.kill(int(open({str(pid_file)!r}).read()), 0)\n"
        "    gone = False\n"
        "except ProcessLookupError:  # not even a zombie: it was reaped\n"
        "    gone = True\n"
        "print(json.dumps([gone, took < 5]))\n"
    )
    assert got == [True, True]


@needs_fork
def test_no_child_is_left_after_the_result():
    got = scenario(
        "pid = _parallel.start(os.getpid).result()\n"
        "try:\n"
        "    os.kill(pid, 0)\n"
        "    gone = False\n"
        "except ProcessLookupError:\n"
        "    gone = True\n"
        "print(json.dumps([pid != parent, gone]))\n"
    )
    assert got == [True, True]


@needs_fork
def test_no_fork_when_asked_not_to():
    got = scenario(
        "forked = _parallel.start(os.getpid).result() != parent\n"
        "os.environ['CFNGEN_NO_FORK'] = '1'\n"
        "print(json.dumps([forked, _parallel.start(os.getpid) is None]))\n"
    )
    assert got == [True, True]


@needs_fork
def test_no_fork_while_another_thread_runs():
    got = scenario(
        "import threading\n"
        "stop = threading.Event()\n"
        "thread = threading.Thread(target=stop.wait)\n"
        "thread.start()\n"
        "refused = _parallel.start(os.getpid) is None\n"
        "stop.set()\n"
        "thread.join()\n"
        "forked = _parallel.start(os.getpid).result() != parent\n"
        "print(json.dumps([refused, forked]))\n"
    )
    assert got == [True, True]


@needs_fork
def test_no_fork_where_the_system_has_none():
    got = scenario(
        "forked = _parallel.start(os.getpid).result() != parent\n"
        "del os.fork\n"
        "print(json.dumps([forked, _parallel.start(os.getpid) is None]))\n"
    )
    assert got == [True, True]


@needs_fork
def test_a_process_cfngen_does_not_own_never_forks():
    got = scenario(
        "cfngen._process._owned = False\n"
        "refused = _parallel.start(os.getpid) is None\n"
        "cfngen._process.own()\n"
        "print(json.dumps([refused, _parallel.start(os.getpid).result() != parent]))\n"
    )
    assert got == [True, True]


#: What generate does with its models child, with a child that never ends: prints the child's
#: pid, then waits to be killed.
KILLED_WHILE_RENDERING = """\
import os, sys, time
from cfngen import _process
from cfngen._generate import _parallel

def render_forever():
    print(os.getpid(), flush=True)
    while True:
        pass

_process.own()
job = _parallel.start(render_forever)
assert job is not None, "forking is allowed here"
time.sleep(120)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table")
def test_the_models_child_dies_with_a_killed_generate(tmp_path):
    """SIGKILL runs no `finally`: the child rendering models went on for as long as its
    render took (seconds on a large schema) after generate was gone."""
    import signal
    import time

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    env.pop("CFNGEN_NO_FORK", None)
    process = subprocess.Popen(
        [sys.executable, "-c", KILLED_WHILE_RENDERING], stdout=subprocess.PIPE, text=True, env=env
    )
    child = int(process.stdout.readline())
    try:
        process.kill()
        process.wait()
        deadline = time.monotonic() + 2
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child), "the models child still runs 2 s after generate was killed"
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
