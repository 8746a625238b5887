"""`cfngen test --watch` (cfngen/_watch.py): every save gets a verdict on what was saved, an
error is one message and the watch goes on, inputs alone are not generated, what failed runs
first, and the session leaves no process and no temporary folder behind however it ends."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cfngen._watch import Session, sweep_dead_sessions
from tests.conftest import made_once
from tests.test_init_support import cfngen_argv, cfngen_env

HANDLERS = "src/example_ssm_parameter/handlers.py"
SCHEMA = "example-ssm-parameter.json"
READ = '    return _success(_read(client(session, "ssm"), model.Name if model else None))\n'
VERDICT = re.compile(r"^\[\d\d:\d\d:\d\d\] ")


@pytest.fixture(scope="session")
def example(tmp_path_factory) -> Path:
    return made_once(tmp_path_factory, "example", "--example")


@pytest.fixture
def project(example, tmp_path) -> Path:
    root = tmp_path / "ex"
    shutil.copytree(example, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def planted(root: Path, number: int | None) -> str:
    """handlers.py with read_handler raising `planted N` (None: as init wrote it)."""
    text = (root / HANDLERS).read_text()
    text = re.sub(r"    raise RuntimeError\('planted \d+'\)\n", READ, text)
    assert READ in text
    if number is not None:
        text = text.replace(READ, f"    raise RuntimeError('planted {number}')\n")
    return text


def save(path: Path, text: str) -> None:
    """As editors save: a new file renamed over the old one."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


