"""Handlers that run out of process (TypeScript today): the entrypoint the runner calls is a
message to the runtime of the run (_runtime_api.py), not a Python function.

Everything the runner does around a call stays as it is for Python handlers: the events, the
re-invocation loop, the time limits, the response checks, the reports. What differs:

- the runtime is started once per run, when the runner opens, and serves every test of it (as
  one warm Lambda container): module state is not reset between tests, AWS state is (the
  moto server is emptied between tests);
- AWS calls go to a moto server on loopback (cfngen starts one when no target is named), so
  the runtime's SDKs reach it by an endpoint (each language's mechanism: `Launch`);
- time is real: simulated time moves this process's clock, never the runtime's, so
  callbackDelaySeconds are slept, each capped by `--max-delay`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import tempfile
import urllib.request
from typing import Any

from cfngen._contract._calls import RECORDER
from cfngen._contract._capture import current_sink
from cfngen._contract._entrypoint import Entrypoint, HandlerCrash, HandlerProject
from cfngen._contract._runtime_api import GRACE, RuntimeApi
from cfngen._contract._sandbox import Sandbox
from cfngen._contract._settings import Settings
from cfngen._errors import CfngenError
from cfngen._languages import Language

#: A frame of a Node stack trace: `at Resource.create (/abs/dist/handlers.js:50:19)`.
_FRAME = re.compile(r"at (?:(?P<name>.+?) \()?(?P<file>/[^():]+):(?P<line>\d+):\d+\)?$")


def out_of_process(project: object) -> Language | None:
    """The project's language when its handlers run out of process, else None."""
    language = getattr(project, "language", None)
    if isinstance(language, Language) and language.runtime is not None:
        return language
    return None


def aim_settings(project: object, settings: Settings) -> None:
    """With no target named, out-of-process handlers get the moto server cfngen starts: they
    cannot reach moto inside this process."""
    if out_of_process(project) is None:
        return
    if settings.endpoint_url is None and settings.profile is None and settings.role_arn is None:
        settings.moto_server = True


class HandlerError(Exception):
    """The runtime reported an error the handler's entrypoint raised (its promise rejected)."""

    def __init__(self, error: dict[str, Any]) -> None:
        self.type = str(error.get("errorType") or "Error")
        self.message = str(error.get("errorMessage") or "")
        trace = error.get("stackTrace")
        self.trace = [str(line) for line in trace] if isinstance(trace, list) else []
        super().__init__(self.message)


class RuntimeEnded(Exception):
    """The runtime process ended during a call (`process.exit`, a crash)."""


class ProcessEntrypoint(Entrypoint):
    """The project's handlers in the runtime its language starts, one per run."""

    def __init__(self, project: HandlerProject, language: Language, sandbox: Sandbox) -> None:
        self.project = project
        self.import_output: list[str] = []
        self.stubs = {}
        self.hung: dict[str, str] = {}
        self.installed: list[str] = []
        self.notes: list[str] = []
        config = getattr(project, "config", {})
        launch = language.launch(project.root, config if isinstance(config, dict) else {})
        # A port bound and never listening: proxies there refuse at once (_network.py).
        self._closed = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._closed.bind(("127.0.0.1", 0))
        # Lambda gives each runtime a /tmp of its own, and runtimes treat it as theirs: the
        # Java plugin's wrapper empties its temporary folder before every call. The machine's
        # is never that folder.
        self._tmp = tempfile.mkdtemp(prefix="cfngen-runtime-tmp-")
        self.api = RuntimeApi(launch, _environment(sandbox, launch.env, self._closed, self._tmp))
        try:
            self.import_output = self.api.start()
        except BaseException:
            self.close()
            raise
        where = sandbox.endpoint_url or "AWS"
        self.notes.append(
            f"{language.label} handlers ({launch.handler}) run in one {language.runtime.program} "  # type: ignore[union-attr]
            f"process for the run; AWS calls go to {where}: {launch.endpoint_note}; "
            f"{launch.clock_note}"
        )
        self.function = self._call

    def reload(self) -> None:
        """Nothing: the runtime serves the whole run, as a warm Lambda container would."""

    def handler_key(self, name: str) -> str:
        return name

    def _call(self, event: dict[str, Any], context: Any) -> Any:
        limit = context.get_remaining_time_in_millis() / 1000 if context is not None else 60.0
        body = json.dumps({"event": event, "limit": limit}).encode("utf-8")
        request = urllib.request.Request(self.api.url, data=body, method="POST")
        # No proxy: this is loopback, whatever the environment names.
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(request, timeout=limit + GRACE + 30) as answer:
            result = json.loads(answer.read())
        for service, operation in result.get("calls", []):  # seen by the moto server
            RECORDER.record(service, operation)
        sink = current_sink()
        if sink is not None:
            for line in result.get("output", []):
                sink.write(line + "\n")
        if "error" in result:
            raise HandlerError(result["error"])
        if "ended" in result:
            program = os.path.basename(self.api.launch.argv[0])
            raise RuntimeEnded(f"the {program} runtime ended: {result['ended']}")
        if result.get("timed_out"):
            raise RuntimeEnded(f"no answer within {limit:g} s: the runtime was stopped")
        response = result.get("response") or {}
        if "not_json" in response:
            return {"status": None, "message": f"not JSON: {response['not_json'][:200]}"}
        return response.get("value")

    def crash(self, exc: BaseException) -> HandlerCrash:
        if not isinstance(exc, HandlerError):
            return HandlerCrash(type(exc).__name__, str(exc), [])
        root = os.path.realpath(self.project.root)
        frames: list[str] = []
        location: tuple[str, int] | None = None
        for line in exc.trace:
            found = _FRAME.search(line.strip())
            if found is None or "node_modules" in found["file"]:
                continue
            path = os.path.realpath(found["file"])
            if not path.startswith(root + os.sep):
                continue
            shown = os.path.relpath(path, root)
            frames.append(f"  {shown}:{found['line']} in {found['name'] or '<anonymous>'}")
            location = location or (shown, int(found["line"]))
        return HandlerCrash(exc.type, exc.message, frames, location)

    def close(self) -> None:
        api = getattr(self, "api", None)
        if api is not None:
            api.close()
        if os.getpid() == getattr(api, "owner", os.getpid()):
            self._closed.close()
            shutil.rmtree(self._tmp, ignore_errors=True)


