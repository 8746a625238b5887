"""A Lambda function declared in a template (a custom resource's, a Lambda hook's), and how
Lambda calls it.

The function is found in the template by _template.py, its code by _code.py (inline code runs as
`index.py` beside AWS's `cfnresponse` module, as on Lambda).

The function is imported once first (`Function.prepare`, bounded as Lambda's init phase is;
a missing requirement is installed for the run), then run by cfngen/_contract's runner
(_run.py). Each invocation is a cold start: the function's own modules are imported afresh
(`Function.forget`; Lambda containers share no memory, so nothing a handler caches survives to
the next request) and called as Lambda calls it (`as_lambda_runs`: SNS-wrapped when the
ServiceToken names a topic, a context with the function's names and the runner's remaining
time).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cfngen._contract._requirements import install_requirements, to_install
from cfngen._kinds._shared._intrinsics import ACCOUNT_ID, STACK_NAME

#: AWS's cfnresponse module as Lambda provides it to inline code (the PyPI package of that
#: name is someone else's).
CFNRESPONSE = Path(__file__).with_name("aws_cfnresponse.txt")


@dataclass
class Function:
    """The Lambda function a template declares (a custom resource's, a Lambda hook's)."""

    logical_id: str
    code_dir: Path
    module: str
    attribute: str
    timeout: float = 3.0
    memory: int = 128
    runtime: str | None = None
    #: Inline code: cfnresponse is importable beside it.
    inline: bool = False
    #: Folders of the function's layers that are in this project (`<ContentUri>/python`).
    layers: tuple[Path, ...] = ()
    #: Where the function's requirements were installed for the run (see `prepare`).
    installed: tuple[str, ...] = ()
    #: The SNS topic (logical id) the ServiceToken names: requests arrive wrapped in it.
    sns_topic: str | None = None
    #: Why the handler cannot be imported (set by `prepare`): every request fails with it.
    init_error: str | None = None

    def load(self) -> Callable[[Any, Any], Any]:
        """The handler, imported afresh (a cold start): its own modules are dropped first."""
        root = str(self.code_dir.resolve())
        layers = [str(layer.resolve()) for layer in self.layers]
        for folder in (root, *layers):
            _forget(folder)
        # Lambda's order: the function's code, then its layers (/opt/python).
        sys.path[:0] = [root, *layers]
        # Requirements installed for the run come last: cfngen's own packages (boto3, moto's
        # patched botocore) must win; they stay for imports the handler makes later.
        sys.path.extend(p for p in self.installed if p not in sys.path)
        importlib.invalidate_caches()
        try:
            module = importlib.import_module(self.module)
        except ModuleNotFoundError as exc:
            raise HandlerError(
                f"importing {self.module} from {self.code_dir}: {exc} (install the function's "
                "requirements where cfngen runs, as `sam build` would put them in its package)"
            ) from exc
        except Exception as exc:
            raise HandlerError(f"importing {self.module} from {self.code_dir}: {exc}") from exc
        finally:
            for folder in (root, *layers):
                with contextlib.suppress(ValueError):
                    sys.path.remove(folder)
        handler = getattr(module, self.attribute, None)
        if not callable(handler):
            raise HandlerError(f"{self.module} has no function {self.attribute}")
        return handler  # type: ignore[no-any-return]

    @property
    def source(self) -> str:
        """`module.attribute`, as the runner imports it."""
        return f"{self.module}.{self.attribute}"

    def folders(self) -> tuple[str, ...]:
        """The function's code folder and its layers' folders, resolved."""
        return (str(self.code_dir.resolve()), *(str(layer.resolve()) for layer in self.layers))

    def forget(self) -> None:
        """Drop the modules imported from the function's folders: the next import is a
        cold start."""
        for folder in self.folders():
            _forget(folder)

    @contextlib.contextmanager
    def on_path(self) -> Iterator[None]:
        """While inside, the function's layers come after its code on sys.path (Lambda's
        order; the runner puts the code folder first) and the requirements installed for the
        run last: cfngen's own packages (boto3, moto's patched botocore) must win."""
        layers = [str(layer.resolve()) for layer in self.layers]
        added = [p for p in self.installed if p not in sys.path]
        sys.path[:0] = layers
        sys.path.extend(added)
        importlib.invalidate_caches()
        try:
            yield
        finally:
            for folder in (*layers, *added):
                with contextlib.suppress(ValueError):
                    sys.path.remove(folder)

    def prepare(self) -> list[str]:
        """Import the handler once before the tests; when a module is missing and the code
        folder has a requirements.txt, install it (as `sam build` would package it) into
        cfngen's cache and use it for the run. Returns what the user should know; when the
        handler still cannot be imported, `init_error` says why (every request reports it,
        as Lambda's init phase failing does)."""
        from cfngen._contract._entrypoint import before_project_code

        before_project_code()
        self.init_error = None
        try:
            self._quiet_load()
        except HandlerError as exc:
            self.init_error = f"{type(exc).__name__}: {exc}"
            if not isinstance(exc.__cause__, ModuleNotFoundError):
                return []
            requirements = self.code_dir / "requirements.txt"
            if to_install(requirements) is None:
                return []
            target = install_requirements(requirements)
            self.installed = (target,)
            try:
                self._quiet_load()
            except HandlerError as again:
                self.init_error = f"{type(again).__name__}: {again}"
            else:
                self.init_error = None
            return [f"{exc.__cause__}: installed {requirements} for the run ({target})"]
        return []

    def _quiet_load(self) -> None:
        """Import the handler, its output dropped, bounded as Lambda's init phase is."""
        failed: list[BaseException] = []

        def load() -> None:
            try:
                self.load()
            except BaseException as exc:
                failed.append(exc)

        with (
            contextlib.redirect_stdout(io.StringIO()),
            contextlib.redirect_stderr(io.StringIO()),
        ):
            loading = threading.Thread(target=load, daemon=True, name="cfngen-cr-init")
            loading.start()
            loading.join(INIT_SECONDS)
        if loading.is_alive():
            raise HandlerError(f"importing {self.module} took over {INIT_SECONDS:g} s")
        self.forget()
        if failed:
            raise failed[0]


#: Lambda's init phase (importing the handler) has its own limit, outside the function's Timeout.
INIT_SECONDS = 10.0


class HandlerError(Exception):
    """The handler cannot be imported: every request fails as Lambda's would."""


#: Code folders handlers were imported from in this process.
_ROOTS: set[str] = set()


def _forget(root: str) -> None:
    """Drop every module imported from a handler's folder (this one's or an earlier one's: a
    module named `app` from another project must not answer for this one's)."""
    _ROOTS.add(root)
    prefixes = tuple(folder + os.sep for folder in _ROOTS)
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None) or ""
        if file.startswith(prefixes):
            del sys.modules[name]


