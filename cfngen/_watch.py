"""`cfngen test --watch`: a verdict on every save, from a process that stays warm.

A cold `cfngen test` spends most of its CPU starting: the interpreter, cfngen, moto, botocore
and the runtime library imported, the handlers' services loaded into moto. A watch session
pays that once. It is a long-lived parent that never runs the project's code: on each save it
regenerates what is derived (in this process, as `cfngen generate` does, all or nothing),
then runs the tests in a child forked from it (cfngen/_contract/_isolate.py), which opens the
sandbox, imports the handler package afresh from disk and forks two workers that share the tests
(each test is a new container either way). So no run
sees another's modules, moto accounts or environment, and none can run stale code: the child
imports what is on disk when it starts, and a save during a run starts another. Once a verdict
is out, this process loads what the run loaded that any run will load again, never the
project's own code (cfngen/_watch_warm.py): the library modules it imported (moto's backends
of the services the handlers call, their third-party dependencies), the botocore models of
those services, and, where Python writes no bytecode cache, the project's sources compiled
(not run), so the next child starts with them.

Files come from watchfiles' native events, or from polling (cfngen/_watch_files.py). Events
on files whose bytes did not change (a touch, generate rewriting what it wrote) start nothing.

Everything the runs write to the temporary folder goes to one folder of the session, removed
when it ends; one left by a session killed with SIGKILL is removed by the next session.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen._contract._isolate import can_fork
from cfngen._errors import CfngenError
from cfngen._files import sha256
from cfngen._watch_files import batches, watched_files
from cfngen._watch_standby import Stale, Standby
from cfngen._watch_warm import library_modules, warm

_TEMP_PREFIX = "cfngen-watch-"
#: Worker processes a run's tests share: each test is a new container, so they are
#: independent, and two CPUs give a verdict in about half the time.
WORKERS = min(2, os.cpu_count() or 1)
#: How long a run gets to clean up after the session is told to end, before SIGKILL.
GRACE_SECONDS = 5.0


@dataclass
class Verdict:
    """What one run found."""

    #: Files whose bytes changed since the run before (relative to the project), sorted.
    changed: list[str]
    generated: bool = False
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    #: The failed tests' names, in the order they ran, and each one's message.
    failures: list[tuple[str, str]] = field(default_factory=list)
    #: Every test's name, in the order they ran (the ones that failed last time first).
    order: list[str] = field(default_factory=list)
    #: Notes the suite gave (stale models, installed requirements).
    notes: list[str] = field(default_factory=list)
    #: The one message when the tests could not run (a syntax error, an invalid schema).
    error: str | None = None
    hint: str | None = None
    seconds: float = 0.0
    #: The run was the one forked before the save (cfngen/_watch_standby.py).
    ahead: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None and self.failed == 0


#: What a test run's child reports: its verdict, and the library modules it imported.
Ran = tuple[Verdict, list[str]]


class Session:
    """One project watched: `runs()` yields a Verdict for the start and for every save."""

    def __init__(
        self,
        root: Path,
        options: dict[str, Any],
        *,
        poll: bool = False,
        generate: bool = True,
    ) -> None:
        self.root = root.resolve()
        self.options = options
        self.poll = poll
        self.generate = generate
        self._failing: list[str] = []
        self._hashes: dict[str, str] = {}
        self._tmp: str | None = None
        #: The library modules the last run imported, for `_warm`.
        self._imported: list[str] = []
        #: The next run, forked ahead and waiting for the save (cfngen/_watch_standby.py).
        self._standby: Standby[Ran] | None = None
        #: Whether to fork runs ahead (not once one could not have gone on at any save).
        self._ahead = True

    # ------------------------------------------------------------------ the session

    @contextlib.contextmanager
    def opened(self) -> Iterator[Session]:
        """The session's temporary folder (and those of dead sessions removed), for the
        length of the block."""
        sweep_dead_sessions()
        self._tmp = tempfile.mkdtemp(prefix=f"{_TEMP_PREFIX}{os.getpid()}-")
        try:
            yield self
        finally:
            if self._standby is not None:
                self._standby.discard()
                self._standby = None
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def runs(self, changes: Iterable[set[Path]] | None = None) -> Iterator[Verdict]:
        """A verdict now, then one for each batch of `changes` that changed a file's bytes
        (the file watcher's, by default); stops when `changes` ends."""
        self._hashes = self._snapshot()
        # Warmed before its verdict: the file watcher starts after it, and a save made
        # meanwhile would be missed. After the others it runs, and sees any save made during
        # the warming.
        first = self.run(set(self._hashes), first_run=True)
        self._warm()
        yield first
        for batch in self.watch() if changes is None else changes:
            changed = self._changed(batch)
            if changed:
                yield self.run(changed)
                self._warm()

    def watch(self) -> Iterator[set[Path]]:
        """Batches of paths that saw events (cfngen/_watch_files.py)."""
        return batches(self.root, poll=self.poll)

    def _files(self) -> Iterator[Path]:
        return watched_files(self.root)

    # ------------------------------------------------------------------ one run

    def run(self, changed: set[str], *, first_run: bool = False) -> Verdict:
        started = time.perf_counter()
        verdict = Verdict(sorted(changed))
        only_inputs = not first_run and all(_is_input(path) for path in changed)
        # The run forked ahead goes on only when every changed file was edited in place (none
        # came or went), and from now: its verdict is dropped if generate, meanwhile, derives
        # anything (cfngen/_watch_standby.py).
        standby, self._standby = self._standby, None
        if standby is not None and self._came_or_went(changed):
            standby.discard()
            standby = None
        elif standby is not None:
            standby.send(changed)
        try:
            try:
                if self.generate and not only_inputs:
                    verdict.generated = self._generate()
            finally:
                # What generate wrote is not a change of the user's; a save during the run
                # differs from these, and gets a run of its own.
                self._hashes = self._snapshot()
            if verdict.generated and standby is not None:
                standby.discard()
                standby = None
            self._test(verdict, standby)
            standby = None
        except CfngenError as error:
            verdict.error, verdict.hint = _one_message(error), error.hint
        except Exception as error:  # a bug of cfngen's must not end the session: say it, go on
            verdict.error = f"internal error: {type(error).__name__}: {error}"
            verdict.hint = "please report it; the watch goes on"
        finally:
            if standby is not None:  # something above raised: its verdict is not wanted
                standby.discard()
        verdict.seconds = time.perf_counter() - started
        return verdict

    def _generate(self) -> bool:
        """generate, in this process (cfngen's own code only): whether it wrote anything (it
        reads the handlers too, for the runtime library's old modules they import)."""
        from cfngen._generate import generate_project

        done = generate_project(self.root)
        return bool(done.written or done.removed)

    def _test(self, verdict: Verdict, standby: Standby[Ran] | None) -> None:
        from cfngen._contract._isolate import ChildExit, isolated

        ignore: Callable[[Any], None] = lambda _message: None  # noqa: E731
        try:
            ran: Ran | Stale = Stale("no run was forked ahead")
            if standby is not None:
                ran = standby.result(ignore)
                if isinstance(ran, Stale) and ran.recurs:
                    self._ahead = False  # it would be so every time: fork after the save
            verdict.ahead = not isinstance(ran, Stale)
            if isinstance(ran, Stale):
                work = self._work()
                ran = isolated(lambda _send: work(), ignore, graceful=GRACE_SECONDS)
        except ChildExit as exc:
            raise CfngenError(f"the test run ended: {exc.how}") from None
        done, imported = ran
        verdict.passed, verdict.failed, verdict.skipped = done.passed, done.failed, done.skipped
        verdict.failures, verdict.notes, verdict.order = done.failures, done.notes, done.order
        self._failing = [name for name, _message in done.failures]
        self._imported = imported

    def _work(self) -> Callable[[], Ran]:
        """A test run, for a child process: what it found, and the library modules it
        imported."""
        first, tmp, root, options = list(self._failing), self._tmp, self.root, self.options

        def work() -> Ran:
            from cfngen._contract import _runner, run_contract_tests

            if tmp is not None:  # whatever the run writes there goes when the session ends
                tempfile.tempdir = tmp
                os.environ["TMPDIR"] = tmp
            before = set(sys.modules)
            result = run_contract_tests(root, first=first, workers=WORKERS, **options)
            verdict = Verdict([])
            for test in result.tests:
                if test.outcome == "failed":
                    verdict.failures.append((test.name, test.message or ""))
            verdict.passed = result.count("passed")
            verdict.failed = result.count("failed")
            verdict.skipped = result.count("skipped")
            verdict.notes = list(result.notes)
            verdict.order = [test.name for test in result.tests]
            # The run's own imports, and the moto modules its workers imported (_runner.py).
            imported = library_modules(set(sys.modules) - before, root)
            return verdict, sorted({*imported, *_runner.moto_modules()})

        return work

    def _came_or_went(self, changed: set[str]) -> bool:
        return any(p not in self._hashes or not (self.root / p).exists() for p in changed)

    def _fork_ahead(self) -> None:
        """The next run, forked now and held before the handlers are imported."""
        if self._ahead and can_fork() and self._standby is None:
            self._standby = Standby(self._work(), self.root, graceful=GRACE_SECONDS)
            if self.generate:
                # The fork shares this process's memory with it: the next save's generate
                # would copy each page it writes (a page fault each). A check now, which
                # writes no file, copies most of them while nothing waits.
                from cfngen._generate import generate_project

                with contextlib.suppress(Exception):
                    generate_project(self.root, check=True)

    def _warm(self) -> None:
        """After a verdict is out: import what the run imported, and compile the project's
        sources (where Python writes no bytecode cache), for the next run's child."""
        imported, self._imported = self._imported, []
        warm(imported)
        if sys.dont_write_bytecode:
            from cfngen._contract._compiled import compile_ahead

            compile_ahead([path for path in self._files() if path.suffix == ".py"])
        self._fork_ahead()

    # ------------------------------------------------------------------ what changed

    def _snapshot(self) -> dict[str, str]:
        """Every watched file's digest, by path relative to the project."""
        digests: dict[str, str] = {}
        for path in self._files():
            with contextlib.suppress(OSError):
                relative = path.relative_to(self.root).as_posix()
                digests[relative] = sha256(path.read_bytes())
        return digests

    def _changed(self, paths: set[Path]) -> set[str]:
        """The paths among `paths` whose bytes differ from the last run's (or that came or
        went since)."""
        changed = set()
        for path in paths:
            try:
                relative = path.resolve().relative_to(self.root).as_posix()
            except (ValueError, OSError):
                continue
            try:
                digest: str | None = sha256(path.read_bytes())
            except OSError:
                digest = None
            if digest != self._hashes.get(relative):
                changed.add(relative)
        return changed


def _is_input(relative: str) -> bool:
    return relative.startswith("inputs/")


def _one_message(error: CfngenError) -> str:
    """The error as one message: an invalid schema's first error, else its own words."""
    report = getattr(error, "report", None)
    errors = [d for d in getattr(report, "diagnostics", None) or [] if d.severity == "error"]
    if report is None or not errors:
        # Its first line: a handler's syntax error says where; the frames under it add nothing.
        lines = error.message.strip().splitlines()
        return lines[0] if lines else str(error)
    first = errors[0]
    line = f":{first.line}" if first.line else ""
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{report.path}{line}: {first.message}{more}; nothing was generated"


def sweep_dead_sessions() -> None:
    """Remove the temporary folders of watch sessions whose process is gone (SIGKILL runs no
    `finally`)."""
    base = Path(tempfile.gettempdir())
    for folder in base.glob(f"{_TEMP_PREFIX}*"):
        pid_text = folder.name[len(_TEMP_PREFIX) :].split("-", 1)[0]
        if not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
