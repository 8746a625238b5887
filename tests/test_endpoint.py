"""Contract tests against an endpoint: `--moto-server` and `--endpoint-url` (issue 25).

The same suite, with the handlers talking HTTP to a moto server instead of the in-process
stubber, gives the same outcome per test as the offline run; a connection trace of the run
shows only loopback. The moto server `--endpoint-url` points at is a process of its own, started
here, as a user starts LocalStack or `moto_server`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_command, sampled
from tests.test_network import CLIENT_STYLES, cfngen, hook_project, param_project, traced

#: A moto server on a free loopback port, its port on the first line of its output.
SERVER = textwrap.dedent(
    """\
    import logging, sys, time
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    from moto.server import ThreadedMotoServer
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    print(server.get_host_and_port()[1], flush=True)
    sys.stdin.read()
    """
)


@contextlib.contextmanager
def moto_server_process(**env: str) -> Iterator[str]:
    """The URL of a moto server in a process of its own (`env`: moto's settings)."""
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        yield f"http://127.0.0.1:{port}"
    finally:
        server.kill()
        server.wait()


@pytest.fixture
def endpoint() -> Iterator[str]:
    with moto_server_process() as url:
        yield url


def server_holds(url: str) -> list[str]:
    """The SSM parameter names the moto server at `url` holds (what the example makes)."""
    import boto3

    client = boto3.session.Session().client(
        "ssm",
        region_name="us-east-1",
        endpoint_url=url,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    pages = client.get_paginator("describe_parameters").paginate()
    return [p["Name"] for page in pages for p in page["Parameters"]]


@pytest.fixture
def example(made_project, tmp_path) -> Path:
    root = tmp_path / "example"
    shutil.copytree(made_project("demo", "--example", git=True), root, symlinks=True)
    return root


def outcomes(stdout: str) -> list[tuple[str, str]]:
    return [(test["name"], test["outcome"]) for test in json.loads(stdout)["tests"]]


def _project(kind: str, example: Path, tmp_path: Path) -> Path:
    return example if kind == "example" else hook_project(tmp_path / "hook")


@pytest.mark.parametrize("kind", ["example", "hook"])
def test_moto_server_and_endpoint_url_give_the_offline_outcomes_over_loopback_only(
    kind, example, tmp_path, endpoint
):
    root = _project(kind, example, tmp_path)
    offline = run_command("test", "--format", "json", cwd=root, process=True)
    assert offline.returncode == 0, offline.stdout[-2000:] + offline.stderr[-2000:]
    expected = outcomes(offline.stdout)
    assert json.loads(offline.stdout)["target"]["kind"] == "moto"

    for flags, target in (
        (["--moto-server"], "moto-server"),
        (["--endpoint-url", endpoint], "endpoint"),
    ):
        run = traced(cfngen("test", "--format", "json", *flags), cwd=root)
        assert run.returncode == 0, run.output[-3000:]
        assert outcomes(run.stdout) == expected
        document = json.loads(run.stdout)
        assert document["target"]["kind"] == target
        assert document["target"]["account_id"] == "123456789012"
        assert document["target"]["time"] == ("simulated" if target == "moto-server" else "real")
        # Where the calls go is said before the first test.
        said = run.stderr.index("cfngen: AWS calls go to ")
        assert said < run.stderr.index("PASSED")
        if target == "endpoint":
            assert endpoint in run.stderr
        assert run.outside == [], run.outside
        assert "EndpointConnectionError" not in run.output
    if kind == "example":
        # Every test deleted what it made, through the delete handler.
        assert server_holds(endpoint) == []


def test_invoke_takes_the_endpoint_too(example, endpoint):
    create = example / "inputs" / "inputs_1_create.json"
    made = run_command("invoke", "CREATE", create, "--endpoint-url", endpoint, cwd=example)
    assert made.returncode == 0, made.stdout + made.stderr
    name = json.loads(create.read_text()).get("Name")
    held = server_holds(endpoint)
    assert held and (name is None or name in held)
    gone = run_command("invoke", "DELETE", create, "--endpoint-url", endpoint, cwd=example)
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert server_holds(endpoint) == []


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--moto-server", "--endpoint-url", "http://127.0.0.1:4566"], "not allowed with"),
        (["--endpoint-url", "localhost:4566"], "not an http(s) URL"),
        (["--endpoint-url", "ftp://localhost:4566"], "not an http(s) URL"),
    ],
    ids=["both", "no-scheme", "not-http"],
)
@pytest.mark.parametrize("command", ["test", "invoke"])
def test_a_bad_target_is_a_usage_error(example, command, flags, said):
    args = [command, *(["CREATE", "inputs/inputs_1_create.json"] if command == "invoke" else [])]
    run = run_command(*args, *flags, cwd=example)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert said in run.stderr


