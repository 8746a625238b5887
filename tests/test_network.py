"""No call leaves the machine unless the user asks (cfngen/_contract/_network.py).

Offline, every AWS call a handler can make goes to moto, whichever way it got its client, and
every other connection fails naming its host and `--allow-network`. Each run is judged by its
own connection trace (`strace -f`): no address but loopback, whatever this machine's network
would have answered. The runs are processes of their own, as a user's are: in this test
process moto was imported long ago, which hides the order in which sessions are made.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from cfngen._generate import generate_project
from tests import _faults
from tests._hook_projects import guard_project
from tests.test_cr_protocol import CRHELPER, INLINE, INLINE_TEMPLATE, TEMPLATE
from tests.test_hook_contract import CORRECT as HOOK_HANDLERS

ALLOW = "--allow-network"

# --------------------------------------------------------------------------- the trace


@dataclass
class Traced:
    returncode: int
    stdout: str
    stderr: str
    #: Every destination the process tree connected or sent to, as strace printed it.
    destinations: list[str]

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    @property
    def outside(self) -> list[str]:
        """The destinations that are neither loopback nor a local socket."""
        return [d for d in self.destinations if not _stays_here(d)]


_ADDRESS = re.compile(r"\{sa_family=(AF_\w+)(.*?)\}")
_INET = re.compile(r'inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6?, "([^"]+)"')


def _stays_here(destination: str) -> bool:
    family, _, rest = destination.partition(" ")
    if family in ("AF_UNIX", "AF_NETLINK", "AF_UNSPEC"):
        return True
    found = _INET.search(rest)
    if family not in ("AF_INET", "AF_INET6") or found is None:
        return False
    address = ipaddress.ip_address(found.group(1) or found.group(2))
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def traced(argv: list[str], *, cwd: Path, timeout: float = 300) -> Traced:
    """Run `argv` under `strace -f`, recording every connect and every send to an address."""
    trace = cwd.parent / f"{cwd.name}.trace"
    result = subprocess.run(
        [
            _faults.require("strace"),
            "-f",
            "--seccomp-bpf",  # stops only at the traced calls
            "-qq",
            "-e",
            "trace=connect,sendto,sendmsg,sendmmsg",
            "-o",
            str(trace),
            *argv,
        ],
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )
    found = [
        f"{family} {rest}"
        for line in trace.read_text().splitlines()
        for family, rest in _ADDRESS.findall(line)
    ]
    return Traced(result.returncode, result.stdout, result.stderr, found)


def cfngen(*args: str) -> list[str]:
    return [sys.executable, "-m", "cfngen", *args]


# --------------------------------------------------------------------------- a resource type

SCHEMA = {
    "typeName": "Acme::Net::Param",
    "description": "A string kept in SSM Parameter Store.",
    "properties": {
        "Name": {"type": "string", "pattern": "^[a-z0-9-]{1,40}$"},
        "Value": {"type": "string", "minLength": 1, "maxLength": 100},
    },
    "required": ["Name", "Value"],
    "createOnlyProperties": ["/properties/Name"],
    "primaryIdentifier": ["/properties/Name"],
    "additionalProperties": False,
    "handlers": {
        action: {"permissions": [f"ssm:{permission}"]}
        for action, permission in (
            ("create", "PutParameter"),
            ("read", "GetParameter"),
            ("update", "PutParameter"),
            ("delete", "DeleteParameter"),
            ("list", "GetParametersByPath"),
        )
    },
}

CONFIG = {
    "artifact_type": "RESOURCE",
    "typeName": "Acme::Net::Param",
    "language": "python312",
    "runtime": "python3.12",
    "entrypoint": "acme_net_param.handlers.resource",
    "testEntrypoint": "acme_net_param.handlers.test_entrypoint",
}

#: The handlers, in the official layout and style; `{client}` says where the SSM client comes
#: from and `{outside}` is what CREATE does first (nothing, or a call of its own).
HANDLERS = """\
import re
from typing import Any, MutableMapping, Optional

import boto3
from cloudformation_cli_python_lib import (
    Action, OperationStatus, ProgressEvent, Resource, SessionProxy, exceptions,
)

from .models import ResourceHandlerRequest, ResourceModel

