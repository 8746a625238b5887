"""The one error type the core raises, and the exit codes the CLI turns outcomes into."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    #: The thing checked failed: an invalid schema, a failed test, drift found by --check.
    FAILED = 1
    #: The user asked for something we cannot do: a bad flag, a missing file, no project here.
    USAGE = 2
    #: A bug in cfngen itself (sysexits' EX_SOFTWARE); never caused by user input.
    INTERNAL = 70
    #: Ctrl-C, as a shell reports SIGINT.
    INTERRUPTED = 130


class CfngenError(Exception):
    """A problem the user can act on: what happened, and what to do about it.

    The core raises this and never prints or exits; the CLI renders it as one message.
    """

    def __init__(
        self, message: str, hint: str | None = None, *, exit_code: ExitCode = ExitCode.USAGE
    ) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.exit_code = exit_code

    def __str__(self) -> str:
        return self.message if self.hint is None else f"{self.message} ({self.hint})"
