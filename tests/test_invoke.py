"""`cfngen invoke ACTION REQUEST_FILE` in a project: through the CLI in this process, and as a
separate process where the process is what a test is about (its exit, its environment, state
that must not outlive it)."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CliResult, run_command
from tests.test_init_support import made_once

FIXTURES = Path(__file__).parent / "fixtures" / "contract"
STORE_HANDLERS = "src/example_test_store/handlers.py"


@pytest.fixture(scope="session")
def example(tmp_path_factory) -> Path:
    """What `cfngen init --no-input --example` makes, made once per session."""
    return made_once(tmp_path_factory, "example", "--example")


def project(tmp_path: Path, name: str | Path, replace: tuple[str, str] | None = None) -> Path:
    """A copy of a fixture project (by name) or of a made one (by path), with one line of the
    store's handlers replaced."""
    origin = FIXTURES / name if isinstance(name, str) else name
    root = tmp_path / origin.name
    shutil.copytree(origin, root, ignore=shutil.ignore_patterns("__pycache__"))
    if replace is not None:
        handlers = root / STORE_HANDLERS
        text = handlers.read_text()
        assert text.count(replace[0]) == 1
        handlers.write_text(text.replace(*replace))
    return root


def invoke(
    root: Path,
    action: str,
    request: object,
    *flags: str,
    env: dict[str, str] | None = None,
    process: bool = False,
) -> subprocess.CompletedProcess[str]:
    """`cfngen invoke` as a user runs it: in a separate process when `process` (what the test
    is about ends there: the process, its exit, its environment), else through the CLI in this
    process, which forks the same worker for the handlers and prints the same text."""
    path = root / "request.json"
    path.write_text(request if isinstance(request, str) else json.dumps(request))
    return run_command("invoke", action, path, *flags, cwd=root, env=env, process=process)


def invoke_here(
    cli: Callable[..., CliResult], root: Path, action: str, request: object
) -> CliResult:
    """`invoke` through the CLI in this process: for the usage errors found before any
    handler is imported (the separate process is not what those tests are about)."""
    path = root / "request.json"
    path.write_text(request if isinstance(request, str) else json.dumps(request))
    return cli("invoke", action, path, cwd=root)


def events(stdout: str) -> list[dict]:
    """The progress events printed (each an indented JSON object after a header line)."""
    found, block = [], []
    for line in stdout.splitlines():
        if line == "  {":
            block = [line]
        elif block:
            block.append(line)
            if line == "  }":
                found.append(json.loads("\n".join(block)))
                block = []
    return found


def test_create_on_a_hand_written_request_stabilises_and_succeeds(example, tmp_path):
    root = project(tmp_path, example)
    request = {
        "desiredResourceState": {"Name": "/demo/param", "Value": "v1", "Tags": {"team": "a"}},
        "previousResourceState": None,
        "logicalResourceIdentifier": "Param",
    }
    result = invoke(root, "CREATE", request, "--max-delay", "0.1")
    assert result.returncode == 0, result.stdout + result.stderr
    # moto's SSM reads a new parameter back at once: the example's steps finish in one call
    statuses = [event["status"] for event in events(result.stdout)]
    assert statuses == ["SUCCESS"]
    final = events(result.stdout)[-1]["resourceModel"]
    assert final["Arn"] == "arn:aws:ssm:us-east-1:123456789012:parameter/demo/param"
    assert (final["Version"], final["Tags"]) == (1, {"team": "a"})
    # The handler's own log lines.
    assert "| INFO example_ssm_parameter.handlers: creating parameter /demo/param" in result.stdout
    assert "CREATE succeeded" in result.stderr


def test_in_progress_is_re_invoked_after_the_capped_delay(tmp_path):
    root = project(tmp_path, "store")
    request = {"desiredResourceState": {"Name": "a", "Kind": "small"}}
    started = time.perf_counter()
    result = invoke(root, "CREATE", request, "--max-delay", "20")
    assert result.returncode == 0, result.stdout + result.stderr
    assert [event["status"] for event in events(result.stdout)] == ["IN_PROGRESS", "SUCCESS"]
    # Offline the 30 s callback delay is simulated time: never slept, whatever --max-delay says.
    assert "re-invoking after callbackDelaySeconds 30 (simulated time, not slept)" in result.stdout
    assert time.perf_counter() - started < 20