# --------------------------------------------------------------------------- one invocation


class FunctionContext:
    """The Lambda context object the function gets: its names as Lambda gives them, and the
    remaining time of the runner's context (the call's limit, on the runner's clock)."""

    def __init__(self, function: Function, region: str, runner_context: Any) -> None:
        self._runner_context = runner_context
        self.function_name = f"{STACK_NAME}-{function.logical_id}"
        self.function_version = "$LATEST"
        self.invoked_function_arn = (
            f"arn:aws:lambda:{region}:{ACCOUNT_ID}:function:{self.function_name}"
        )
        self.memory_limit_in_mb = str(function.memory)
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{self.function_name}"
        self.log_stream_name = time.strftime("%Y/%m/%d") + "/[$LATEST]" + uuid.uuid4().hex
        self.identity = None
        self.client_context = None

    def get_remaining_time_in_millis(self) -> int:
        return int(self._runner_context.get_remaining_time_in_millis())


def delivered(function: Function, event: Mapping[str, Any], region: str) -> Any:
    """The event as the function receives it: a copy, inside an SNS notification when the
    ServiceToken names a topic."""
    payload = json.loads(json.dumps(event))
    if function.sns_topic is None:
        return payload
    topic = f"arn:aws:sns:{region}:{ACCOUNT_ID}:{STACK_NAME}-{function.sns_topic}"
    return {
        "Records": [
            {
                "EventSource": "aws:sns",
                "EventVersion": "1.0",
                "EventSubscriptionArn": f"{topic}:{uuid.uuid4()}",
                "Sns": {
                    "Type": "Notification",
                    "MessageId": str(uuid.uuid4()),
                    "TopicArn": topic,
                    "Subject": "AWS CloudFormation custom resource request",
                    "Message": json.dumps(payload),
                    "Timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
                    "MessageAttributes": {},
                },
            }
        ]
    }


def as_lambda_runs(
    function: Function, handler: Callable[[Any, Any], Any], region: str
) -> Callable[[dict[str, Any], Any], Any]:
    """`handler` called as Lambda calls the function: the event as delivered (SNS-wrapped
    when so), a context with the function's names and the runner's remaining time."""

    def run(event: dict[str, Any], context: Any) -> Any:
        return handler(
            delivered(function, event, region), FunctionContext(function, region, context)
        )

    return run
