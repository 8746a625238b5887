"""A watch session's next test run, forked before the save it will test.

Of a run after a handler edit, about a fifth of the time went before the handlers were even
imported: the child forked, the suite read the project (its settings, schema, inputs), the
sandbox opened (moto started, the environment patched). None of that depends on the handlers'
code, so once a verdict is out the session forks the next run at once and it goes that far,
then waits at the gate (`gate_import`: called before the project's code is first imported,
by the runner's Entrypoint or a Lambda function's init). The save sends it the files that
changed, and it goes on only if it never read one of them:

- every file the run opened before the gate is recorded (cfngen/_reads.py: Python's audit
  hook), the project's modules it imported included (an import opens the source or its
  bytecode);
- a file that came or went (a listing, an existence check) makes the parent start a fresh run
  instead, and so does a run that started a program before the gate (what it read is unknown).

A run that may have read what changed ends without running a test (`Stale`) and the session
forks a fresh one, as it did for every run before: a verdict never comes from stale code.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from cfngen._contract._entrypoint import gate_import
from cfngen._contract._isolate import Child, Send, start
from cfngen._reads import record

T = TypeVar("T")


class Stale:
    """What a standby run reports when it must not go on. `recurs`: so would the next one
    (it started a program, or never reached the gate), and the session stops forking them."""

    def __init__(self, why: str, *, recurs: bool = False) -> None:
        self.why = why
        self.recurs = recurs


class _Refused(BaseException):
    """Raised at the gate: a BaseException, as an interrupt is, so no suite reports it as a
    test's error."""


class Standby(Generic[T]):
    """`run()` begun in a child process now, held at the gate until `go` (or `discard`)."""

    def __init__(self, run: Callable[[], T], root: Path, *, graceful: float) -> None:
        go_read, go_write = os.pipe()

        def work(_send: Send) -> T | Stale:
            os.close(go_write)
            gate = _Gate(go_read, root)
            gate_import(gate.wait)
            try:
                result = run()
            except BaseException:
                if gate.refusal is not None:
                    return gate.refusal
                if not gate.passed:  # what it raised may be about files since changed
                    return Stale("it failed before the save")
                raise
            if gate.refusal is not None:
                return gate.refusal
            return result if gate.passed else Stale("it never reached the gate", recurs=True)

        self._child: Child[T | Stale] = start(work, graceful=graceful)
        self._patience = graceful
        os.close(go_read)
        self._go: int | None = go_write

    def send(self, changed: set[str]) -> None:
        """Let the run go on after a save that changed `changed` (paths relative to the
        project, every one there before and after), or say Stale: see `result`."""
        go, self._go = self._go, None
        assert go is not None
        try:
            os.write(go, pickle.dumps(sorted(changed)))
        except BrokenPipeError:  # it ended before the gate: its result says how
            pass
        finally:
            os.close(go)

    def result(self, on_message: Send) -> T | Stale:
        """What the run found once `send` let it go on, or Stale."""
        return self._child.result(on_message)

    def go(self, changed: set[str], on_message: Send) -> T | Stale:
        """`send`, then `result`."""
        self.send(changed)
        return self.result(on_message)

    def discard(self) -> None:
        """End the run without a verdict and reap it, unless its result was taken. One still
        waiting at the gate is told to end (its sandbox closed), and given time to: a signal
        would interrupt it anywhere in that, and Python print what it interrupted. One that
        went on is killed: its tests run, and they are not wanted."""
        if self._go is not None:
            os.close(self._go)  # the gate reads end-of-file: Stale
            self._go = None
            self._child.end(patience=self._patience)
        else:
            self._child.end(kill=True)


class _Gate:
    """Records what the run reads until `wait`, which blocks until the save and refuses to go
    on (`_Refused`) if the run read a file the save changed."""

    def __init__(self, fd: int, root: Path) -> None:
        self._fd = fd
        self._root = str(root)
        self._reads = record()
        self.passed = False
        self.refusal: Stale | None = None

    def wait(self) -> None:
        self._reads.stop()
        with os.fdopen(self._fd, "rb") as pipe:
            message = pipe.read()
        self.refusal = self._refusal(message)
        if self.refusal is not None:
            raise _Refused
        self.passed = True

    def _refusal(self, message: bytes) -> Stale | None:
        if not message:
            return Stale("the session discarded it")
        if self._reads.spawned:
            return Stale("it started a program before the gate", recurs=True)
        changed = {os.path.join(self._root, path) for path in pickle.loads(message)}
        stale = sorted(self._reads.read(changed, self._root))
        if stale:
            return Stale(f"it read {os.path.relpath(stale[0], self._root)} before the save")
        return None