def test_a_failed_action_exits_1_with_its_error_code(tmp_path):
    root = project(tmp_path, "store")
    result = invoke(root, "READ", {"desiredResourceState": {"Name": "nope"}})
    assert result.returncode == 1
    assert events(result.stdout)[-1]["errorCode"] == "NotFound"
    assert "READ failed: NotFound: Resource of type 'Example::Test::Store'" in result.stderr
    # The runtime library prints a traceback for every handler error: not shown.
    assert "Traceback" not in result.stdout


def test_list_receives_the_next_token_through_the_runtime_librarys_entrypoint(tmp_path):
    root = project(tmp_path, "store")
    first = invoke(root, "LIST", {"desiredResourceState": {}})
    second = invoke(root, "LIST", {"desiredResourceState": {}, "nextToken": "2"})
    assert [m["Name"] for m in events(first.stdout)[-1]["resourceModels"]] == ["seed-0", "seed-1"]
    assert events(first.stdout)[-1]["nextToken"] == "2"
    assert [m["Name"] for m in events(second.stdout)[-1]["resourceModels"]] == ["seed-2"]


def test_a_handler_exception_shows_type_message_and_the_handlers_own_lines(tmp_path):
    root = project(tmp_path, "stub")
    result = invoke(root, "CREATE", {"desiredResourceState": {"Name": "x"}})
    assert result.returncode == 1
    assert "handler raised NotImplementedError: create_handler is not implemented yet" in (
        result.stdout
    )
    assert "src/example_test_stub/handlers.py:23 in create_handler" in result.stdout
    assert 'raise NotImplementedError("create_handler is not implemented yet")' in result.stdout
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr


def test_a_stub_of_cfngen_init_still_runs_with_a_note(tmp_path_factory, tmp_path):
    root = project(tmp_path, made_once(tmp_path_factory, "widget", "-t", "Acme::Svc::Widget"))
    result = invoke(root, "CREATE", {"desiredResourceState": {"Name": "w"}})
    assert result.returncode == 0, result.stdout + result.stderr
    assert events(result.stdout)[-1]["resourceModel"]["Name"] == "w"
    (note,) = [line for line in result.stderr.splitlines() if "stub" in line]
    assert "create_handler is still the stub `cfngen init` wrote " in note
    assert "(src/acme_svc_widget/handlers.py:" in note


def test_a_hung_handler_is_stopped_at_its_time_limit(tmp_path):
    root = project(
        tmp_path,
        "store",
        (
            "model = request.desiredResourceState  # READ",
            "model = request.desiredResourceState; __import__('time').sleep(120)",
        ),
    )
    started = time.perf_counter()
    result = invoke(
        root, "READ", {"desiredResourceState": {"Name": "seed-0"}}, "--enforce-timeout", "0.5"
    )
    assert time.perf_counter() - started < 60
    assert result.returncode == 1
    assert "READ #1 -> no answer within 0.5 s" in result.stdout
    assert "READ did not finish: READ did not return within its 0.5 s limit" in result.stderr


ENDLESS = (
    "return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=_model(model.Name))"
    "  # RESULT",
    "return ProgressEvent(status=OperationStatus.IN_PROGRESS, resourceModel=model, "
    "callbackContext={'stored': True}, callbackDelaySeconds=DELAY)",
)


def endless(tmp_path: Path, delay: int) -> Path:
    return project(tmp_path, "store", (ENDLESS[0], ENDLESS[1].replace("DELAY", str(delay))))


def test_endless_in_progress_without_a_delay_stops_at_max_reinvoke(tmp_path):
    result = invoke(
        endless(tmp_path, 0),
        "CREATE",
        {"desiredResourceState": {"Name": "n", "Kind": "small"}},
        "--max-reinvoke",
        "3",
    )
    assert result.returncode == 1
    assert len(events(result.stdout)) == 5
    assert "CREATE answered IN_PROGRESS 4 times in a row without a callbackDelaySeconds" in (
        result.stderr
    )


