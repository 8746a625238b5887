"""What a language that runs out of process tells the runner: how to start its runtime.

The runner (cfngen/_contract/_runtime_api.py) starts the command of a `Launch` once per run,
as Lambda starts a runtime once per container, with `AWS_LAMBDA_RUNTIME_API` naming a
loopback emulation of the Lambda Runtime API; the runtime asks it for the next event and posts
the handler's answer. So any runtime that speaks that API runs here: the Node harness cfngen
ships (cfngen/_languages/node/), and later a Go `bootstrap` as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from cfngen._errors import CfngenError


@dataclass(frozen=True)
class Launch:
    """One runtime process to start: its command line, folder and extra environment."""

    argv: tuple[str, ...]
    cwd: Path
    #: What is run, for messages ("dist/handlers.js, export entrypoint").
    handler: str
    #: In a value, `{proxy_port}` is the run's closed loopback port and `{tmp}` the runtime's
    #: own temporary folder (TMPDIR), for runtimes that read neither variable (a JVM).
    env: dict[str, str] = field(default_factory=dict)
    #: How the language's SDKs are pointed at the AWS endpoint, for `cfngen test`'s notes.
    endpoint_note: str = ""
    #: Why simulated time cannot reach the handlers' clock, for the notes.
    clock_note: str = ""


class OutOfProcess(Protocol):
    """A language's runtime, run as a child process of cfngen."""

    #: The program the runtime needs ("node"), named when it is missing.
    program: str

    def launch(self, root: Path, config: dict[str, Any]) -> Launch:
        """The runtime for the built handlers of the project in `root` (`config`: its
        `.rpdk-config`); a CfngenError naming the build command when they are not built or
        older than their sources, or the program is missing."""
        ...


@dataclass(frozen=True)
class Built:
    """A language's built handlers, found present and newer than every source of the build."""

    #: The built file, relative to the project ("dist/handlers.js", "bin/bootstrap").
    artefact: str
    #: What builds it ("npm run build", "make", "mvn package").
    command: str
    #: What it was compared with, for messages ("src/ and tsconfig.json").
    sources: str


class NotBuilt(CfngenError):
    """The built handlers are missing or older than a source: `command` builds them."""

    def __init__(self, message: str, hint: str, command: str) -> None:
        super().__init__(message, hint)
        self.command = command
