"""The runner a protocol drives: one project's handlers, the user's settings, isolation.

`Runner(project, protocol, settings)` is handed to the kind's `invoke` / `run_tests`, which
read their inputs first (usage errors come before anything is imported), then `open()` it: the
sandbox (credentials, moto, output capture) and the imported entrypoint. Inside, `isolated`
runs a unit of work in a child process (_isolate.py) and `carry` drives one action's calls
(_loop.py).
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from cfngen._contract._call import Invocation
from cfngen._contract._calls import RECORDER, Call, attributed
from cfngen._contract._entrypoint import Entrypoint, HandlerProject, Source, handlers_folder
from cfngen._contract._isolate import (
    ChildExit,
    CollectionsPaused,
    Handout,
    Send,
    can_fork,
    import_between_forks,
    isolated,
)
from cfngen._contract._loop import Exchange, Outcome, Policy, carry, entrypoint_call
from cfngen._contract._process_entrypoint import ProcessEntrypoint, out_of_process
from cfngen._contract._responses import Responses
from cfngen._contract._sandbox import Sandbox
from cfngen._contract._settings import Settings
from cfngen._contract._stub_markers import Stub
from cfngen._contract._target import Target
from cfngen._simulated_time import CallbackClock

T = TypeVar("T")
#: The project whose handlers run: a kind's protocol gets back the project it was given
#: (`Runner[Project]`), while the runner itself only uses what `HandlerProject` names.
P = TypeVar("P", bound=HandlerProject)

#: moto's service backends that worker processes of this process imported. moto imports a
#: service's backend at the first call to it, in the worker, so each new worker (one per run,
#: one per `pytest --cfngen` item, one after a handler crashed) paid for it again: about 0.7 s
#: for SSM, which brings EC2's AMI tables. The next worker is forked with them imported.
_MOTO_PREFIX = "moto."
_moto_modules: set[str] = set()


class Runner(Generic[P]):
    """Handlers of one project, run for one protocol with one set of settings."""

    def __init__(self, project: P, protocol: Responses, settings: Settings) -> None:
        self.project = project
        self.protocol = protocol
        self.settings = settings
        self._sandbox: Sandbox | None = None
        self._entrypoint: Entrypoint | None = None
        self._send: Send | None = None
        #: The call each worker is making (its driving thread's `calling`), named if it dies.
        self._calls_made = threading.local()
        #: The simulated (or real) clock of the process that runs handlers, and that process.
        self._clock: tuple[int, CallbackClock] | None = None
        #: The AWS calls the handlers made in the units run so far, from every worker.
        self.calls: list[Call] = []
        #: The actions they ran (a handler may run and call nothing).
        self.ran: set[str] = set()
        #: Told where the handlers' AWS calls go once the sandbox is open (_target.py).
        self.on_target: Callable[[Target], None] | None = None

    # ------------------------------------------------------------------ lifecycle

    @contextlib.contextmanager
    def open(self, source: Source | None = None) -> Iterator[Runner[P]]:
        """The sandbox and the imported entrypoint, for the length of the block: the one
        `.rpdk-config` names, or `source` (a custom resource's function)."""
        directory = handlers_folder(self.project) if source is None else source.directory
        paused = CollectionsPaused()
        with (
            paused,
            Sandbox(
                directory.resolve(),
                region=self.settings.region,
                profile=self.settings.profile,
                role_arn=self.settings.role_arn,
                session_module=self.protocol.session_module,
                allow_network=self.settings.allow_network,
                seeds=self.settings.seeds,
                endpoint_url=self.settings.endpoint_url,
                moto_server=self.settings.moto_server,
                reset=self.settings.setup is None,
            ) as sandbox,
        ):
            self._sandbox = sandbox
            language = out_of_process(self.project) if source is None else None
            if language is not None:  # its clock is its own: time is real (_process_entrypoint)
                sandbox.simulated_time = False
            if self.on_target is not None:
                self.on_target(sandbox.target)
            try:
                if language is not None:
                    self._entrypoint = ProcessEntrypoint(self.project, language, sandbox)
                else:
                    self._entrypoint = Entrypoint(self.project, self.protocol.adapt, source)
                paused.resume()
                yield self
            finally:
                if self._clock is not None and self._clock[0] == os.getpid():
                    self._clock[1].__exit__(None, None, None)
                self._clock = None
                if self._entrypoint is not None:
                    self._entrypoint.close()
                self._sandbox = self._entrypoint = None

    @property
    def sandbox(self) -> Sandbox:
        if self._sandbox is None:
            raise RuntimeError("the runner is not open")
        return self._sandbox

    @property
    def entrypoint(self) -> Entrypoint:
        if self._entrypoint is None:
            raise RuntimeError("the runner is not open")
        return self._entrypoint

    @property
    def stubs(self) -> dict[str, Stub]:
        return self.entrypoint.stubs

    # ------------------------------------------------------------------ running

    def isolated(self, work: Callable[[], T], on_message: Send | None = None) -> T:
        """`work()` in a child process (see `each`); `self.send(message)` inside it reaches
        `on_message` here. Raises ChildExit, naming the call that was running, when a handler
        ended the process."""
        found: list[T | ChildExit] = []
        self.each([work], lambda _index, result: found.append(result), on_message=on_message)
        (result,) = found
        if isinstance(result, ChildExit):
            raise result
        return result

    def each(
        self,
        units: Sequence[Callable[[], T]],
        on_done: Callable[[int, T | ChildExit], None],
        *,
        fresh: bool = True,
        on_message: Send | None = None,
    ) -> None:
        """Run `units` in order in a worker process; `on_done(index, result)` here after each.

        The worker is a fork of this process, made when the handlers were imported and never
        called. With `fresh`, every unit after the worker's first starts from an empty moto
        account and the handler module imported again, as in a new Lambda container. When a
        handler ends the worker (`os._exit`, a crash in native code), the unit that was running
        gets a ChildExit and a new worker carries on with the next. Exceptions a unit raises
        (CfngenError) end the run and are raised here.
        """
        workers = min(self.settings.workers, len(units))
        if workers > 1 and fresh and can_fork() and len(units) <= Handout.LIMIT:
            self._each_at_once(units, on_done, workers, on_message)
            return
        start: int | None = 0
        while start is not None and start < len(units):
            take = functools.partial(next, iter(range(start, len(units))), None)
            start = self._worker(units, take, on_done, fresh=fresh, on_message=on_message)

    def _each_at_once(
        self,
        units: Sequence[Callable[[], T]],
        on_done: Callable[[int, T | ChildExit], None],
        workers: int,
        on_message: Send | None,
    ) -> None:
        """`each` in `workers` worker processes at once, each taking the next unit when it is
        done with one (so none waits while another has several left), each driven by a thread
        here; `on_done` and `on_message` are called one at a time, and `on_done` in the units'
        order, as `each` calls it with one worker."""
        lock = threading.Lock()
        failed: list[BaseException] = []
        finished: dict[int, T | ChildExit] = {}
        handed = 0

        def hand_on(index: int, result: T | ChildExit) -> None:
            nonlocal handed
            with lock:
                finished[index] = result
                while handed in finished:
                    on_done(handed, finished.pop(handed))
                    handed += 1

        def message(value: Any) -> None:
            if on_message is not None:
                with lock:
                    on_message(value)

        def share() -> None:
            try:  # a worker that died in a unit is followed by another, taking the next
                while not failed and self._worker(
                    units, handout.take, hand_on, fresh=True, on_message=message
                ):
                    pass
            except BaseException as exc:  # raised in the calling thread below
                failed.append(exc)

        threads = [threading.Thread(target=share, daemon=True) for _ in range(workers)]
        with Handout(len(units)) as handout, warnings.catch_warnings():
            # Python 3.12+ warns of fork() in a process with threads; ours fork and wait only.
            warnings.filterwarnings("ignore", ".*fork", DeprecationWarning)
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        if failed:
            raise failed[0]

    def _worker(
        self,
        units: Sequence[Callable[[], T]],
        take: Callable[[], int | None],
        on_done: Callable[[int, T | ChildExit], None],
        *,
        fresh: bool,
        on_message: Send | None,
    ) -> int | None:
        """One worker process running the units `take()` gives it until it gives None: None
        when it ran them, else the unit to carry on with after the worker ended in one."""
        running: list[int] = []
        if self.sandbox.offline:
            _import_moto_modules()
        before = frozenset(sys.modules)

        def work(send: Send) -> None:
            self._send = send
            first = True
            while (index := take()) is not None:
                if fresh and not first:
                    self.sandbox.fresh_aws()
                    self.entrypoint.reload()
                first = False
                send(_Started(index))
                RECORDER.drain()
                result = units[index]()
                imported = [m for m in sys.modules if m.startswith(_MOTO_PREFIX)]
                done = _Done(index, result, dict(self.entrypoint.hung), set(imported) - before)
                done.calls, done.ran = RECORDER.drain()
                send(done)

        def received(message: Any) -> None:
            if isinstance(message, _Started):
                running[:] = [message.index]
                self._calls_made.calling = None
            elif isinstance(message, _Done):
                running.clear()
                self.entrypoint.hung.update(message.hung)
                _moto_modules.update(message.moto_modules)
                self.calls.extend(message.calls)
                self.ran.update(message.ran)
                on_done(message.index, message.result)
            elif isinstance(message, _Calling):
                self._calls_made.calling = (message.label, message.number)
            elif on_message is not None:
                on_message(message)

        try:
            isolated(work, received)
            return None
        except ChildExit as exc:
            if not running:
                raise
            how = exc.how
            calling = getattr(self._calls_made, "calling", None)
            if calling is not None:
                how += f" during {calling[0]} #{calling[1]}"
            on_done(running[0], ChildExit(how))
            return running[0] + 1
        finally:
            self._send = None

    def send(self, message: Any) -> None:
        """Report `message` to the parent's `on_message` (inside `isolated` work)."""
        if self._send is not None:
            self._send(message)

    def policy(self, *, max_delay: float | None = None) -> Policy:
        settings = self.settings
        return Policy(
            max_reinvoke=settings.max_reinvoke,
            max_invocations=settings.max_invocations,
            max_delay=settings.max_delay if max_delay is None else max_delay,
            simulated=self.sandbox.simulated_time,
        )

    def clock(self) -> CallbackClock:
        """The clock of every action this process runs: started at its first action, it only
        moves on (by callbackDelaySeconds, offline) until the process ends. A worker process
        starts its own."""
        if self._clock is None or self._clock[0] != os.getpid():
            clock = CallbackClock(
                simulated=self.sandbox.simulated_time, max_delay=self.settings.max_delay
            )
            self._clock = (os.getpid(), clock.__enter__())
        return self._clock[1]

    def carry(
        self,
        exchange: Exchange,
        *,
        handler: str,
        max_delay: float | None = None,
        on_invocation: Callable[[Invocation], None] | None = None,
        on_wait: Callable[[float, float, bool], None] | None = None,
    ) -> Outcome:
        """One action carried to its end (see _loop.carry); `handler` names the handler
        function its calls go to."""

        def calling(label: str, number: int) -> None:
            if self._send is not None:
                self._send(_Calling(label, number))

        status_key = self.protocol.status_key
        # Its handlers' AWS calls are this action's (_calls.py), the re-invocations' too.
        with attributed(handler):
            return carry(
                exchange,
                call=entrypoint_call(
                    self.entrypoint,
                    label=exchange.label,
                    handler=handler,
                    limit=exchange.limit,
                    status_key=status_key,
                ),
                status_key=status_key,
                in_progress=self.protocol.in_progress,
                policy=self.policy(max_delay=max_delay),
                on_invocation=on_invocation,
                on_wait=on_wait,
                on_call=calling,
                clock=self.clock(),
            )


class _Started:
    def __init__(self, index: int) -> None:
        self.index = index


class _Done:
    def __init__(
        self, index: int, result: Any, hung: dict[str, str], moto_modules: set[str]
    ) -> None:
        self.index = index
        self.result = result
        self.hung = hung
        self.moto_modules = moto_modules
        self.calls: list[Call] = []
        self.ran: set[str] = set()


def moto_modules() -> set[str]:
    """The moto modules workers of this process imported (a watch session imports them in
    the process it forks runs from)."""
    return set(_moto_modules)


def _import_moto_modules() -> None:
    """Import here the moto modules an earlier worker imported (see `_moto_modules`), while
    no other thread forks its worker."""
    _moto_modules.difference_update(import_between_forks(_moto_modules - set(sys.modules)))


class _Calling:
    """A child's note that it is about to call a handler (named if the child dies)."""

    def __init__(self, label: str, number: int) -> None:
        self.label = label
        self.number = number