class Watch:
    """`cfngen test --watch` in a process of its own, its verdicts read as they come."""

    def __init__(self, root: Path, home: Path, *args: str) -> None:
        self.process = subprocess.Popen(
            [*cfngen_argv(), "test", "--watch", *args, str(root)],
            env=cfngen_env(home),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def verdict(self, timeout: float = 60) -> list[str]:
        """The next verdict: its line and the lines under it."""
        deadline = time.monotonic() + timeout
        found: list[str] = []
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no verdict within {timeout} s: {self.seen}") from None
            self.seen.append(line)
            if VERDICT.match(line):
                found = [line]
                # The failure lines follow at once, in the same write.
                while True:
                    try:
                        more = self.lines.get(timeout=0.2)
                    except queue.Empty:
                        return found
                    self.seen.append(more)
                    if VERDICT.match(more):
                        self.lines.queue.appendleft(more)  # type: ignore[attr-defined]
                        return found
                    found.append(more)

    def descendants(self) -> set[int]:
        return descendants(self.process.pid)

    def end(self, how: signal.Signals = signal.SIGTERM) -> int:
        """Signal the session, wait for it and read what it wrote last."""
        self.process.send_signal(how)
        code = self.process.wait(timeout=30)
        self._reader.join(timeout=10)
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return code


def descendants(pid: int) -> set[int]:
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def session_folders(pid: int) -> list[Path]:
    return list(Path(tempfile.gettempdir()).glob(f"cfngen-watch-{pid}-*"))


@pytest.mark.parametrize(
    "poll,saves",
    [
        pytest.param(False, 10, id="native events-10"),
        pytest.param(True, 10, id="polling-10"),
        # 50 in a row, as the issue asks: CI runs them (the inner loop the 10s above).
        pytest.param(False, 50, id="native events-50", marks=pytest.mark.exhaustive),
        pytest.param(True, 50, id="polling-50", marks=pytest.mark.exhaustive),
    ],
)
def test_every_save_gets_a_verdict_on_what_was_saved_50_times(project, tmp_path, poll, saves):
    """Saves that flip the verdict, one after another: each verdict is the one the file as
    saved deserves, down to the number planted in it, so no run was missed or stale."""
    watch = Watch(project, tmp_path / "home", "-k", "create_read", *(["--poll"] if poll else []))
    try:
        assert "PASS 1 passed" in watch.verdict()[0]
        for number in range(1, saves + 1):
            broken = number % 2 == 1
            save(project / HANDLERS, planted(project, number if broken else None))
            found = "".join(watch.verdict())
            if broken:
                assert "FAIL 1 failed" in found, (number, found)
                assert f"planted {number}" in found, (number, found)
            else:
                assert "PASS 1 passed" in found, (number, found)
    finally:
        assert watch.end() == 0
    assert "watch ended" in "".join(watch.seen)


def changes(project: Path, *steps: tuple[str, str | None]) -> Iterator[set[Path]]:
    """Each step saves a file (None: leaves it) and reports that path as changed."""
    for relative, text in steps:
        if text is not None:
            save(project / relative, text)
        yield {project / relative}


def test_a_syntax_error_and_an_invalid_schema_are_one_message_and_the_watch_goes_on(project):
    handlers = (project / HANDLERS).read_text()
    schema = (project / SCHEMA).read_text()
    session = Session(project, {"keyword": "create_read"})
    with session.opened():
        verdicts = list(
            session.runs(
                changes(
                    project,
                    (HANDLERS, handlers.replace("def read_handler(", "def read_handler((", 1)),
                    (HANDLERS, handlers),
                    (SCHEMA, schema.replace('"typeName"', '"typeName": 5, "x"', 1)),
                    (SCHEMA, schema),
                )
            )
        )
    start, syntax, fixed, invalid, schema_fixed = verdicts
    assert start.ok and fixed.ok and schema_fixed.ok
    assert syntax.error is not None and "\n" not in syntax.error
    assert "SyntaxError" in syntax.error and "handlers.py" in syntax.error
    assert invalid.error is not None and "\n" not in invalid.error
    assert invalid.error.startswith(SCHEMA) and "nothing was generated" in invalid.error


def test_inputs_alone_are_not_generated_the_schema_is(project):
    schema = (project / SCHEMA).read_text()
    docs = project / "docs" / "README.md"
    before = docs.read_text()
    session = Session(project, {"keyword": "create_read"})
    with session.opened():
        # The schema's description changes, but only an input is said to have changed.
        save(project / SCHEMA, schema.replace('"description": "', '"description": "Planted. ', 1))
        inputs_only = session.run({"inputs/inputs_1_create.json"})
        assert inputs_only.ok and not inputs_only.generated
        assert docs.read_text() == before
        with_schema = session.run({"inputs/inputs_1_create.json", SCHEMA})
    assert with_schema.ok and with_schema.generated
    assert "Planted." in docs.read_text()


def test_the_tests_that_failed_run_first_next_time(project):
    handlers = (project / HANDLERS).read_text()
    session = Session(project, {})
    with session.opened():
        start, broken, again = session.runs(
            changes(
                project,
                (HANDLERS, handlers.replace(READ, "    raise RuntimeError('planted')\n")),
                (HANDLERS, handlers),
            )
        )
    assert start.ok and again.ok
    failed = [name for name, _message in broken.failures]
    assert failed and set(failed) < set(broken.order)
    assert again.order[: len(failed)] == failed
    assert start.order[: len(failed)] != failed


@pytest.mark.parametrize(
    ("how", "when"),
    [
        (signal.SIGTERM, "idle"),
        (signal.SIGTERM, "mid-run"),
        (signal.SIGINT, "idle"),
        (signal.SIGINT, "mid-run"),
    ],
)
def test_the_session_ends_cleanly_leaving_no_process_or_temporary_folder(
    project, tmp_path, how, when
):
    watch = Watch(project, tmp_path / "home", "-k", "create_read")
    assert "PASS" in watch.verdict()[0]
    assert session_folders(watch.process.pid)
    if when == "mid-run":
        # A read that never returns: the run is under way until the session ends.
        save(project / HANDLERS, planted(project, None).replace(READ, "    while True: pass\n"))
        deadline = time.monotonic() + 30
        while len(watch.descendants()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(watch.descendants()) >= 2, "no run started"
    children = watch.descendants()
    assert watch.end(how) == 0
    said = "".join(watch.seen)
    assert "watch ended" in said
    if when == "idle":  # the run forked ahead, waiting, ends by itself: not interrupted
        assert "Traceback" not in said and "Exception ignored" not in said, said
    assert not [pid for pid in children if alive(pid)]
    assert not session_folders(watch.process.pid)


def test_a_sigkilled_sessions_workers_die_with_it_and_the_next_removes_its_folder(
    project, tmp_path
):
    watch = Watch(project, tmp_path / "home", "-k", "create_read")
    assert "PASS" in watch.verdict()[0]
    save(project / HANDLERS, planted(project, None).replace(READ, "    while True: pass\n"))
    deadline = time.monotonic() + 30
    while len(watch.descendants()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    children = watch.descendants()
    assert len(children) >= 2, "no run started"
    watch.process.kill()
    watch.process.wait(timeout=10)
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in children if alive(pid)]
    left = session_folders(watch.process.pid)
    assert left, "SIGKILL runs no cleanup: the folder is there until the next session"
    sweep_dead_sessions()  # what the next session does first
    assert not session_folders(watch.process.pid)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--watch", "--format", "json"], "--watch prints its own verdicts"),
        (["--watch", "--fix-permissions"], "--watch never edits the schema"),
        (["--poll"], "--poll applies to --watch only"),
    ],
)
def test_options_a_watch_cannot_honour_are_a_usage_error(project, tmp_path, args, says):
    done = subprocess.run(
        [*cfngen_argv(), "test", *args, str(project)],
        env=cfngen_env(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert says in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "read",
    [
        None,
        "    raise RuntimeError('planted')\n",
        "    import os; os._exit(3)\n",
    ],
    ids=["as written", "read raises", "read ends the worker"],
)
def test_two_workers_give_the_verdicts_one_gives(project, read):
    """A watch run shares its tests between two workers (each test is a new container): the
    same results, in the same order, as one worker, permission tests and crashes included."""
    from cfngen._contract import run_contract_tests

    if read is not None:
        (project / HANDLERS).write_text(planted(project, None).replace(READ, read))
    found = {}
    for workers in (1, 2):
        result = run_contract_tests(project, workers=workers)
        found[workers] = [(t.name, t.outcome, t.message) for t in result.tests]
    assert found[2] == found[1]
    assert any(outcome == "failed" for _n, outcome, _m in found[2]) == (read is not None)


def test_a_worker_is_not_forked_while_the_other_thread_imports(project, monkeypatch):
    """Each worker's thread imports the moto modules earlier workers imported, then forks: a
    worker forked while the other thread was in the middle of such an import got the module
    half made, its import lock held by a thread it does not have, and the handler that then
    imported it waited until its time limit. Planted: a moto module whose import takes a
    second, that the read handler imports."""
    import importlib.abc
    import importlib.machinery
    import sys

    from cfngen._contract import _runner, run_contract_tests

    name = "moto.cfngen_slow_import"

    class Slow(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, fullname, path, target=None):
            return importlib.machinery.ModuleSpec(name, self) if fullname == name else None

        def create_module(self, spec):
            return None

        def exec_module(self, module):
            time.sleep(1.0)

    monkeypatch.setattr(sys, "meta_path", [Slow(), *sys.meta_path])
    monkeypatch.setattr(_runner, "_moto_modules", {name})
    monkeypatch.delitem(sys.modules, name, raising=False)
    read = f"    import {name}  # noqa: F401\n" + READ
    (project / HANDLERS).write_text(planted(project, None).replace(READ, read))
    started = time.monotonic()
    result = run_contract_tests(project, workers=2)
    failed = {t.name: t.message for t in result.tests if t.outcome == "failed"}
    assert failed == {}
    assert time.monotonic() - started < 25


@pytest.mark.parametrize(
    ("kind", "name"),
    [("custom-resource", "watch-custom-example"), ("hook", "watch-hook-example")],
)
def test_two_workers_give_other_kinds_the_verdicts_one_gives(tmp_path_factory, kind, name):
    """A custom resource's suite reports each test as it ends: with two workers, still in
    the order of its plan (a hook's suite runs its tests in one worker either way)."""
    from cfngen._contract import run_contract_tests

    made = made_once(tmp_path_factory, name, "--artifact-type", kind, "--example")
    found = {}
    for workers in (1, 2):
        result = run_contract_tests(made, workers=workers)
        found[workers] = [(t.name, t.outcome, t.message) for t in result.tests]
    assert found[2] == found[1]
    assert len(found[1]) > 5


@pytest.mark.parametrize(
    "option",
    [
        ["--upgrade-from", "HEAD"],
        ["--moto-server"],
        ["--endpoint-url", "http://127.0.0.1:1"],
        ["--keep"],
    ],
    ids=["upgrade-from", "moto-server", "endpoint-url", "keep"],
)
def test_a_watch_refuses_what_runs_once_or_elsewhere(tmp_path, option):
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "cfngen", "test", "--watch", *option, str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--watch" in done.stderr and "Traceback" not in done.stderr