def _environment(
    sandbox: Sandbox, extra: dict[str, str], closed: socket.socket, tmp: str
) -> dict[str, str]:
    """The runtime's environment: the sandbox's (fake credentials, region, no AWS config
    files), Lambda's variables, the endpoint, the network policy, and a temporary folder of
    its own."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("NODE_OPTIONS")}
    env["TMPDIR"] = env["TMP"] = env["TEMP"] = tmp
    proxy = f"http://127.0.0.1:{closed.getsockname()[1]}"
    for name in ("http_proxy", "https_proxy", "all_proxy"):
        env[name] = env[name.upper()] = proxy
    env["no_proxy"] = env["NO_PROXY"] = "localhost,127.0.0.1,::1"
    region = sandbox.region
    env.update(
        AWS_REGION=region,
        AWS_DEFAULT_REGION=region,
        AWS_LAMBDA_FUNCTION_NAME="cfngen-handler",
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE="512",
        AWS_LAMBDA_FUNCTION_VERSION="$LATEST",
        CFNGEN_FUNCTION_ARN=(
            f"arn:aws:lambda:{region}:{sandbox.account_id}:function:cfngen-handler"
        ),
        TZ="UTC",
    )
    if sandbox.endpoint_url is not None:
        env["AWS_ENDPOINT_URL"] = env["CFNGEN_AWS_ENDPOINT"] = sandbox.endpoint_url
    policy = sandbox.network
    # The runtime cannot tell an AWS call from another: both may leave when AWS calls may.
    env["CFNGEN_ALLOW_NETWORK"] = "1" if policy.others_may_leave or policy.aws_may_leave else ""
    # A runtime that reads no proxy or TMPDIR variables (a JVM) is given them by name.
    named = {"{proxy_port}": str(closed.getsockname()[1]), "{tmp}": tmp}
    for name, given in extra.items():
        filled = given
        for placeholder, value in named.items():
            filled = filled.replace(placeholder, value)
        env[name] = filled
    return env


def not_runnable(project: object) -> CfngenError | None:
    """Why the project's handlers cannot be run at all: a language cfngen does not run, or
    built handlers that are missing or stale (said before a moto server is started)."""
    language = getattr(project, "language", None)
    if not isinstance(language, Language):
        return None
    refusal = language.run_refusal()
    if refusal is None and language.runtime is not None:
        config = getattr(project, "config", {})
        root = getattr(project, "root", None)
        try:
            if root is not None:
                language.launch(root, config if isinstance(config, dict) else {})
        except CfngenError as exc:
            return exc
    return refusal
