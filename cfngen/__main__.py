"""The `cfngen` command (console script and `python -m cfngen`): the CLI in a process of its own.

Only here does cfngen own the process (cfngen._process), so only here may it fork (`cfngen
generate` renders the models in a child meanwhile) and end without the interpreter's teardown.
Code and tests that call `cfngen._cli.main()` themselves get the same results without either.
"""

from __future__ import annotations

import os
import signal
import sys

_LATE_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def run() -> None:
    from cfngen import _process
    from cfngen._cli import main

    _process.own()
    try:
        code = main()
        # The command is over and its files are committed (or rolled back): a signal that comes
        # now changes nothing, so it must not kill the process during the interpreter's teardown
        # (seen as exit -2 with no message on a late Ctrl-C). Blocked signals die with the process.
        signal.pthread_sigmask(signal.SIG_BLOCK, _LATE_SIGNALS)
    except KeyboardInterrupt:  # between main()'s return and the mask above
        code = 130
    if code == 130:
        _exit_interrupted()
    if _exit_handlers_run() and _flushed():
        # Freeing every module one by one costs 30-40 ms after a generate; the exit code, the
        # flushed output and the files written are all that is left, and the OS keeps those.
        os._exit(code)
    sys.exit(code)


def _exit_interrupted() -> None:
    """Exit 130 after an interrupt that cfngen handled. CPython (seen on 3.11.7) remembers a
    KeyboardInterrupt that passed through an exec()'d string (dataclasses and namedtuple make
    classes so) even once it was caught, and after its teardown ends the process by SIGINT
    instead of with the exit code: run the exit handlers, then skip that teardown."""
    import atexit

    run_exitfuncs = getattr(atexit, "_run_exitfuncs", None)  # temporary folders, logging
    if run_exitfuncs is not None:
        run_exitfuncs()
    _flushed()
    os._exit(130)


def _exit_handlers_run() -> bool:
    """The atexit handlers (logging's flush, weakref.finalize's temporary folders, ...) run as
    the interpreter's exit would run them; False (take the usual exit) when another thread is
    still running, which the interpreter waits for first."""
    import atexit

    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() != 1:
        return False
    run_exitfuncs = getattr(atexit, "_run_exitfuncs", None)  # CPython's
    if run_exitfuncs is None:
        return False
    run_exitfuncs()
    return True


def _flushed() -> bool:
    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: let the interpreter report it as usual
            return False
    return True


if __name__ == "__main__":
    run()