TYPE_NAME = "Acme::Net::Param"
PREFIX = "/acme/param/"
resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint

{client}


def outside():
{outside}


def _get(ssm, name):
    try:
        return ssm.get_parameter(Name=PREFIX + name)["Parameter"]["Value"]
    except ssm.exceptions.ParameterNotFound:
        raise exceptions.NotFound(TYPE_NAME, name)


@resource.handler(Action.CREATE)
def create_handler(session, request, callback_context):
    outside()
    model = request.desiredResourceState
    if not re.fullmatch(r"[a-z0-9-]{{1,40}}", model.Name or "") or not model.Value:
        raise exceptions.InvalidRequest("Name must match ^[a-z0-9-]{{1,40}}$ and Value be set")
    ssm = ssm_client(session)
    try:
        ssm.put_parameter(Name=PREFIX + model.Name, Value=model.Value, Type="String")
    except ssm.exceptions.ParameterAlreadyExists:
        raise exceptions.AlreadyExists(TYPE_NAME, model.Name)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.READ)
def read_handler(session, request, callback_context):
    name = request.desiredResourceState.Name
    value = _get(ssm_client(session), name)
    return ProgressEvent(
        status=OperationStatus.SUCCESS, resourceModel=ResourceModel(Name=name, Value=value)
    )


@resource.handler(Action.UPDATE)
def update_handler(session, request, callback_context):
    model = request.desiredResourceState
    before = request.previousResourceState
    if before is not None and before.Name != model.Name:
        raise exceptions.NotUpdatable("Name cannot be changed")
    ssm = ssm_client(session)
    _get(ssm, model.Name)
    ssm.put_parameter(Name=PREFIX + model.Name, Value=model.Value, Type="String", Overwrite=True)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.DELETE)
def delete_handler(session, request, callback_context):
    ssm = ssm_client(session)
    name = request.desiredResourceState.Name
    try:
        ssm.delete_parameter(Name=PREFIX + name)
    except ssm.exceptions.ParameterNotFound:
        raise exceptions.NotFound(TYPE_NAME, name)
    return ProgressEvent(status=OperationStatus.SUCCESS)


@resource.handler(Action.LIST)
def list_handler(session, request, callback_context):
    ssm = ssm_client(session)
    found = ssm.get_parameters_by_path(Path=PREFIX)["Parameters"]
    models = [ResourceModel(Name=p["Name"][len(PREFIX):], Value=None) for p in found]
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModels=models)
"""

#: Where a handler gets its SSM client: every way public projects do it.
CLIENT_STYLES = {
    # What `cfn init`'s handlers do: the session proxy the library passes.
    "session-proxy": "def ssm_client(session):\n    return session.client('ssm')",
    "boto3-client": "def ssm_client(session):\n    return boto3.client('ssm')",
    "boto3-session": "def ssm_client(session):\n    return boto3.Session().client('ssm')",
    "import-time": "SSM = boto3.client('ssm')\n\n\ndef ssm_client(session):\n    return SSM",
    # A session made in the process before the sandbox opened: a shared module that the
    # project's own pytest configuration imported (run with `pytest --cfngen`).
    "made-before": (
        "from acme_shared_aws import SESSION\n\n\n"
        "def ssm_client(session):\n    return SESSION.client('ssm')"
    ),
}

SHARED = """\
import boto3

