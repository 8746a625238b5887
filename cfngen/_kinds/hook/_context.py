"""What a hook's handlers run with inside cfngen/_contract's runner: the hook project and its
schema, the time one invocation may take, the request context of a unit of work (credentials,
type configuration, STACK and CHANGE_SET documents served from the worker) and the `carry`
collaborator of the tests.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from cfngen import _schema
from cfngen._contract._runner import Runner
from cfngen._errors import CfngenError
from cfngen._kinds._shared._payload import _Payloads
from cfngen._kinds.hook import _hook_protocol
from cfngen._project import Project, load_project

#: The official tool's limit for one hook invocation (HookClient's timeout_in_seconds, 60 s);
#: the hooks user guide gives no shorter one.
DEFAULT_LIMIT = 60.0


def load_hook_project(root: Path | Project) -> tuple[Project, dict[str, Any]]:
    project = root if isinstance(root, Project) else load_project(root)
    if project.kind.name != "hook":
        raise CfngenError(f"{project.root}: not a hook project", "run it in a hook project")
    return project, _schema.load_object(project.schema_path, "run `cfngen validate`")


@contextlib.contextmanager
def _hook_context(
    runner: Runner[Project], type_configuration: Mapping[str, Any] | None
) -> Iterator[_hook_protocol.Context]:
    """The request context, inside an open runner."""
    sandbox = runner.sandbox
    payloads = _Payloads()
    try:
        yield _hook_protocol.Context(
            type_name=str(runner.project.type_name),
            account_id=sandbox.account_id,
            region=sandbox.region,
            credentials=sandbox.credentials.as_request(),
            type_configuration=type_configuration,
            payload_url=payloads.publish,
        )
    finally:
        payloads.close()


def _carrier(
    runner: Runner[Project], context: _hook_protocol.Context, limit: float
) -> Callable[[str, _hook_protocol.Target], _hook_protocol.Run]:
    """The `carry` collaborator of the tests: one point for one target, in the runner."""

    def carry(point: str, target: _hook_protocol.Target) -> _hook_protocol.Run:
        exchange = _hook_protocol.HookExchange(
            point, target, context, limit=limit, token=str(uuid.uuid4())
        )
        outcome = runner.carry(exchange, handler=point)
        return _hook_protocol.as_run(outcome, point, target)

    return carry