def test_in_progress_with_a_delay_stops_past_the_timeout_in_simulated_time(tmp_path):
    root = endless(tmp_path, 30)
    schema_path = root / "example-test-store.json"
    schema = json.loads(schema_path.read_text())
    schema["handlers"]["create"]["timeoutInMinutes"] = 10
    schema_path.write_text(json.dumps(schema))
    started = time.perf_counter()
    result = invoke(root, "CREATE", {"desiredResourceState": {"Name": "n", "Kind": "small"}})
    assert time.perf_counter() - started < 30
    assert result.returncode == 1
    # 10 minutes of 30 s callbacks: the 20th answer asks for a wait past the timeout.
    assert len(events(result.stdout)) == 20
    assert "past its timeoutInMinutes (10)" in result.stderr
    assert "FAILED with NotStabilized" in result.stderr


def test_max_invocations_caps_the_calls_of_one_action(tmp_path):
    result = invoke(
        endless(tmp_path, 1),
        "CREATE",
        {"desiredResourceState": {"Name": "n", "Kind": "small"}},
        "--max-invocations",
        "7",
    )
    assert result.returncode == 1
    assert len(events(result.stdout)) == 7
    assert "CREATE was called 7 times without finishing (at most 7 calls per action" in (
        result.stderr
    )


