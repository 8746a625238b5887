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
from tests.conftest import run_command, sampled
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


def outside(session):
{outside}


def _get(ssm, name):
    try:
        return ssm.get_parameter(Name=PREFIX + name)["Parameter"]["Value"]
    except ssm.exceptions.ParameterNotFound:
        raise exceptions.NotFound(TYPE_NAME, name)


@resource.handler(Action.CREATE)
def create_handler(session, request, callback_context):
    outside(session)
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


@pytest.mark.parametrize("client", sampled(CLIENT_STYLES, {"session-proxy", "made-before"}))
def test_every_aws_client_a_resource_handler_can_reach_goes_to_moto(tmp_path, client):
    root = param_project(tmp_path / "project", client=client)
    if client == "made-before":
        argv = [sys.executable, "-m", "pytest", "--cfngen", "-p", "no:cacheprovider", "-q"]
    else:
        argv = cfngen("test")
    run = traced(argv, cwd=root)
    assert run.returncode == 0, run.output[-3000:]
    assert "EndpointConnectionError" not in run.output
    assert re.search(r"\b[12][0-9] passed\b", run.output), run.output[-3000:]
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
    # The permission the call needs, as the hook's author declares it (issue 24).
    schema_path = root / "acme-guard-hook.json"
    schema = json.loads(schema_path.read_text())
    for handler in schema["handlers"].values():
        handler["permissions"] = [*handler["permissions"], "s3:ListAllMyBuckets"]
    schema_path.write_text(json.dumps(schema, indent=4))
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


@pytest.mark.parametrize("style", sampled(CUSTOM_RESOURCES, {"inline-cfnresponse"}))
def test_a_custom_resources_aws_calls_go_to_moto(tmp_path, style):
    run = traced(cfngen("test"), cwd=CUSTOM_RESOURCES[style](tmp_path / "cr"))
    assert run.returncode == 0, run.output[-3000:]
    assert re.search(r"\b[1-9][0-9]* passed, 0 failed\b", run.stdout), run.output[-3000:]
    # The ResponseURL is answered on loopback: the trace does see connections.
    assert any(_stays_here(d) and "AF_INET" in d for d in run.destinations)
    assert run.outside == []


# --------------------------------------------------------------------------- other connections

#: A call of the handler's own to a host off this machine. None of these addresses is ever
#: reached: the guard refuses before any packet (the trace says so), and 198.18.0.0/15 and
#: 2001:db8::/32 are benchmarking and documentation ranges besides.
URLOPEN = "import urllib.request\nurllib.request.urlopen('http://example.com/', timeout=5)"


def request_file(root: Path) -> Path:
    path = root / "request.json"
    path.write_text(json.dumps({"desiredResourceState": {"Name": "one", "Value": "v"}}))
    return path


#: kind -> (project maker, the `cfngen invoke` arguments of one call that runs the code)
KINDS = {
    "resource": (
        lambda root, code: param_project(root, outside=code),
        lambda root: ["invoke", "CREATE", str(request_file(root))],
    ),
    "hook": (
        lambda root, code: hook_project(root, outside=code),
        lambda root: ["invoke", "preCreate", "inputs/inputs_1_pre_create.json"],
    ),
    "crhelper": (
        lambda root, code: crhelper_project(root, outside=code.replace("\n", "; ")),
        lambda root: ["invoke", "Create"],
    ),
    "inline-cfnresponse": (
        lambda root, code: inline_project(root, outside=code.replace("\n", "; ")),
        lambda root: ["invoke", "Create"],
    ),
}


@pytest.mark.parametrize("kind", sampled(KINDS, {"resource", "crhelper"}))
def test_a_handlers_own_call_to_an_outside_host_fails_by_name(tmp_path, kind):
    make, arguments = KINDS[kind]
    root = make(tmp_path / "project", URLOPEN)
    run = traced(cfngen(*arguments(root)), cwd=root)
    assert run.returncode == 1, run.output[-3000:]
    assert "example.com:80" in run.output and ALLOW in run.output, run.output[-3000:]
    assert run.outside == []


