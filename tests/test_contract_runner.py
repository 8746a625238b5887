"""cfngen/_contract's runner, protocol-free: the worker process and the re-invocation loop,
driven by plain functions standing in for handlers."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from cfngen._contract._call import Invocation
from cfngen._contract._isolate import ChildExit, isolated
from cfngen._contract._loop import Policy, carry
from cfngen._errors import CfngenError, ExitCode

# --------------------------------------------------------------------------- the worker


def test_the_result_and_the_messages_come_back_in_order():
    seen: list[Any] = []

    def work(send):
        send("one")
        send({"two": 2})
        return os.getpid()

    child = isolated(work, seen.append)
    assert seen == ["one", {"two": 2}]
    assert child != os.getpid()


def test_the_worker_starts_with_this_processs_objects_frozen_and_this_process_does_not():
    """The worker's garbage collections skip what it inherited (else they write into, and so
    copy, nearly every page of the parent); the parent collects as before."""
    import gc

    assert gc.get_freeze_count() == 0
    inherited = isolated(lambda _send: gc.get_freeze_count(), lambda _m: None)
    assert inherited > 1000
    assert gc.get_freeze_count() == 0


def test_a_fork_that_fails_leaves_this_process_collecting_as_before(monkeypatch):
    import gc

    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    with pytest.raises(BlockingIOError):
        isolated(lambda _send: None, lambda _m: None)
    assert gc.get_freeze_count() == 0


def test_an_error_raised_in_the_worker_is_raised_here_with_its_message_and_hint():
    def work(send):
        raise CfngenError("bad input", "fix it", exit_code=ExitCode.FAILED)

    with pytest.raises(CfngenError, match="bad input") as caught:
        isolated(work, lambda _m: None)
    assert (caught.value.hint, caught.value.exit_code) == ("fix it", ExitCode.FAILED)


@pytest.mark.parametrize(
    ("end", "how"),
    [
        (lambda: os._exit(3), "the handler process exited with status 3"),
        (lambda: os.kill(os.getpid(), signal.SIGKILL), "the handler process was killed by SIGKILL"),
    ],
)
def test_a_worker_that_dies_is_a_child_exit_saying_how(end, how):
    seen: list[Any] = []

    def work(send):
        send("before")
        end()
        return "never"

    with pytest.raises(ChildExit) as caught:
        isolated(work, seen.append)
    assert caught.value.how == how
    assert seen == ["before"]


# --------------------------------------------------------------------------- the loop


class Exchange:
    label = "CREATE"
    limit = 60.0
    waits = True

    def __init__(self, timeout_minutes: float | None = 60) -> None:
        self.timeout_minutes = timeout_minutes
        self.contexts: list[Any] = []

    def event(self, number: int, callback_context: Mapping[str, Any] | None) -> dict[str, Any]:
        self.contexts.append(callback_context)
        return {"number": number}

    def answer(self, invocation: Invocation, returned: Any) -> dict[str, Any] | None:
        return invocation.response

    def advance(self, response: Mapping[str, Any]) -> None:
        pass


def handler(answers: list[dict[str, Any]], seen: list[tuple[float, int]]):
    """A stand-in answering `answers` in turn, noting (wall clock, remaining ms) per call."""

    def call(event, number, context):
        seen.append((time.time(), context.get_remaining_time_in_millis()))
        response = answers[min(number, len(answers)) - 1]
        return Invocation("CREATE", number, event, dict(response), 0.0, 60.0), None

    return call


WAIT = {"status": "IN_PROGRESS", "callbackDelaySeconds": 600, "callbackContext": {"n": 1}}


def test_simulated_waits_move_the_handlers_clock_without_sleeping():
    seen: list[tuple[float, int]] = []
    exchange = Exchange()
    started = time.perf_counter()
    outcome = carry(
        exchange,
        call=handler([WAIT, WAIT, {"status": "SUCCESS"}], seen),
        status_key="status",
        in_progress="IN_PROGRESS",
        policy=Policy(simulated=True, sleep=lambda _s: pytest.fail("slept")),
    )
    assert outcome.status == "SUCCESS" and len(outcome.invocations) == 3
    assert time.perf_counter() - started < 5
    assert seen[2][0] - seen[0][0] >= 1200  # two 10-minute waits
    assert all(55_000 < remaining <= 60_000 for _, remaining in seen)
    assert exchange.contexts == [None, {"n": 1}, {"n": 1}]


def test_real_waits_are_slept_up_to_max_delay():
    slept: list[float] = []
    outcome = carry(
        Exchange(),
        call=handler([WAIT, {"status": "SUCCESS"}], []),
        status_key="status",
        in_progress="IN_PROGRESS",
        policy=Policy(simulated=False, max_delay=0.25, sleep=slept.append),
    )
    assert outcome.status == "SUCCESS" and slept == [0.25]


def test_waits_past_the_timeout_stop_the_loop_on_the_timeout_rule():
    outcome = carry(
        Exchange(timeout_minutes=25),
        call=handler([WAIT], []),
        status_key="status",
        in_progress="IN_PROGRESS",
        policy=Policy(simulated=True),
    )
    # 600 s waits: the third answer asks for a wait that ends past 25 minutes.
    assert len(outcome.invocations) == 3 and outcome.past_timeout and not outcome.endless
    assert "past its timeoutInMinutes (25)" in (outcome.guard or "")


def test_a_real_wait_is_announced_before_it_is_slept():
    happened: list[str] = []
    carry(
        Exchange(),
        call=handler([WAIT, {"status": "SUCCESS"}], []),
        status_key="status",
        in_progress="IN_PROGRESS",
        policy=Policy(
            simulated=False, max_delay=0.5, sleep=lambda s: happened.append(f"slept {s:g}")
        ),
        on_wait=lambda real, asked, simulated: happened.append(f"wait {real:g} of {asked:g}"),
    )
    assert happened == ["wait 0.5 of 600", "slept 0.5"]


# --------------------------------------------------------------------------- a third protocol


class PlainFunction:
    """A protocol of a plain `handler(event, context)` (as a custom resource's function is):
    answers carry `Status`, and nothing is re-invoked."""

    label = "function"
    options: tuple[str, ...] = ()
    status_key = "Status"
    in_progress: str | None = None
    statuses = frozenset({"SUCCESS", "FAILED"})
    error_codes: frozenset[str] = frozenset()
    session_module: str | None = None

    def adapt(self, entrypoint: Any) -> None:
        pass

    def invoke(self, runner, action, request_file, listener, **options):  # pragma: no cover
        raise NotImplementedError

    def run_tests(self, runner, listener, **options):  # pragma: no cover
        raise NotImplementedError


def test_a_plain_function_found_elsewhere_runs_under_a_protocol_of_its_own(tmp_path):
    from cfngen._contract import ContractProtocol, Settings
    from cfngen._contract._entrypoint import Source
    from cfngen._contract._runner import Runner
    from cfngen._project import load_project

    code = tmp_path / "function"
    code.mkdir()
    (code / "cfngen_plain_fn.py").write_text(
        "def handler(event, context):\n"
        "    remaining = context.get_remaining_time_in_millis()\n"
        "    return {'Status': 'SUCCESS', 'Data': {'Echo': event['RequestType'], "
        "'Remaining': remaining}}\n"
    )
    project = load_project(Path(__file__).parent / "fixtures" / "contract" / "store")
    protocol: ContractProtocol = PlainFunction()
    runner = Runner(project, protocol, Settings())

    class Request(Exchange):
        label = "Create"
        limit = 5.0

        def event(self, number, callback_context):
            return {"RequestType": "Create"}

    with runner.open(Source(code, "cfngen_plain_fn.handler")):
        outcome = runner.isolated(lambda: runner.carry(Request(), handler="Create"))
    assert outcome.status == "SUCCESS" and len(outcome.invocations) == 1
    data = outcome.response["Data"]
    assert data["Echo"] == "Create" and 4_000 < data["Remaining"] <= 5_000


# --------------------------------------------------------------------------- the sandbox


def test_fresh_aws_forgets_what_moto_holds_and_boto3s_default_session(tmp_path):
    """Between two tests (in one worker): nothing a handler made is left, in any service or
    region, and boto3 builds its default session again, as in a new Lambda container."""
    import boto3

    from cfngen._contract._sandbox import Sandbox

    with Sandbox(tmp_path) as sandbox:
        boto3.client("ssm").put_parameter(Name="left", Value="over", Type="String")
        boto3.client("sqs", region_name="eu-west-1").create_queue(QueueName="left")
        boto3.setup_default_session()
        sandbox.fresh_aws()
        assert boto3.DEFAULT_SESSION is None
        assert boto3.client("ssm").describe_parameters()["Parameters"] == []
        assert "QueueUrls" not in boto3.client("sqs", region_name="eu-west-1").list_queues()
        # And moto still serves every call afterwards.
        boto3.client("ssm").put_parameter(Name="again", Value="v", Type="String")
        assert boto3.client("ssm").get_parameter(Name="again")["Parameter"]["Value"] == "v"


# --------------------------------------------------------------------------- dies with its parent

#: What the handler does first: says it started, then spins forever (one line for the custom
#: resources, whose makers join the lines with "; ").
SPIN = "open({marker!r}, 'w').close()\nany(False for _ in iter(int, 1))"

#: The commands that run handlers in workers of their own: cfngen test, cfngen invoke and
#: the pytest plugin (argv, given the project and the kind's `cfngen invoke` arguments).
COMMANDS = {
    "test": lambda root, invoke: [sys.executable, "-m", "cfngen", "test"],
    "invoke": lambda root, invoke: [sys.executable, "-m", "cfngen", *invoke(root)],
    "pytest": lambda root, invoke: [
        sys.executable, "-m", "pytest", "--cfngen", "-p", "no:cacheprovider", "-q",
    ],
}  # fmt: skip


def _processes() -> dict[int, tuple[int, str]]:
    """Every process of this machine: pid -> (parent pid, state)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # it ended meanwhile
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        found[int(entry.name)] = (int(ppid), state)
    return found


def _descendants(top: int) -> set[int]:
    processes = _processes()
    found: set[int] = set()
    todo = [top]
    while todo:
        parent = todo.pop()
        children = {pid for pid, (ppid, _) in processes.items() if ppid == parent}
        found |= children
        todo.extend(children)
    return found


def _running(pids: set[int]) -> set[int]:
    """The ones still running (a zombie has ended: only its exit status is left)."""
    processes = _processes()
    return {pid for pid in pids if pid in processes and processes[pid][1] != "Z"}


def _cases():
    from tests.test_network import KINDS

    inner = {("resource", "test"), ("resource", "invoke"), ("resource", "pytest")}
    inner |= {("crhelper", "invoke")}
    return [
        pytest.param(
            kind, command, id=f"{kind}-{command}", marks=() if (kind, command) in inner else (
                pytest.mark.exhaustive
            ),
        )
        for kind in KINDS
        for command in COMMANDS
    ]  # fmt: skip


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table")
@pytest.mark.parametrize(("kind", "command"), _cases())
def test_no_process_cfngen_started_outlives_it_when_it_is_killed(tmp_path, kind, command):
    """SIGKILL runs no cleanup: the worker running a spinning handler went on using a core
    until its own deadline (a minute and more). It must die with cfngen, at once."""
    from tests.test_network import KINDS

    make, invoke = KINDS[kind]
    started = tmp_path / "spinning"
    root = make(tmp_path / "project", SPIN.format(marker=str(started)))
    template = root / "template.yaml"
    if template.is_file():  # a custom resource: a deadline of its own far away
        template.write_text(template.read_text().replace("Timeout: 3\n", "Timeout: 900\n"))
    process = subprocess.Popen(
        COMMANDS[command](root, invoke),
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    tree: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while not started.exists():
            assert process.poll() is None, process.communicate()[1][-3000:]
            assert time.monotonic() < deadline, "the handler never started"
            time.sleep(0.02)
        tree = _descendants(process.pid)
        assert tree, "the handler runs in a worker process"
        process.kill()
        process.wait()
        deadline = time.monotonic() + 2
        while _running(tree) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(tree), f"still running 2 s after cfngen was killed: {tree}"
    finally:
        process.kill()
        process.wait()
        for pid in _running(tree):  # do not leave a spinning process behind a failure
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


#: A process that forks one spinning child through cfngen._lifetime, prints its pid, and waits
#: to be killed; argv[1] says how: "kernel" (from the main thread), "pipe" (without prctl, as
#: on macOS) or "thread" (from a thread that then ends, while the process lives on).
FORKS_A_SPINNER = """\
import sys, threading, time
from cfngen import _lifetime

if sys.argv[1] == "pipe":
    _lifetime._prctl = lambda: None

def start():
    pid = _lifetime.fork()
    if pid == 0:
        while True:
            pass
    print(pid, flush=True)

if sys.argv[1] == "thread":
    thread = threading.Thread(target=start)
    thread.start()
    thread.join()
else:
    start()
time.sleep(600)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table")
@pytest.mark.parametrize("how", ["kernel", "pipe", "thread"])
def test_a_child_forked_through_lifetime_dies_with_its_parent_and_not_before(tmp_path, how):
    script = tmp_path / "forks.py"
    script.write_text(FORKS_A_SPINNER)
    parent = subprocess.Popen(
        [sys.executable, str(script), how],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )
    child = 0
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        time.sleep(0.5)  # the forking thread has ended ("thread"): the child lives on
        assert _running({child}) == {child}
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 2
        while _running({child}) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not _running({child})
    finally:
        parent.kill()
        parent.wait()
        if child and _running({child}):
            os.kill(child, signal.SIGKILL)