def test_the_machines_aws_credentials_are_never_used(tmp_path):
    root = project(
        tmp_path,
        "store",
        (
            "model = request.desiredResourceState  # READ",
            "model = request.desiredResourceState; LOG.info('keys %s %s', "
            "session.session.get_credentials().access_key, "
            "__import__('boto3').session.Session().get_credentials().access_key)",
        ),
    )
    home = tmp_path / "home"
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text(
        "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = FILESECRET\n"
    )
    result = invoke(
        root,
        "READ",
        {"desiredResourceState": {"Name": "seed-0"}},
        env={
            "AWS_ACCESS_KEY_ID": "REALKEY",
            "AWS_SECRET_ACCESS_KEY": "REALSECRET",
            "AWS_PROFILE": "default",
            "HOME": str(home),
        },
        process=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    log = next(line for line in result.stdout.splitlines() if "keys " in line)
    assert "REALKEY" not in log and "FILEKEY" not in log
    assert "REALKEY" not in result.stdout and "REALSECRET" not in result.stdout


@pytest.mark.oracle
def test_an_official_cfn_init_project_can_be_invoked(tmp_path, oracle_tool):
    root = tmp_path / "official"
    root.mkdir()
    init = subprocess.run(
        [
            oracle_tool("cfn"),
            "init",
            "-t",
            "Acme::Test::Thing",
            "-a",
            "RESOURCE",
            "python312",
            "--no-docker",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert init.returncode == 0, f"the official `cfn init` failed: {init.stderr[-300:]}"
    result = invoke(
        root, "CREATE", {"desiredResourceState": {"Title": "t", "TestCode": "CANCELLED"}}
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert events(result.stdout)[-1]["resourceModel"] == {"Title": "t", "TestCode": "CANCELLED"}


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("{not json", "invalid JSON"),
        ("[]", "expected a JSON object"),
        ('{"desiredResourceState": 5}', "desiredResourceState must be a JSON object or null"),
        ('{"nextToken": 5}', "nextToken must be a string"),
        ('{"desiredResourceState": {"Name": ' + "9" * 5000 + "}}", "a number is too long"),
        # Within the JSON reader's limit, but deep enough to exhaust the stack when copied.
        (
            '{"desiredResourceState": {"Name": ' + "[" * 900 + "]" * 900 + "}}",
            "nested deeper than 200 levels at /desiredResourceState/Name/0/0",
        ),
    ],
)
def test_a_bad_request_file_is_a_usage_error(cli, tmp_path, request_text, expected):
    result = invoke_here(cli, project(tmp_path, "store"), "READ", request_text)
    assert result.exit_code == 2
    assert expected in result.stderr
    assert "Traceback" not in result.stderr


def test_unknown_request_keys_are_warned_about(tmp_path):
    result = invoke(
        project(tmp_path, "store"),
        "READ",
        {"desiredResourceState": {"Name": "seed-1"}, "desiredResourcestate": {}},
    )
    assert result.returncode == 0
    assert "ignored unknown key 'desiredResourcestate'" in result.stderr


def test_an_unknown_action_is_a_usage_error(cli, tmp_path):
    result = invoke_here(cli, project(tmp_path, "store"), "DESTROY", {})
    assert result.exit_code == 2
    assert "unknown action 'DESTROY'" in result.stderr


def test_missing_models_say_what_to_do(tmp_path):
    root = project(tmp_path, "store")
    (root / "src" / "example_test_store" / "models.py").unlink()
    result = invoke(root, "READ", {"desiredResourceState": {"Name": "seed-1"}})
    assert result.returncode == 2
    assert "cannot import example_test_store.handlers" in result.stderr
    assert "cfngen generate" in result.stderr


def test_output_while_importing_the_handlers_is_shown(tmp_path):
    root = project(tmp_path, "store")
    handlers = root / STORE_HANDLERS
    handlers.write_text(handlers.read_text() + "\nprint('loading the store')\n")
    result = invoke(root, "READ", {"desiredResourceState": {"Name": "seed-0"}}, process=True)
    assert result.returncode == 0
    assert "output while importing the handlers:\n  | loading the store" in result.stdout


def test_an_unknown_profile_is_a_usage_error_without_touching_aws(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    result = invoke(
        project(tmp_path, "store"),
        "READ",
        {"desiredResourceState": {"Name": "seed-0"}},
        "--profile",
        "nosuchprofile",
        env={"HOME": str(home)},
    )
    assert result.returncode == 2
    assert "AWS profile 'nosuchprofile' not found" in result.stderr


def test_a_handler_module_that_does_not_import_says_where(tmp_path):
    root = project(tmp_path, "store")
    handlers = root / STORE_HANDLERS
    handlers.write_text(handlers.read_text() + "\ndef broken(:\n")
    result = invoke(root, "READ", {"desiredResourceState": {"Name": "seed-0"}})
    assert result.returncode == 1
    assert "importing example_test_store.handlers failed: SyntaxError" in result.stderr
    assert "handlers.py:" in result.stderr and "def broken(:" in result.stderr
    assert "importlib" not in result.stderr


def test_exports_in_a_request_take_given_values_or_valid_stand_ins(tmp_path):
    root = project(tmp_path, "store")
    request = '{"desiredResourceState": {"Name": "{{ItemName}}", "Kind": {{ItemKind}}}}'
    result = invoke(root, "CREATE", request, "--export", "ItemName=from-export")
    assert result.returncode == 0, result.stdout + result.stderr
    model = events(result.stdout)[-1]["resourceModel"]
    assert model["Name"] == "from-export"
    assert model["Kind"] in ("small", "large")  # a value the schema's enum allows
    assert "{{ItemKind}} (request.json) is a CloudFormation export" in result.stderr
    assert "{{ItemName}}" not in result.stderr


def test_invoke_says_that_state_does_not_persist_between_runs(tmp_path):
    root = project(tmp_path, "store")
    created = invoke(
        root, "CREATE", {"desiredResourceState": {"Name": "fresh", "Kind": "small"}}, process=True
    )
    assert created.returncode == 0, created.stdout + created.stderr
    assert "state does not persist between runs" in created.stderr
    # The store keeps items in memory: a later run cannot find the one created above.
    read = invoke(root, "READ", {"desiredResourceState": {"Name": "fresh"}}, process=True)
    assert read.returncode == 1
    assert "a CREATE of an earlier run is gone" in read.stderr
    # A run that finds what it looks for says nothing about it.
    seeded = invoke(root, "READ", {"desiredResourceState": {"Name": "seed-1"}})
    assert seeded.returncode == 0
    assert "persist" not in seeded.stderr


def test_a_handler_that_ends_its_process_is_reported_not_fatal(tmp_path):
    root = project(
        tmp_path,
        "store",
        (
            "model = request.desiredResourceState  # READ",
            "model = request.desiredResourceState; __import__('os')._exit(3)",
        ),
    )
    result = invoke(root, "READ", {"desiredResourceState": {"Name": "seed-0"}}, process=True)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "READ did not finish: the handler process exited with status 3 during READ #1" in (
        result.stderr
    )
    assert "Traceback" not in result.stderr


# ----------------------------------------------------------------- the files a user has at hand


@pytest.fixture(scope="session")
def hook_example(tmp_path_factory) -> Path:
    return made_once(tmp_path_factory, "hook-example", "--artifact-type", "hook", "--example")


@pytest.fixture(scope="session")
def custom_resource(tmp_path_factory) -> Path:
    return made_once(tmp_path_factory, "plugin-custom", "--artifact-type", "custom-resource")


#: kind, made project, ACTION, the request file (a path in the project, or JSON to write),
#: the note that says how it was read (None: nothing to say), the exit code.
AT_HAND = [
    # inputs/ of a resource type hold a model's properties, not a request.
    ("resource", "example", "CREATE", "inputs/inputs_1_create.json", "not a request", 0),
    # An update of a fresh (moto) account finds nothing: the handler's own NotFound.
    ("resource", "example", "UPDATE", "inputs/inputs_1_update.json", "not a request", 1),
    ("resource", "example", "CREATE", {"Name": "/bare", "Value": "v"}, "not a request", 0),
    # A hook's inputs file maps each target to its document: every target runs.
    ("hook", "hook_example", "preCreate", "inputs/inputs_1_pre_create.json", None, 0),
    ("hook", "hook_example", "preUpdate", "inputs/inputs_1_pre_update.json", None, 0),
    ("hook", "hook_example", "preCreate", None, "not targets", 1),
    ("hook", "hook_example", "preCreate", {"AWS::S3::Bucket": {"BucketName": "b"}}, "maps", 1),
    # A custom resource's request file may be its ResourceProperties.
    ("custom-resource", "custom_resource", "Create", {"Name": "You"}, None, 0),
    # ... or the inputs file `cfngen test` reads: its "create" properties.
    ("custom-resource", "custom_resource", "Create", "custom-resource-inputs.json", "read as", 0),
]


@pytest.mark.parametrize(
    ("kind", "made", "action", "request_file", "note", "code"),
    AT_HAND,
    ids=[f"{row[0]}-{row[2]}-{i}" for i, row in enumerate(AT_HAND)],
)
def test_invoke_takes_the_file_a_user_has_at_hand(
    request, tmp_path, *, kind, made, action, request_file, note, code
):
    root = project(tmp_path, request.getfixturevalue(made))
    if request_file is None:  # a bucket's bare properties, for the hook's one target type
        request_file = {"BucketName": "bare-bucket"}
    if isinstance(request_file, str):
        result = run_command("invoke", action, request_file, cwd=root)
    else:
        result = invoke(root, action, request_file)
    output = result.stdout + result.stderr
    assert result.returncode == code, output
    assert "Traceback" not in output and "AttributeError" not in output
    if note is not None:
        (line,) = [line for line in result.stderr.splitlines() if note in line]
        assert line.startswith("cfngen: warning: ")
    assert events(result.stdout), output  # the handler ran and answered


def test_every_target_of_a_hooks_inputs_file_runs(hook_example, tmp_path):
    root = project(tmp_path, hook_example)
    result = run_command("invoke", "preCreate", "inputs/inputs_1_pre_create.json", cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr
    verdicts = [line for line in result.stderr.splitlines() if "SUCCESS (compliant)" in line]
    assert verdicts == [
        "cfngen: CREATE_PRE_PROVISION AWS::S3::Bucket: SUCCESS (compliant)",
        "cfngen: CREATE_PRE_PROVISION STACK: SUCCESS (compliant)",
    ]


def test_bare_properties_for_a_hook_with_several_target_types_say_what_to_write(
    hook_example, tmp_path, cli
):
    root = project(tmp_path, hook_example)
    schema_path = next(root.glob("*-*-*.json"))
    schema = json.loads(schema_path.read_text())
    schema["handlers"]["preCreate"]["targetNames"].append("AWS::SQS::Queue")
    schema_path.write_text(json.dumps(schema))
    result = invoke_here(cli, root, "preCreate", {"BucketName": "b"})
    assert result.exit_code == 2
    assert "holds properties, but not the target they are for" in result.stderr
    assert '{"AWS::S3::Bucket": {"resourceProperties": {...}}}' in result.stderr


# ----------------------------------------------------------------- what a handler returns


def _answer_with(root: Path, function: str, body: str) -> tuple[str, int, int]:
    """Make `function` in the project's handlers.py start with `body`; its file (relative to
    the project), the line of its `def` and the line of `body`."""
    (handlers,) = [p for p in (root / "src").rglob("handlers.py")]
    lines = handlers.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"def {function}("))
    end = next(i for i in range(start, len(lines)) if lines[i].rstrip().endswith(":"))
    lines.insert(end + 1, f"    {body}")
    handlers.write_text("\n".join(lines) + "\n")
    return handlers.relative_to(root).as_posix(), start + 1, end + 2


#: A project of each shape: the runtime library alone, cfngen's runtime, a hook.
SHAPES = [
    ("store", "CREATE", "create_handler", {"desiredResourceState": {"Name": "a", "Kind": "small"}}),
    ("example", "CREATE", "create_handler", {"desiredResourceState": {"Name": "/a", "Value": "v"}}),
    (
        "hook_example",
        "preCreate",
        "pre_create_handler",
        {"AWS::S3::Bucket": {"resourceProperties": {}}},
    ),
]
RETURNS = [
    ("return None", "returned None; it must return a ProgressEvent"),
    ('return {"status": "SUCCESS"}', "returned a dict ({'status': 'SUCCESS'}); it must return"),
    ('return "SUCCESS"', "returned a str ('SUCCESS'); it must return a ProgressEvent"),
    ('raise ValueError("boom")', "handler raised ValueError: boom"),
]


@pytest.mark.parametrize(("returned", "said"), RETURNS, ids=["None", "dict", "str", "raises"])
@pytest.mark.parametrize(
    ("shape", "action", "function", "request_body"), SHAPES, ids=[s[0] for s in SHAPES]
)
def test_a_handler_that_returns_no_progress_event_is_named_with_its_line(
    request, tmp_path, *, shape, action, function, request_body, returned, said
):
    origin = shape if shape == "store" else request.getfixturevalue(shape)
    root = project(tmp_path, origin)
    path, def_line, body_line = _answer_with(root, function, returned)
    result = invoke(root, action, request_body)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert said in result.stdout, output
    # A crash where it was raised; a return value where the function is.
    where = f"{path}:{body_line if returned.startswith('raise') else def_line} in {function}"
    assert where in result.stdout, output
    # Not the runtime library's words, nor its traceback.
    assert "has no attribute 'status'" not in output and "Traceback" not in output


JSON_RUNS = [
    ("store", "READ", {"desiredResourceState": {"Name": "seed-0"}}, 0, "status", "SUCCESS"),
    ("store", "READ", {"desiredResourceState": {"Name": "nope"}}, 1, "status", "FAILED"),
    ("hook_example", "preCreate", {"BucketName": "b"}, 1, "hookStatus", "FAILED"),
    ("custom_resource", "Create", {"Name": "You"}, 0, "Status", "SUCCESS"),
]


@pytest.mark.parametrize(
    ("shape", "action", "request_body", "code", "key", "status"),
    JSON_RUNS,
    ids=[f"{row[0]}-{row[2 - 1]}-{row[3]}" for row in JSON_RUNS],
)
def test_invoke_format_json_gives_the_response_as_an_object(
    request, tmp_path, *, shape, action, request_body, code, key, status
):
    origin = shape if shape == "store" else request.getfixturevalue(shape)
    root = project(tmp_path, origin)
    result = invoke(root, action, request_body, "--format", "json")
    assert result.returncode == code, result.stdout + result.stderr
    document = json.loads(result.stdout)  # stdout holds the document alone
    assert document["response"][key] == status
    assert document["succeeded"] is (code == 0)
    assert document["invocations"][-1]["response"] == document["response"]
    # The calls as text went to stderr.
    assert "#1 ->" in result.stderr or "request:" in result.stderr