#: way -> (the handler's code, the host:port the refusal must name)
WAYS = {
    "urllib": (URLOPEN, "example.com:80"),
    "requests": (
        "import requests\nrequests.get('https://example.com/', timeout=5)",
        "example.com:443",
    ),
    "a-name-lookup": ("import socket\nsocket.getaddrinfo('example.com', 443)", "example.com:443"),
    "a-socket": (
        "import socket\nsocket.create_connection(('198.18.0.1', 8443), timeout=5)",
        "198.18.0.1:8443",
    ),
    "ipv6": (
        "import socket\nsocket.create_connection(('2001:db8::1', 80), timeout=5)",
        "2001:db8::1:80",
    ),
    "udp": (
        "import socket\n"
        "socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'q', ('198.18.0.1', 53))",
        "198.18.0.1:53",
    ),
    "a-thread": (
        "import concurrent.futures, urllib.request\n"
        "with concurrent.futures.ThreadPoolExecutor() as pool:\n"
        "    pool.submit(urllib.request.urlopen, 'http://example.com/', timeout=5).result()",
        "example.com:80",
    ),
    # An AWS SDK client pointed at another service is no AWS call moto answers.
    "boto3-elsewhere": (
        "boto3.client('s3', endpoint_url='https://storage.example.com').list_buckets()",
        "storage.example.com:443",
    ),
}


@pytest.mark.parametrize(
    ("way", "region"),
    [pytest.param(way, [], id=way) for way in WAYS]
    + [
        # --region changes nothing about where calls go: one way in the inner loop, all in CI.
        pytest.param(
            way,
            ["--region", "eu-west-1"],
            id=f"{way}-region",
            marks=() if index == 0 else pytest.mark.exhaustive,
        )
        for index, way in enumerate(WAYS)
    ],
)
def test_every_way_out_is_refused_naming_the_host_and_the_option(tmp_path, way, region):
    code, where = WAYS[way]
    root = param_project(tmp_path / "project", outside=code)
    result = run_command("invoke", "CREATE", request_file(root), *region, cwd=root)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"cfngen refused a connection to {where}" in result.stdout, result.stdout
    assert f"run with {ALLOW}" in result.stdout


#: A program the handler starts: the in-process guard does not reach it, the proxies do.
CHILDREN = {
    "curl": "['curl', '-sS', '--max-time', '5', 'http://example.com/']",
    "python": (
        "[sys.executable, '-c', "
        "'import urllib.request; urllib.request.urlopen(\"http://example.com/\", timeout=5)']"
    ),
}


@pytest.mark.parametrize("child", list(CHILDREN))
def test_a_program_the_handler_starts_does_not_leave_either(tmp_path, child):
    _faults.require("curl")
    code = (
        "import subprocess, sys\n"
        f"done = subprocess.run({CHILDREN[child]}, capture_output=True, text=True)\n"
        "assert done.returncode == 0, done.stderr"
    )
    root = param_project(tmp_path / "project", outside=code)
    run = traced(cfngen("invoke", "CREATE", str(request_file(root))), cwd=root)
    assert run.returncode == 1, run.output[-3000:]
    assert "AssertionError" in run.output
    assert run.outside == []


# --------------------------------------------------------------------------- --allow-network

#: An address of this machine off the loopback range, in a network namespace of the test's
#: (on its only interface: no kernel module needed): the handler's server is there, bound to
#: every address, and nothing can leave the namespace.
HERE = "198.18.0.1"
NAMESPACE = f"""\
set -e
ip link set lo up
ip addr add {HERE}/32 dev lo
"$PYTHON" -m http.server 8765 --bind 0.0.0.0 --directory "$SERVED" >/dev/null 2>&1 &
server=$!
trap 'kill $server' EXIT
for _ in $(seq 100); do
  "$PYTHON" -c "import socket; socket.create_connection(('{HERE}', 8765), 1)" 2>/dev/null && break
  sleep 0.1
done
set +e
"$PYTHON" -m "$@"
"""
FETCH = (
    "import urllib.request\n"
    f"body = urllib.request.urlopen('http://{HERE}:8765/greeting.txt', timeout=5).read()\n"
    "assert body == b'hello', body"
)