# --------------------------------------------------------------------------- cleanup

#: What READ does instead of reading, planted into the SSM resource of tests/test_network.py:
#: the test fails after its CREATE succeeded, or its worker never gets to clean up.
READ_PLANTS = {
    "fails": 'raise exceptions.InternalFailure("planted read failure")',
    "ends-its-process": "import os; os._exit(3)",
}
READ_LINE = "    value = _get(ssm_client(session), name)\n"


def planted(root: Path, read: str) -> Path:
    param_project(root)
    handlers = root / "src" / "acme_net_param" / "handlers.py"
    text = handlers.read_text()
    assert READ_LINE in text
    handlers.write_text(text.replace(READ_LINE, f"    {read}\n{READ_LINE}"))
    return root


def params_held(url: str) -> list[str]:
    return [name for name in server_holds(url) if name.startswith("/acme/param/")]


@pytest.mark.parametrize("plant", READ_PLANTS)
def test_what_a_failed_test_created_is_deleted_from_the_endpoint(tmp_path, endpoint, plant):
    root = planted(tmp_path / "param", READ_PLANTS[plant])
    run = run_command(
        "test", "--endpoint-url", endpoint, "-k", "create_read", cwd=root, process=True
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "FAILED  contract_create_read" in run.stdout
    assert params_held(endpoint) == []


def test_keep_leaves_what_the_tests_made_and_names_it(tmp_path, endpoint):
    root = planted(tmp_path / "param", READ_PLANTS["fails"])
    run = run_command(
        "test", "--endpoint-url", endpoint, "-k", "create_read", "--keep", cwd=root, process=True
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert params_held(endpoint) == ["/acme/param/one"]
    assert f"--keep: left on {endpoint}: " in run.stdout + run.stderr
    assert '"Name": "one"' in run.stdout + run.stderr


def test_ctrl_c_during_a_run_deletes_what_was_created_and_exits_130(tmp_path, endpoint):
    root = planted(tmp_path / "param", "import time; time.sleep(120)")
    run = subprocess.Popen(
        [*cfngen("test", "--endpoint-url", endpoint, "-k", "create_read")],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    try:
        deadline = time.monotonic() + 60
        while not params_held(endpoint):
            assert run.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        time.sleep(0.5)  # READ is sleeping now
        os.killpg(run.pid, signal.SIGINT)  # what Ctrl-C sends: cfngen and its worker
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    assert run.returncode == 130, out + err
    assert params_held(endpoint) == []


# --------------------------------------------------------------------------- setup and exports

SETUP = """\
Resources:
  Vpc:
    Type: AWS::EC2::VPC
    Properties:
      CidrBlock: 10.0.0.0/16
Outputs:
  VpcId:
    Value: !Ref Vpc
    Export:
      Name: VpcId
"""


def cloudformation(url: str):
    import boto3

    return boto3.session.Session().client(
        "cloudformation",
        region_name="us-east-1",
        endpoint_url=url,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def kept_value(url: str) -> str:
    import boto3

    ssm = boto3.session.Session().client(
        "ssm",
        region_name="us-east-1",
        endpoint_url=url,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    return str(ssm.get_parameter(Name="/acme/param/one")["Parameter"]["Value"])


@pytest.mark.parametrize("source", ["setup", "listed", "flag"])
def test_an_export_placeholder_resolves_from_the_target(tmp_path, endpoint, source):
    root = param_project(tmp_path / "param")
    (root / "inputs" / "inputs_1_create.json").write_text('{"Name": "one", "Value": "{{VpcId}}"}')
    (tmp_path / "setup.yaml").write_text(SETUP)
    args = ["test", "--endpoint-url", endpoint, "-k", "create_read", "--keep"]
    if source == "listed":  # a stack of the user's, already there
        cloudformation(endpoint).create_stack(StackName="theirs", TemplateBody=SETUP)
        (listed,) = cloudformation(endpoint).list_exports()["Exports"]
    else:
        args += ["--setup", str(tmp_path / "setup.yaml")]
    if source == "flag":
        args += ["--export", "VpcId=vpc-given"]
    run = run_command(*args, cwd=root, process=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "cannot look up offline" not in run.stdout + run.stderr
    value = kept_value(endpoint)
    if source == "flag":
        assert value == "vpc-given"
    elif source == "listed":
        assert value == listed["Value"]
    else:
        assert re.fullmatch(r"vpc-[0-9a-f]+", value), value
        # The setup stack is gone, and its export with it.
        stacks = cloudformation(endpoint).describe_stacks()["Stacks"]
        assert [s["StackStatus"] for s in stacks] in ([], ["DELETE_COMPLETE"])
        assert cloudformation(endpoint).list_exports()["Exports"] == []


def test_setup_on_the_moto_server_cfngen_starts(tmp_path):
    root = param_project(tmp_path / "param")
    (root / "inputs" / "inputs_1_create.json").write_text('{"Name": "one", "Value": "{{VpcId}}"}')
    (tmp_path / "setup.yaml").write_text(SETUP)
    run = run_command(
        "test", "--moto-server", "--setup", tmp_path / "setup.yaml", cwd=root, process=True
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "cannot look up offline" not in run.stdout + run.stderr


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        ([], "--setup deploys a stack to the target"),
        (["--moto-server"], "cannot read it"),
    ],
    ids=["offline", "missing-file"],
)
def test_a_setup_that_cannot_run_is_a_usage_error(tmp_path, flags, said):
    root = param_project(tmp_path / "param")
    run = run_command("test", "--setup", tmp_path / "nothing.yaml", *flags, cwd=root)
    assert run.returncode == 2, run.stdout + run.stderr
    assert said in run.stderr
    assert "Traceback" not in run.stderr


def test_arns_in_inputs_follow_the_targets_account(tmp_path):
    """LocalStack's account is 000000000000: an ARN of moto's account in an input (as
    generated inputs and stand-ins hold them) names it instead; another account's is kept."""
    root = param_project(tmp_path / "param")
    value = "arn:aws:sns:us-east-1:123456789012:topic arn:aws:sns:us-east-1:111122223333:other"
    (root / "inputs" / "inputs_1_create.json").write_text(
        json.dumps({"Name": "one", "Value": value})
    )
    with moto_server_process(MOTO_ACCOUNT_ID="000000000000") as url:
        run = run_command(
            "test",
            "--endpoint-url",
            url,
            "-k",
            "create_read",
            "--keep",
            "--format",
            "json",
            cwd=root,
            process=True,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        assert json.loads(run.stdout)["target"]["account_id"] == "000000000000"
        assert kept_value(url) == value.replace("123456789012", "000000000000")


# ------------------------------------------------------- AWS: --profile, --role-arn

#: The profile's secret: no output of any format may show it.
PROFILE_SECRET = "cfngen-profile-s3cret-never-shown"


def aws_profile(tmp_path: Path, url: str) -> dict[str, str]:
    """The environment of a run whose profile `acct` leads to `url`: a stand-in for an AWS
    account (a moto server), reached as AWS is, through the profile."""
    config = tmp_path / "aws-config"
    config.write_text(
        "[profile acct]\nregion = us-east-1\naws_access_key_id = AKIDCFNGENPROFILE000\n"
        f"aws_secret_access_key = {PROFILE_SECRET}\nendpoint_url = {url}\n"
    )
    return {"AWS_CONFIG_FILE": str(config), "AWS_SHARED_CREDENTIALS_FILE": os.devnull}


DELETE_LINE = "        ssm.delete_parameter(Name=PREFIX + name)\n"


ROLE = "arn:aws:iam::111122223333:role/cfngen-tester"


@pytest.mark.parametrize(
    "role,fmt",
    sampled(
        [(None, "json"), (None, "junit"), (ROLE, "json"), (ROLE, "junit")],
        [(None, "junit"), (ROLE, "json")],  # each role and each format once
    ),
)
def test_a_profile_or_role_runs_against_aws_and_never_shows_its_secret(
    tmp_path, endpoint, role, fmt
):
    root = param_project(tmp_path / "param")
    args = ["test", "--profile", "acct", "--yes", "-k", "create_read", "--format", fmt]
    if role is not None:
        args += ["--role-arn", role]
    run = run_command(*args, cwd=root, env=aws_profile(tmp_path, endpoint), process=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert PROFILE_SECRET not in run.stdout + run.stderr
    assert "AWS calls go to AWS" in run.stderr
    assert "account 111122223333" in run.stderr if role else "account 123456789012" in run.stderr
    if fmt == "json":
        document = json.loads(run.stdout)
        assert document["target"]["kind"] == "aws"
        assert document["target"]["time"] == "real"
        assert ("cleanup_leaves_nothing", "passed") in outcomes(run.stdout)


def test_what_list_still_shows_after_the_cleanup_fails_the_run(tmp_path, endpoint):
    """A DELETE that says SUCCESS and deletes nothing: the LIST handler finds the leftover."""
    root = param_project(tmp_path / "param")
    handlers = root / "src" / "acme_net_param" / "handlers.py"
    text = handlers.read_text()
    assert DELETE_LINE in text
    handlers.write_text(text.replace(DELETE_LINE, "        pass\n"))
    run = run_command(
        "test",
        "--profile",
        "acct",
        "--yes",
        "-k",
        "create_read",
        cwd=root,
        env=aws_profile(tmp_path, endpoint),
        process=True,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "FAILED  cleanup_leaves_nothing" in run.stdout
    assert 'LIST still shows 1 resource(s) the run created and deleted: {"Name": "one"}' in (
        run.stdout
    )


@pytest.mark.parametrize(
    "flags",
    [["--profile", "acct"], ["--endpoint-url", "http://localstack.invalid:4566"]],
    ids=["profile", "remote-endpoint"],
)
def test_without_a_terminal_nothing_is_created_off_this_machine_without_yes(
    tmp_path, endpoint, flags
):
    root = param_project(tmp_path / "param")
    run = run_command("test", *flags, cwd=root, env=aws_profile(tmp_path, endpoint), process=True)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "refusing without a terminal to ask on" in run.stderr
    assert "--yes" in run.stderr
    assert params_held(endpoint) == []


def test_a_role_is_assumed_with_sts_as_the_user_names_it():
    """The call cfngen makes for --role-arn, checked with botocore's Stubber: AssumeRole of
    the role given (never another), the session named cfngen-test; no account needed."""
    import boto3
    from botocore.stub import Stubber

    from cfngen._contract._credentials import assumed

    sts = boto3.session.Session().client(
        "sts", region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b"
    )
    role = "arn:aws:iam::444455556666:role/tester"
    with Stubber(sts) as stub:
        stub.add_response(
            "assume_role",
            {
                "Credentials": {
                    "AccessKeyId": "ASIAROLEKEY000000000",
                    "SecretAccessKey": "role-secret",
                    "SessionToken": "role-token",
                    "Expiration": "2030-01-01T00:00:00Z",
                },
                "AssumedRoleUser": {
                    "AssumedRoleId": "AROA:cfngen-test",
                    "Arn": "arn:aws:sts::444455556666:assumed-role/tester/cfngen-test",
                },
            },
            {"RoleArn": role, "RoleSessionName": "cfngen-test"},
        )
        keys, account = assumed(sts, role)
        stub.assert_no_pending_responses()
    assert keys == ("ASIAROLEKEY000000000", "role-secret", "role-token")
    assert account == "444455556666"
    from cfngen import _redact

    assert _redact.scrub("x role-secret y") != "x role-secret y"
    _redact.forget_all()


# --------------------------------------------------------------------------- pytest --cfngen


def pytest_cfngen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--cfngen", "-p", "no:cacheprovider", "-q", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env={**os.environ, "NO_COLOR": "1", "PYTEST_ADDOPTS": ""},
    )


def test_pytest_cfngen_takes_the_same_targets(tmp_path, endpoint):
    root = param_project(tmp_path / "param")
    offline = pytest_cfngen(cwd=root)
    assert offline.returncode == 0, offline.stdout[-3000:]
    summary = re.search(r"\d+ passed.*", offline.stdout)
    assert summary is not None
    for flags in (["--cfngen-moto-server"], ["--cfngen-endpoint-url", endpoint]):
        run = pytest_cfngen(*flags, cwd=root)
        assert run.returncode == 0, run.stdout[-3000:]
        assert summary.group(0).split(" in ")[0] in run.stdout
    assert params_held(endpoint) == []
    refused = pytest_cfngen("--cfngen-endpoint-url", "http://localstack.invalid:4566", cwd=root)
    assert refused.returncode != 0
    assert "--cfngen-yes" in refused.stdout


# --------------------------------------------------------------------------- time

CREATE_START = "    outside(session)\n    model = request.desiredResourceState\n"
WAIT_ONCE = (
    "    if not callback_context:\n"
    "        return ProgressEvent(status=OperationStatus.IN_PROGRESS, resourceModel=model,\n"
    "                             callbackContext={'waited': True}, callbackDelaySeconds=60)\n"
)


def waiting_project(root: Path) -> Path:
    """CREATE asks to be called again in 60 s, once."""
    param_project(root)
    handlers = root / "src" / "acme_net_param" / "handlers.py"
    text = handlers.read_text()
    assert CREATE_START in text
    handlers.write_text(text.replace(CREATE_START, CREATE_START + WAIT_ONCE))
    return root


def timed_on_a_terminal(args: list[str], cwd: Path) -> tuple[int, float, str]:
    """(exit code, seconds, what stderr showed) of `cfngen ARGS` whose stderr is a terminal."""
    import pty

    master, slave = pty.openpty()
    started = time.monotonic()
    run = subprocess.Popen(
        cfngen(*args),
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=slave,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "NO_COLOR": "1"},
    )
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    code = run.wait(timeout=120)
    os.close(master)
    return code, time.monotonic() - started, shown.decode(errors="replace")


def test_a_callback_delay_is_slept_at_an_endpoint_capped_by_max_delay(tmp_path, endpoint):
    root = waiting_project(tmp_path / "param")
    flags = ["-k", "contract_create_create"]
    code, slept, shown = timed_on_a_terminal(
        ["test", "--endpoint-url", endpoint, "--max-delay", "3", *flags], root
    )
    assert code == 0, shown
    assert "re-invoking in 3 s, capped from callbackDelaySeconds 60" in shown
    code, simulated, shown = timed_on_a_terminal(["test", "--moto-server", *flags], root)
    assert code == 0, shown
    assert "re-invoking in" not in shown
    assert slept > 3 and slept - simulated > 2, (slept, simulated)


# --------------------------------------------------------------------------- every client


#: A client made before the run (by the project's conftest), for AWS's own endpoint: the guard
#: moves its requests to the endpoint.
CLIENT_MADE_BEFORE = "client-made-before"


@pytest.mark.parametrize(
    "client",
    # The inner loop: the library's session proxy and the two made before the run (which only
    # the guard moves); CI every style.
    sampled(
        [*sorted(CLIENT_STYLES), CLIENT_MADE_BEFORE],
        ["session-proxy", "made-before", CLIENT_MADE_BEFORE],
    ),
)
def test_every_client_a_handler_can_reach_goes_to_the_endpoint(tmp_path, endpoint, client):
    """Whichever way a handler got its client, one made before the run included, nothing goes
    anywhere but the endpoint."""
    made_before = client in ("made-before", CLIENT_MADE_BEFORE)
    root = param_project(tmp_path / "project", client="made-before" if made_before else client)
    if client == CLIENT_MADE_BEFORE:
        handlers = root / "src" / "acme_net_param" / "handlers.py"
        text = handlers.read_text()
        style = CLIENT_STYLES["made-before"]
        assert style in text
        handlers.write_text(
            text.replace(style, style.replace("SESSION.client('ssm')", "CLIENT")).replace(
                "import SESSION", "import CLIENT"
            )
        )
    if made_before:
        argv = [sys.executable, "-m", "pytest", "--cfngen", "-p", "no:cacheprovider", "-q"]
        argv += ["--cfngen-endpoint-url", endpoint]
    else:
        argv = cfngen("test", "--endpoint-url", endpoint)
    run = traced(argv, cwd=root)
    assert run.returncode == 0, run.output[-3000:]
    assert re.search(r"\b[12][0-9] passed\b", run.output), run.output[-3000:]
    assert run.outside == [], run.outside
    assert params_held(endpoint) == []


def test_seeds_put_into_an_endpoint_are_taken_out_and_a_second_run_works(tmp_path, endpoint):
    """--ssm and --secret go into the endpoint's account for the run, and out again: a second
    run against the same LocalStack-like endpoint finds nothing in its way."""
    import boto3

    root = param_project(tmp_path / "param")
    args = ["test", "--endpoint-url", endpoint, "-k", "create_read"]
    args += ["--ssm", "/cfngen/seed=one", "--secret", "cfngen-seed=two"]
    for _ in range(2):
        run = run_command(*args, cwd=root, process=True)
        assert run.returncode == 0, run.stdout + run.stderr
    secrets = boto3.session.Session().client(
        "secretsmanager",
        region_name="us-east-1",
        endpoint_url=endpoint,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    assert secrets.list_secrets()["SecretList"] == []
    assert server_holds(endpoint) == []