SESSION = boto3.session.Session()
CLIENT = SESSION.client("ssm")
"""

CONFTEST = """\
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "shared"))
import acme_shared_aws  # noqa: E402,F401  (its session is made now, before any contract test)
"""


def param_project(root: Path, *, client: str = "session-proxy", outside: str = "pass") -> Path:
    package = root / "src" / "acme_net_param"
    package.mkdir(parents=True)
    (root / ".rpdk-config").write_text(json.dumps(CONFIG))
    (root / "acme-net-param.json").write_text(json.dumps(SCHEMA, indent=2))
    (package / "__init__.py").write_text("")
    (package / "handlers.py").write_text(
        HANDLERS.format(client=CLIENT_STYLES[client], outside=textwrap.indent(outside, "    "))
    )
    inputs = root / "inputs"
    inputs.mkdir()
    for name, value in (
        ("create", {"Name": "one", "Value": "first"}),
        ("update", {"Name": "one", "Value": "second"}),
        ("invalid", {"Name": "Not A Name", "Value": ""}),
    ):
        (inputs / f"inputs_1_{name}.json").write_text(json.dumps(value))
    if client == "made-before":
        (root / "shared").mkdir()
        (root / "shared" / "acme_shared_aws.py").write_text(SHARED)
        (root / "conftest.py").write_text(CONFTEST)
    generate_project(root)
    return root


@pytest.mark.parametrize("client", list(CLIENT_STYLES))
def test_every_aws_client_a_resource_handler_can_reach_goes_to_moto(tmp_path, client):
    root = param_project(tmp_path / "project", client=client)
    if client == "made-before":
        argv = [sys.executable, "-m", "pytest", "--cfngen", "-p", "no:cacheprovider", "-q"]
    else:
        argv = cfngen("test")
    run = traced(argv, cwd=root)
    assert run.returncode == 0, run.output[-3000:]
    assert "EndpointConnectionError" not in run.output
    assert re.search(r"\b1[0-9] passed\b", run.output), run.output[-3000:]
    assert run.outside == []


# --------------------------------------------------------------------------- a hook


def hook_project(root: Path, *, outside: str | None = None) -> Path:
    """The versioned-bucket hook, asking S3 through the session the library passes (and,
    with `outside`, doing that first)."""
    guard_project(root)
    first = "    " + (outside or "pass").replace("\n", "\n    ") + "\n"
    handlers = HOOK_HANDLERS.replace(
        "    return check(request)\n",
        first + '    session.client("s3").list_buckets()\n    return check(request)\n',
    )
    (root / "src" / "acme_guard_hook" / "handlers.py").write_text(handlers)
    generate_project(root)
    return root


def test_a_hooks_aws_calls_through_its_session_go_to_moto(tmp_path):
    run = traced(cfngen("test"), cwd=hook_project(tmp_path / "hook"))
    assert run.returncode == 0, run.output[-3000:]
    assert "EndpointConnectionError" not in run.output
    assert run.outside == []


# --------------------------------------------------------------------------- custom resources

#: Each custom resource keeps its Name in SSM (boto3, as Lambda functions do).
SSM_PUT = (
    "boto3.client('ssm').put_parameter(Name='/thing/' + event['LogicalResourceId'], "
    "Value=event['ResourceProperties'].get('Name') or 'none', Type='String', Overwrite=True)"
)


def crhelper_project(root: Path, *, outside: str | None = None) -> Path:
    code = "import boto3\n" + CRHELPER.replace(
        '    helper.Data["Greeting"] = "Hello, " + event["ResourceProperties"]["Name"]\n',
        f"    {outside or 'pass'}\n    {SSM_PUT}\n"
        '    helper.Data["Greeting"] = "Hello, " + event["ResourceProperties"]["Name"]\n',
    )
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(code)
    (root / "template.yaml").write_text(TEMPLATE.format(timeout=3))
    return root


def inline_project(root: Path, *, outside: str | None = None) -> Path:
    first = f"    {outside or 'pass'}\n    if kind != 'Delete':\n        {SSM_PUT}\n"
    at = "    data = {} if kind"
    code = "import boto3\n" + INLINE.replace(at, first + at)
    root.mkdir(parents=True)
    (root / "template.yaml").write_text(
        INLINE_TEMPLATE.format(code=textwrap.indent(code, " " * 10))
    )
    return root


CUSTOM_RESOURCES = {"crhelper": crhelper_project, "inline-cfnresponse": inline_project}


@pytest.mark.parametrize("style", list(CUSTOM_RESOURCES))
def test_a_custom_resources_aws_calls_go_to_moto(tmp_path, style):
    run = traced(cfngen("test"), cwd=CUSTOM_RESOURCES[style](tmp_path / "cr"))
    assert run.returncode == 0, run.output[-3000:]
    assert re.search(r"\b[1-9][0-9]* passed, 0 failed\b", run.stdout), run.output[-3000:]
    # The ResponseURL is answered on loopback: the trace does see connections.
    assert any(_stays_here(d) and "AF_INET" in d for d in run.destinations)
    assert run.outside == []