#: How the handlers are run -> (the module's arguments, its option, its region option).
ENTRIES = {
    "cfngen-invoke": (["cfngen", "invoke", "CREATE", "request.json"], ALLOW, "--region"),
    "pytest-cfngen": (
        ["pytest", "--cfngen", "-p", "no:cacheprovider", "-k", "contract_create_read"],
        "--cfngen-allow-network",
        "--cfngen-region",
    ),
}


@pytest.mark.parametrize("flags", sampled(["", "region", "allow"], {"", "allow"}))
@pytest.mark.parametrize("entry", list(ENTRIES))
def test_only_allow_network_lets_a_handler_reach_a_server_off_loopback(tmp_path, entry, flags):
    root = param_project(tmp_path / "project", outside=FETCH)
    request_file(root)
    served = tmp_path / "served"
    served.mkdir()
    (served / "greeting.txt").write_text("hello")
    _faults.require("ip")
    arguments, allow, region = ENTRIES[entry]
    argv = [*arguments, *{"": [], "region": [region, "eu-west-1"], "allow": [allow]}[flags]]
    result = subprocess.run(
        [_faults.require("unshare"), "-n", "sh", "-c", NAMESPACE, "sh", *argv],
        cwd=root,
        env={**os.environ, "NO_COLOR": "1", "PYTHON": sys.executable, "SERVED": str(served)},
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if flags == "allow":
        assert result.returncode == 0, result.stdout + result.stderr
        assert "SUCCESS" in result.stdout or "1 passed" in result.stdout, result.stdout
    else:
        assert result.returncode == 1, result.stdout + result.stderr
        assert f"cfngen refused a connection to {HERE}:8765" in result.stdout, result.stdout


def test_a_handler_calling_cloudformation_and_cognito_gets_moto_not_a_missing_module(tmp_path):
    """The services whose moto backends need more than moto itself (the test extra's)."""
    code = (
        "session = boto3.Session()\n"
        "session.client('cloudformation').list_exports()\n"
        "session.client('cognito-idp').create_user_pool(PoolName='pool')\n"
        "session.client('glue').create_database(DatabaseInput={'Name': 'db'})"
    )
    root = param_project(tmp_path / "project", outside=code)
    result = run_command("invoke", "CREATE", request_file(root), cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr


# --------------------------------------------------------------------------- `cfn init` projects

#: What the official projects' handlers add to `cfn init`'s: calls through the session proxy.
OFFICIAL_CALLS = 'session.client("cloudformation").list_exports()'


@pytest.mark.oracle
def test_an_official_resource_type_calling_ssm_and_cloudformation_passes_offline(
    tmp_path, oracle_tool
):
    """`cfn init`, the schema and handlers of a real resource type, `cfn generate`'s models:
    every contract test passes offline, and nothing but loopback is in the trace."""
    root = tmp_path / "official"
    root.mkdir()
    cfn = oracle_tool("cfn")
    init = [cfn, "init", "-t", "Acme::Net::Param", "-a", "RESOURCE", "python312", "--no-docker"]
    made = subprocess.run(init, cwd=root, capture_output=True, text=True, check=False)
    assert made.returncode == 0, made.stdout + made.stderr
    schema = json.loads(json.dumps(SCHEMA))
    # OFFICIAL_CALLS runs at import, which the first test's handler (create) pays for.
    schema["handlers"]["create"]["permissions"].append("cloudformation:ListExports")
    (root / "acme-net-param.json").write_text(json.dumps(schema, indent=4))
    made = subprocess.run([cfn, "generate"], cwd=root, capture_output=True, text=True, check=False)
    assert made.returncode == 0, made.stdout + made.stderr
    handlers = HANDLERS.format(
        client=CLIENT_STYLES["session-proxy"], outside="    " + OFFICIAL_CALLS
    )
    (root / "src" / "acme_net_param" / "handlers.py").write_text(handlers)
    inputs = root / "inputs"
    inputs.mkdir()
    for name, value in (
        ("create", {"Name": "one", "Value": "first"}),
        ("update", {"Name": "one", "Value": "second"}),
        ("invalid", {"Name": "Not A Name", "Value": ""}),
    ):
        (inputs / f"inputs_1_{name}.json").write_text(json.dumps(value))
    run = traced(cfngen("test"), cwd=root)
    assert run.returncode == 0, run.output[-3000:]
    assert re.search(r"\b[12][0-9] passed, 0 failed\b", run.stdout), run.output[-3000:]
    assert run.outside == []


@pytest.mark.oracle
def test_an_official_hook_calling_s3_and_cloudformation_passes_offline(tmp_path, oracle_tool):
    """`cfn init -a HOOK` (whose own generate step needs AWS and fails offline, after writing
    the project), then `cfngen generate`: its handlers' session calls go to moto."""
    root = tmp_path / "official"
    root.mkdir()
    init = [oracle_tool("cfn"), "init", "-t", "Acme::Net::Guard", "-a", "HOOK", "python312"]
    subprocess.run([*init, "--no-docker"], cwd=root, capture_output=True, check=False)
    handlers = root / "src" / "acme_net_guard" / "handlers.py"
    made = '            client = session.client("s3")\n'
    assert made in handlers.read_text(), "`cfn init` wrote no hook handlers"
    handlers.write_text(
        handlers.read_text().replace(
            made, made + "            client.list_buckets()\n            " + OFFICIAL_CALLS + "\n"
        )
    )
    generate_project(root)
    # The calls added need permissions the schema `cfn init` wrote lacks: the permission tests
    # say so, and --fix-permissions adds them (then generate makes the role follow).
    fixed = subprocess.run(
        cfngen("test", "--fix-permissions"), cwd=root, capture_output=True, text=True, check=False
    )
    assert "+" in fixed.stderr and "s3:ListAllMyBuckets" in fixed.stderr, fixed.stderr
    generate_project(root)
    run = traced(cfngen("test"), cwd=root)
    assert run.returncode == 0, run.output[-3000:]
    assert re.search(r"\b[1-9][0-9]* passed, 0 failed\b", run.stdout), run.output[-3000:]
    assert run.outside == []


# --------------------------------------------------------------------------- --profile

#: AWS as far as the handler and `--profile` need it: STS's GetCallerIdentity for every query
#: request, `{}` for every JSON one (SSM's PutParameter). It counts what it answered.
FAKE_AWS = """\
import http.server, sys

IDENTITY = (
    "<GetCallerIdentityResponse><GetCallerIdentityResult><Arn>arn:aws:iam::111122223333:user/u"
    "</Arn><UserId>AIDAFAKE</UserId><Account>111122223333</Account></GetCallerIdentityResult>"
    "</GetCallerIdentityResponse>"
)


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        json_protocol = "X-Amz-Target" in self.headers
        body = b"{}" if json_protocol else IDENTITY.encode()
        kind = "application/x-amz-json-1.1" if json_protocol else "text/xml"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        with open(sys.argv[1], "a") as log:
            log.write((self.headers.get("X-Amz-Target") or "sts") + "\\n")


http.server.HTTPServer(("0.0.0.0", 8766), Handler).serve_forever()
"""

PROFILE = f"""\
[profile elsewhere]
region = us-east-1
aws_access_key_id = AKIDCFNGENPROFILE000
aws_secret_access_key = not-a-secret
endpoint_url = http://{HERE}:8766
"""


@pytest.mark.parametrize("allow", [False, True], ids=["", "allow-network"])
def test_profile_lets_only_the_aws_calls_out(tmp_path, allow):
    """With --profile the handler's AWS calls reach the profile's AWS (here a fake one off
    loopback); its own connections still need --allow-network."""
    code = "session.client('sts').get_caller_identity()\n" + FETCH
    root = param_project(tmp_path / "project", outside=code)
    request_file(root)
    served = tmp_path / "served"
    served.mkdir()
    (served / "greeting.txt").write_text("hello")
    (tmp_path / "fake_aws.py").write_text(FAKE_AWS)
    (tmp_path / "config").write_text(PROFILE)
    log = tmp_path / "answered.log"
    script = NAMESPACE.replace(
        "server=$!",
        'server=$!\n"$PYTHON" "$FAKE_AWS" "$LOG" >/dev/null 2>&1 &\nserver="$server $!"',
    ).replace(f"(('{HERE}', 8765)", f"(('{HERE}', 8766)")
    argv = ["cfngen", "invoke", "CREATE", "request.json", "--profile", "elsewhere"]
    result = subprocess.run(
        [_faults.require("unshare"), "-n", "sh", "-c", script, "sh", *argv, *[ALLOW][:allow]],
        cwd=root,
        env={
            **os.environ,
            "NO_COLOR": "1",
            "PYTHON": sys.executable,
            "SERVED": str(served),
            "FAKE_AWS": str(tmp_path / "fake_aws.py"),
            "LOG": str(log),
            "AWS_CONFIG_FILE": str(tmp_path / "config"),
        },
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    answered = log.read_text().split() if log.exists() else []
    # --profile's own GetCallerIdentity, then the handler's.
    assert answered[:2] == ["sts", "sts"], result.stdout + result.stderr
    if allow:
        assert result.returncode == 0, result.stdout + result.stderr
        assert "AmazonSSM.PutParameter" in answered
    else:
        assert result.returncode == 1, result.stdout + result.stderr
        assert f"cfngen refused a connection to {HERE}:8765" in result.stdout
        assert "AWS calls may reach AWS (--profile)" in result.stdout


# --------------------------------------------------------------------------- at import time


def _at_import(root: Path, code: str) -> None:
    """`code` at the top of the handler's module, run when it is imported."""
    template = root / "template.yaml"
    if template.is_file() and "ZipFile: |\n" in template.read_text():
        text = template.read_text()
        template.write_text(
            text.replace("ZipFile: |\n", "ZipFile: |\n" + textwrap.indent(code, " " * 10) + "\n")
        )
        return
    (module,) = [p for p in root.glob("src/**/*.py") if p.name in ("handlers.py", "app.py")]
    module.write_text(code + "\n" + module.read_text())


@pytest.mark.parametrize("kind", sampled(KINDS, {"hook", "inline-cfnresponse"}))
def test_a_call_a_handler_module_makes_when_imported_is_refused_too(tmp_path, kind):
    """Custom resources are imported once before the runner opens, as Lambda's init phase:
    that import is guarded as well."""
    make, arguments = KINDS[kind]
    root = make(tmp_path / "project", "pass")
    _at_import(root, URLOPEN)
    run = traced(cfngen(*arguments(root)), cwd=root)
    assert run.returncode == 1, run.output[-3000:]
    assert "example.com:80" in run.output and ALLOW in run.output, run.output[-3000:]
    assert run.outside == []


def test_a_refusal_crosses_a_worker_pipe_whole():
    """What a worker reports is pickled (cfngen/_contract/_isolate.py)."""
    import pickle

    from cfngen._contract._network import NetworkRefused, network_policy

    refused = NetworkRefused("example.com", 443, network_policy())
    again = pickle.loads(pickle.dumps(refused))
    assert type(again) is NetworkRefused and str(again) == str(refused)
    assert (again.host, again.port) == ("example.com", 443)
