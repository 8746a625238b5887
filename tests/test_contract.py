"""`cfngen test`: the contract tests, run on real projects.

- the example: what `cfngen init --no-input --example` makes (SSM parameters through the
  session, under moto), made once per session;
- a stub project: what `cfngen init --no-input` makes, its handlers marked `# STUB:`;
- tests/fixtures/contract/store: a correct in-memory resource type; each test below plants one
  contract violation in it by replacing one marked line of handlers.py, and checks that the
  right test catches it;
- tests/fixtures/contract/stub: handlers that raise NotImplementedError.
The two fixtures use the official layout (`cfn generate` models, the runtime library's
Resource); the projects init makes use cfngen's own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cfngen._contract import run_contract_tests
from cfngen._errors import CfngenError, ExitCode
from cfngen._kinds.resource.contract._suite import TEST_NAMES
from tests.conftest import run_command
from tests.test_init_support import made_once

FIXTURES = Path(__file__).parent / "fixtures" / "contract"
STORE_HANDLERS = "src/example_test_store/handlers.py"
SSM_HANDLERS = "src/example_ssm_parameter/handlers.py"
WIDGET_HANDLERS = "src/acme_svc_widget/handlers.py"
MARKER = "    # STUB: not implemented. Replace the TODOs below, then delete this line.\n"
CREATE_STUB = (
    '    """Create the Widget; return it with its identifier and readOnly values."""\n' + MARKER
)


@pytest.fixture(scope="session")
def example(tmp_path_factory) -> Path:
    return made_once(tmp_path_factory, "example", "--example")


@pytest.fixture(scope="session")
def stubs(tmp_path_factory) -> Path:
    return made_once(tmp_path_factory, "widget", "-t", "Acme::Svc::Widget")


def project(tmp_path: Path, source: str | Path, replace: tuple[str, str] | None = None) -> Path:
    """A copy of a fixture project (by name) or of a made one (by path), with one line of its
    handlers replaced."""
    origin = FIXTURES / source if isinstance(source, str) else source
    root = tmp_path / origin.name
    shutil.copytree(origin, root, ignore=shutil.ignore_patterns("__pycache__"))
    if replace is not None:
        (handlers,) = root.glob("src/*/handlers.py")
        text = handlers.read_text()
        old, new = replace
        assert text.count(old) == 1, f"the project no longer has exactly one {old!r}"
        handlers.write_text(text.replace(old, new))
    return root


def outcomes(result) -> dict[str, str]:
    return {test.name: test.outcome for test in result.tests}


def failed(result) -> set[str]:
    return {test.name for test in result.tests if test.outcome == "failed"}


def message(result, name: str) -> str:
    return next(test.message for test in result.tests if test.name == name) or ""


# --------------------------------------------------------------------------- correct projects


def test_the_example_init_makes_passes_every_test_offline(example, tmp_path):
    result = run_contract_tests(project(tmp_path, example))
    assert outcomes(result) == dict.fromkeys(TEST_NAMES, "passed"), [
        (t.name, t.message) for t in result.tests if t.outcome != "passed"
    ]


def test_a_later_run_in_the_same_process_starts_with_motos_backends_imported(example, tmp_path):
    """Each run (each `pytest --cfngen` item) forks a new worker; the moto backends an earlier
    worker imported (SSM's brings EC2's AMI tables, about 0.7 s) are imported before the next
    fork, not again in every worker. A single run imports nothing it would not have."""
    root = project(tmp_path, example)
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from cfngen._contract import run_contract_tests\n"
        "for _ in range(2):\n"
        "    result = run_contract_tests(Path(sys.argv[1]), keyword='contract_create_create')\n"
        "    assert [t.outcome for t in result.tests] == ['passed'], result.tests\n"
        "    print('moto.ssm.models' in sys.modules)\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script, str(root)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "AWS_EC2_METADATA_DISABLED": "true"},
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["False", "True"]


def test_the_correct_store_passes_and_skips_only_tagging(tmp_path):
    result = run_contract_tests(project(tmp_path, "store"))
    assert failed(result) == set()
    skipped = {t.name: t.message for t in result.tests if t.outcome == "skipped"}
    assert skipped == {
        "contract_create_taggable": "the schema has no tagging metadata",
        "contract_update_tag_updatable": "the schema has no tagging metadata",
    }


def test_cli_json_report_has_exactly_the_documented_shape(tmp_path):
    root = project(tmp_path, "store")
    result = run_command("test", "--format", "json", cwd=root)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert set(report) == {"tests", "passed", "failed", "skipped", "warnings", "target"}
    assert (report["passed"], report["failed"], report["skipped"]) == (20, 0, 2)
    assert report["warnings"] == 0
    assert [t["name"] for t in report["tests"]] == list(TEST_NAMES)
    for test in report["tests"]:
        assert set(test) == {
            "name",
            "outcome",
            "message",
            "code",
            "seconds",
            "warnings",
            "warning_codes",
            "transforms",
        }
        assert test["warnings"] == [] and test["transforms"] == []
        assert test["outcome"] in ("passed", "failed", "skipped")
        assert test["message"] is None or isinstance(test["message"], str)
        assert isinstance(test["seconds"], float)
    # Progress goes to stderr while the tests run; stdout holds only the JSON document.
    assert "PASSED  contract_create_read" in result.stderr


def test_cli_text_report_lines_and_summary_share_one_stream_in_order(tmp_path):
    root = project(tmp_path, "store")
    result = run_command("test", cwd=root, process=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    tests = [i for i, line in enumerate(lines) if line.lstrip().startswith(("PASSED", "SKIPPED"))]
    summary = [i for i, line in enumerate(lines) if "22 tests" in line or "20 passed" in line]
    assert len(tests) == 22 and summary, result.stdout
    assert max(tests) < min(summary)
    assert "PASSED" not in result.stderr


# --------------------------------------------------------------------------- planted violations

VIOLATIONS = {
    "identifier missing from the create result": (
        (
            "resourceModel=_model(model.Name))  # RESULT",
            "resourceModel=ResourceModel._deserialize({'Kind': model.Kind}))",
        ),
        "contract_create_delete",
        "has no primaryIdentifier (/Name)",
        {
            "contract_create_create",
            "contract_create_read",
            "contract_create_list",
            "contract_create_delete",
            "contract_create_stabilizes_within_timeout",
            "contract_update_read",
            "contract_update_list",
            "contract_update_not_updatable",
            "contract_delete_create",
            "contract_delete_read",
            "contract_delete_list",
            "contract_delete_update",
            "contract_delete_delete",
        },
    ),
    "a model returned by delete": (
        (
            "return ProgressEvent(status=OperationStatus.SUCCESS)  # DELETED",
            "return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)",
        ),
        "contract_create_delete",
        "DELETE returned SUCCESS with a model",
        {
            "contract_create_delete",
            "contract_delete_create",
            "contract_delete_read",
            "contract_delete_list",
            "contract_delete_update",
            "contract_delete_delete",
        },
    ),
    "a delete that deletes nothing": (
        ("del STORE[model.Name]  # FORGET", "pass"),
        "contract_delete_read",
        "READ returned SUCCESS; expected FAILED (NotFound)",
        {
            "contract_delete_create",
            "contract_delete_read",
            "contract_delete_list",
            "contract_delete_update",
            "contract_delete_delete",
        },
    ),
    "an update that creates": (
        ("if model.Name not in STORE:  # MISSING", "if False:"),
        "contract_update_without_create",
        "UPDATE returned SUCCESS; expected FAILED (NotFound)",
        {"contract_update_without_create", "contract_delete_update"},
    ),
    "a createOnly change accepted": (
        ("for name in CREATE_ONLY:  # CREATE_ONLY", "for name in ():"),
        "contract_update_not_updatable",
        'createOnly /Kind from "small" to "large" was not refused with NotUpdatable',
        {"contract_update_not_updatable"},
    ),
    "a duplicate create accepted": (
        ("if model.Name in STORE:  # DUPLICATE", "if False:"),
        "contract_create_create",
        "CREATE succeeded twice with the same identifier",
        {"contract_create_create"},
    ),
    "a LIST that repeats its token": (
        ("start = int(request.nextToken or 0)  # PAGE", "start = 0"),
        "contract_create_list",
        "LIST returned nextToken '2' again on page 2 (first on page 1)",
        {"contract_create_list", "contract_update_list", "contract_delete_list"},
    ),
    "a writeOnly property returned": (
        (
            'item = {k: v for k, v in STORE[name].items() if k != "Secret"}',
            "item = dict(STORE[name])",
        ),
        "contract_create_read",
        "returned the writeOnly properties /Secret",
        {
            "contract_create_create",
            "contract_create_read",
            "contract_create_list",
            "contract_create_delete",
            "contract_create_stabilizes_within_timeout",
            "contract_update_read",
            "contract_update_list",
            "contract_update_not_updatable",
            "contract_delete_create",
            "contract_delete_read",
            "contract_delete_list",
            "contract_delete_update",
            "contract_delete_delete",
        },
    ),
    "an invalid model accepted": (
        ("    _check(model)\n    if model.Name in STORE:", "    if model.Name in STORE:"),
        "contract_create_invalid",
        "CREATE accepted inputs/inputs_1_invalid.json",
        {"contract_create_invalid"},
    ),
    "a read that answers IN_PROGRESS": (
        (
            "model = request.desiredResourceState  # READ",
            "return ProgressEvent(status=OperationStatus.IN_PROGRESS)",
        ),
        "contract_create_read",
        "READ returned IN_PROGRESS",
        {
            "contract_create_read",
            "contract_create_list",
            "contract_update_read",
            "contract_delete_read",
        },
    ),
}


@pytest.mark.parametrize("violation", VIOLATIONS)
def test_each_planted_violation_is_caught_by_the_right_test(tmp_path, violation):
    replace, test_name, expected_message, expected_failures = VIOLATIONS[violation]
    result = run_contract_tests(project(tmp_path, "store", replace))
    assert expected_message in message(result, test_name)
    assert "rule: " in message(result, test_name)
    assert failed(result) == expected_failures


def test_a_slow_read_fails_on_its_time_limit_without_waiting_for_it(tmp_path):
    root = project(
        tmp_path,
        "store",
        (
            "model = request.desiredResourceState  # READ",
            "model = request.desiredResourceState; __import__('time').sleep(60)",
        ),
    )
    started = time.perf_counter()
    result = run_contract_tests(root, enforce_timeout=0.5)
    elapsed = time.perf_counter() - started
    assert "READ did not return within its 0.5 s limit" in message(result, "contract_create_read")
    # A hung READ is called once: later tests fail at once instead of waiting again.
    assert "READ was not called: it outlived its 0.5 s limit" in message(
        result, "contract_delete_read"
    )
    assert failed(result) == {
        "contract_create_read",
        "contract_create_list",
        "contract_update_read",
        "contract_delete_read",
    }
    assert elapsed < 30, "the run waited for the sleeping handler"


def test_endless_in_progress_is_stopped(tmp_path):
    root = project(
        tmp_path,
        "store",
        (
            "return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=_model(model.Name))"
            "  # RESULT",
            "return ProgressEvent(status=OperationStatus.IN_PROGRESS, resourceModel=model, "
            "callbackContext={'stored': True})",
        ),
    )
    result = run_contract_tests(root, keyword="create_delete", max_reinvoke=5)
    assert (
        "CREATE answered IN_PROGRESS 6 times in a row without a callbackDelaySeconds (at most 5"
        in message(result, "contract_create_delete")
    )
    assert "rule: IN_PROGRESS must end" in message(result, "contract_create_delete")


SLOW = (
    '        LOG.info("item %s is ready", model.Name)',
    "        polls = callback_context.get('polls', 0)\n"
    "        started = callback_context.get('started', __import__('time').time())\n"
    "        if polls < POLLS:  # a slow stabilisation: POLLS callbacks 30 s apart\n"
    "            return ProgressEvent(status=OperationStatus.IN_PROGRESS, resourceModel=model, "
    "callbackContext={'stored': True, 'polls': polls + 1, 'started': started}, "
    "callbackDelaySeconds=30)\n"
    "        assert __import__('time').time() - started >= 30 * polls, 'the clock did not move'\n"
    "        __import__('builtins').cfngen_ready = __import__('time').time()",
)
#: A READ that fails when its clock is behind the end of the CREATE before it.
READ_AFTER = (
    "model = request.desiredResourceState  # READ",
    "model = request.desiredResourceState; assert __import__('time').time() >= "
    "getattr(__import__('builtins'), 'cfngen_ready', 0), 'simulated time went back'",
)


def slow(tmp_path: Path, polls: int, timeout: int) -> Path:
    root = project(tmp_path, "store", (SLOW[0], SLOW[1].replace("POLLS", str(polls))))
    handlers = root / STORE_HANDLERS
    handlers.write_text(handlers.read_text().replace(*READ_AFTER))
    schema_path = root / "example-test-store.json"
    schema = json.loads(schema_path.read_text())
    schema["handlers"]["create"]["timeoutInMinutes"] = timeout
    schema_path.write_text(json.dumps(schema))
    return root


def test_a_slow_but_legal_stabilisation_passes_in_simulated_time(tmp_path):
    """Eighty 30-second callbacks (40 minutes) inside a 60-minute timeout: legal, and tested
    without waiting (the handler checks that its wall clock moved 40 minutes, and the READ
    after it that its clock did not go back)."""
    started = time.perf_counter()
    result = run_contract_tests(slow(tmp_path, 80, 60), keyword="create_stabilizes or create_read")
    assert time.perf_counter() - started < 30
    assert outcomes(result) == {
        "contract_create_read": "passed",
        "contract_create_stabilizes_within_timeout": "passed",
    }, [t.message for t in result.tests]


def test_a_create_that_never_stabilises_fails_on_the_timeout_rule_fast(tmp_path):
    started = time.perf_counter()
    result = run_contract_tests(slow(tmp_path, 10**6, 60), keyword="create_stabilizes")
    assert time.perf_counter() - started < 30
    text = message(result, "contract_create_stabilizes_within_timeout")
    assert "past its timeoutInMinutes (60)" in text
    assert "rule: create, update and delete must finish within the handler's timeoutInMinutes" in (
        text
    )


def test_a_handler_exception_is_shown_with_type_message_and_its_own_lines(tmp_path):
    root = project(
        tmp_path,
        "store",
        (
            "model = request.desiredResourceState  # READ",
            "model = request.desiredResourceState; {}['boom']",
        ),
    )
    result = run_contract_tests(root, keyword="create_read")
    text = message(result, "contract_create_read")
    assert "the READ handler raised KeyError: 'boom'" in text
    assert f"{STORE_HANDLERS}:" in text and "in read_handler" in text
    assert "{}['boom']" in text
    # The runtime library's own traceback of the exception is not repeated.
    assert "Traceback" not in text and "resource.py" not in text


def test_a_model_that_differs_from_the_input_is_shown_side_by_side(tmp_path):
    root = project(
        tmp_path,
        "store",
        (
            'item = {k: v for k, v in STORE[name].items() if k != "Secret"}',
            'item = {k: v for k, v in STORE[name].items() if k != "Secret"}; '
            'item["Size"] = item.get("Size", 0) + 1',
        ),
    )
    result = run_contract_tests(root, keyword="create_read")
    text = message(result, "contract_create_read")
    assert "the model CREATE returned differs from its input" in text
    table = [line.split() for line in text.splitlines() if line.strip().startswith("/Size")]
    assert table == [["/Size", "3", "4"]]


def test_the_example_under_moto_catches_a_delete_that_deletes_nothing(example, tmp_path):
    root = project(tmp_path, example, ("ssm.delete_parameter(Name=name)", "pass"))
    result = run_contract_tests(root)
    assert "READ returned SUCCESS; expected FAILED (NotFound)" in message(
        result, "contract_delete_read"
    )
    assert "delete must fail with NotFound" in message(result, "contract_delete_delete")
    assert failed(result) == {
        "contract_delete_create",
        "contract_delete_read",
        "contract_delete_list",
        "contract_delete_update",
        "contract_delete_delete",
    }


@pytest.mark.parametrize(
    ("planted", "test", "headline"),
    [
        # Tags never applied on create: the inputs hold tags, but the resource has none.
        (
            ('Call("tag", tag),', 'Call("tag", lambda: None),'),
            "contract_create_taggable",
            "the model CREATE returned does not hold the tags it was given",
        ),
        # Tags added by an update never applied: the update succeeds, the tag is missing.
        (
            ("        if changed:\n", "        if False:\n"),
            "contract_update_tag_updatable",
            "the model UPDATE returned does not hold the tags it was given",
        ),
    ],
)
def test_tagging_tests_call_the_handlers(example, tmp_path, planted, test, headline):
    root = project(tmp_path, example, planted)
    result = run_contract_tests(root, keyword=test)
    text = message(result, test)
    assert outcomes(result) == {test: "failed"}, text
    assert headline in text
    assert "rule: " in text and "tags" in text
    assert "/Tags/" in text  # the row names the tag, not the whole map


# --------------------------------------------------------------------------- stubs


def test_a_project_from_init_fails_every_test_as_not_implemented_without_calling(stubs, tmp_path):
    # A call would leave this file behind: the create stub makes it before anything else.
    called = tmp_path / "create-was-called"
    root = project(
        tmp_path,
        stubs,
        (CREATE_STUB, CREATE_STUB + f"    open({str(called)!r}, 'w').close()\n"),
    )
    result = run_command("test", cwd=root)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert not called.exists()
    assert "0 passed, 17 failed, 5 skipped" in result.stdout
    as_json = run_command("test", "--format", "json", cwd=root)
    report = json.loads(as_json.stdout)
    assert set(report) == {"tests", "passed", "failed", "skipped", "warnings", "target"}
    assert (report["passed"], report["failed"], report["skipped"]) == (0, 17, 5)
    assert [t["name"] for t in report["tests"]] == list(TEST_NAMES)
    for test in report["tests"]:
        assert set(test) == {
            "name",
            "outcome",
            "message",
            "code",
            "seconds",
            "warnings",
            "warning_codes",
            "transforms",
        }
        if test["name"].endswith("_permissions"):
            # No handler was called: nothing to judge them on.
            assert test["outcome"] == "skipped"
            continue
        assert test["outcome"] == "failed"
        # One line each: where the stubs are and what to do is said once, in the summary.
        assert "not implemented" in test["message"]
        assert "\n" not in test["message"]
    messages = {t["name"]: t["message"] for t in report["tests"]}
    assert messages["contract_create_create"] == (
        "create_handler is not implemented (the stub `cfngen init` wrote): not called"
    )
    assert messages["contract_delete_list"].startswith(
        "create_handler, delete_handler, list_handler are not implemented"
    )
    lines = (root / WIDGET_HANDLERS).read_text().splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.strip().startswith("# STUB:"))
    where = f"  {WIDGET_HANDLERS}:{line} in create_handler: {MARKER.strip()}"
    for output in (result.stdout + result.stderr, as_json.stderr):
        assert output.count(where) == 1, output
        assert output.count("then delete its STUB line") == 1


def test_a_stub_whose_marker_is_deleted_is_tested_for_real(stubs, tmp_path):
    root = project(tmp_path, stubs)
    handlers = root / WIDGET_HANDLERS
    handlers.write_text(handlers.read_text().replace(CREATE_STUB, CREATE_STUB[: -len(MARKER)]))
    result = run_contract_tests(root, keyword="create_delete or create_invalid or create_read")
    # create runs; read and delete are still stubs.
    assert outcomes(result) == {
        "contract_create_read": "failed",
        "contract_create_delete": "failed",
        "contract_create_invalid": "failed",
    }
    assert "not implemented" in message(result, "contract_create_read")
    assert "create_handler" not in message(result, "contract_create_read").splitlines()[0]
    # The create stub accepts anything, and now it is judged for it.
    assert "CREATE accepted inputs/inputs_1_invalid.json" in message(
        result, "contract_create_invalid"
    )
    handlers.write_text(handlers.read_text().replace(MARKER, ""))
    result = run_contract_tests(root)
    assert not any("not implemented" in (t.message or "") for t in result.tests)
    assert result.count("passed") > 0 and result.count("failed") > 0


@pytest.mark.parametrize("edits", [1, 2], ids=["marker deleted", "deleted and put back"])
def test_a_stub_marker_edited_between_runs_of_one_process_is_seen(stubs, tmp_path, edits):
    """What a handler's source says is read again once the file changed: the markers found
    are kept by file size and mtime for the imports of one run (cfngen/_contract/_entrypoint.py),
    never across an edit."""
    root = project(tmp_path, stubs)
    handlers = root / WIDGET_HANDLERS
    marked = handlers.read_text()

    def run():
        return message(run_contract_tests(root, keyword="create_create"), "contract_create_create")

    assert "not implemented" in run()
    texts = [marked.replace(CREATE_STUB, CREATE_STUB[: -len(MARKER)]), marked][:edits]
    for text in texts:
        handlers.write_text(text)
        found = run()
        assert ("not implemented" in found) == (text == marked), found


def test_a_stub_marker_outside_a_handler_is_not_a_stub(tmp_path):
    root = project(tmp_path, "store")
    handlers = root / STORE_HANDLERS
    handlers.write_text(
        handlers.read_text()
        + '\n\ndef helper():\n    """# STUB: in a docstring"""\n    # STUB: not a handler\n'
    )
    result = run_contract_tests(root, keyword="create_read")
    assert outcomes(result) == {"contract_create_read": "passed"}


def test_a_stub_project_fails_cleanly_with_not_implemented(tmp_path):
    root = project(tmp_path, "stub")
    result = run_command("test", cwd=root)
    assert result.returncode == 1
    assert "internal error" not in result.stderr and "Traceback" not in result.stdout
    report = run_contract_tests(root)
    for test in report.tests:
        if test.outcome == "failed":
            assert "not implemented" in (test.message or ""), test.message
            assert "src/example_test_stub/handlers.py:" in (test.message or "")
    # The permission tests pass: the handlers ran and called nothing.
    assert not [t for t in report.tests if t.outcome == "passed" and "_permissions" not in t.name]
    assert "handler raised NotImplementedError: create_handler is not implemented yet" in (
        result.stdout
    )


@pytest.mark.oracle
def test_an_official_cfn_init_project_runs_and_fails_cleanly(tmp_path, oracle_tool):
    """`cfn init`'s handlers return the request as the result: they break the contract, and
    cfngen must say so without crashing (the official lib Resource and models, unmodified)."""
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
    (root / "inputs").mkdir()
    (root / "inputs" / "inputs_1_create.json").write_text(
        json.dumps({"Title": "A report of twenty chars or more", "TestCode": "NOT_STARTED"})
    )
    result = run_contract_tests(root)
    assert result.count("failed") > 0
    assert "has no primaryIdentifier (/TPSCode)" in message(result, "contract_create_delete")
    assert all("internal error" not in (t.message or "") for t in result.tests)


# --------------------------------------------------------------------------- inputs and selection


def test_k_selects_tests_like_pytest(tmp_path):
    result = run_contract_tests(project(tmp_path, "store"), keyword="delete and not (list or read)")
    assert [t.name for t in result.tests] == [
        "contract_create_delete",
        "contract_delete_create",
        "contract_delete_update",
        "contract_delete_delete",
        "contract_delete_permissions",
    ]


def test_k_that_selects_nothing_is_a_usage_error(tmp_path):
    with pytest.raises(CfngenError, match="selects none of the tests"):
        run_contract_tests(project(tmp_path, "store"), keyword="nothing_like_this")


def test_every_input_set_runs_the_suite_and_is_named(tmp_path):
    root = project(tmp_path, "store")
    (root / "inputs" / "inputs_2_create.json").write_text(
        json.dumps({"Name": "second", "Kind": "large", "Size": 9})
    )
    result = run_contract_tests(root, keyword="create_read")
    assert outcomes(result) == {
        "contract_create_read[inputs_1]": "passed",
        "contract_create_read[inputs_2]": "passed",
    }


def test_a_missing_update_input_skips_the_update_tests(tmp_path):
    root = project(tmp_path, "store")
    (root / "inputs" / "inputs_1_update.json").unlink()
    result = run_contract_tests(root, keyword="update")
    assert {t.outcome for t in result.tests} == {"skipped"}
    assert "inputs_1_update.json is missing" in message(result, "contract_update_read")


def test_tests_for_handlers_the_schema_does_not_declare_are_skipped(tmp_path):
    root = project(tmp_path, "store")
    schema_path = root / "example-test-store.json"
    schema = json.loads(schema_path.read_text())
    del schema["handlers"]["list"]
    schema_path.write_text(json.dumps(schema))
    result = run_contract_tests(root, keyword="list")
    assert {t.name: t.message for t in result.tests} == {
        name: "the schema declares no list handler"
        for name in ("contract_create_list", "contract_update_list", "contract_delete_list")
    }


def _with_exports(root: Path) -> None:
    """Inputs naming CloudFormation exports, as `cfn test` resolves them with ListExports:
    inside a string, as a whole value (unquoted), and with a quote in the value given."""
    inputs = root / "inputs"
    (inputs / "inputs_1_create.json").write_text(
        '{"Name": "{{ItemName}}", "Kind": {{ItemKind}}, "Size": 3, "Secret": "{{Secret}}"}'
    )
    (inputs / "inputs_1_update.json").write_text(
        '{"Name": "{{ItemName}}", "Kind": {{ItemKind}}, "Size": {{NewSize}}}'
    )


def test_exports_in_inputs_take_the_values_given(tmp_path):
    root = project(tmp_path, "store")
    _with_exports(root)
    exports = {"ItemName": "from-export", "ItemKind": "large", "NewSize": 7, "Secret": 'a"b'}
    result = run_contract_tests(root, exports=exports)
    assert failed(result) == set(), [(t.name, t.message) for t in result.tests]
    assert not [note for note in result.notes if "export" in note]


def test_exports_without_values_get_valid_stand_ins_with_a_warning(tmp_path):
    root = project(tmp_path, "store")
    _with_exports(root)
    result = run_contract_tests(root, exports={"ItemName": "given-name"})
    # Stand-ins valid for each property (Kind is an enum, Size an integer 1-100), so the
    # handler is judged, not the placeholders.
    assert failed(result) == set(), [(t.name, t.message) for t in result.tests]
    warned = "\n".join(note for note in result.notes if "CloudFormation export" in note)
    for name in ("ItemKind", "NewSize", "Secret"):
        assert "{{" + name + "}}" in warned
    assert "{{ItemName}}" not in warned
    assert "--export" in warned


def test_cli_takes_export_and_an_exports_file(tmp_path):
    root = project(tmp_path, "store")
    _with_exports(root)
    (tmp_path / "exports.json").write_text('{"ItemName": "from-file", "ItemKind": "small"}')
    result = run_command(
        "test",
        "--exports",
        str(tmp_path / "exports.json"),
        "--export",
        "NewSize=9",
        "--export",
        "Secret=x",
        "-k",
        "create_read",
        cwd=root,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "CloudFormation export" not in result.stdout + result.stderr
    bad = run_command("test", "--exports", str(tmp_path / "missing.json"), cwd=root)
    assert bad.returncode == 2
    assert "missing.json" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_generated_inputs_are_used_without_an_inputs_folder(tmp_path):
    root = project(tmp_path, "store")
    shutil.rmtree(root / "inputs")
    result = run_contract_tests(root)
    # The store cannot see properties its models drop, so a generated invalid input may pass it.
    assert failed(result) <= {"contract_create_invalid"}, [
        (t.name, t.message) for t in result.tests if t.outcome == "failed"
    ]


def test_not_a_project_is_a_usage_error(cli, tmp_path):
    result = cli("test", str(tmp_path))
    assert result.exit_code == 2
    assert "not a project folder" in result.stderr


def test_handler_prints_never_reach_the_json_document(tmp_path):
    root = project(
        tmp_path,
        "store",
        (
            "model = request.desiredResourceState  # READ",
            "model = request.desiredResourceState; print('read says hi')",
        ),
    )
    handlers = root / STORE_HANDLERS
    handlers.write_text(handlers.read_text() + "\nprint('imported!')\n")
    result = run_command("test", "--format", "json", "-k", "create_read", cwd=root, process=True)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["passed"] == 1
    assert "hi" not in result.stdout and "imported!" not in result.stdout


def test_returned_models_are_checked_against_the_schema(tmp_path, monkeypatch):
    """Through cfngen._instances.model_errors (stubbed here by a checker of one rule)."""
    import cfngen._instances

    def model_errors(schema, model, partial=False):
        size = model.get("Size")
        if isinstance(size, int) and size > schema["properties"]["Size"]["maximum"]:
            return [("/Size", f"{size} is greater than the maximum of 100")]
        return []

    monkeypatch.setattr(cfngen._instances, "model_errors", model_errors)
    root = project(
        tmp_path,
        "store",
        (
            'item = {k: v for k, v in STORE[name].items() if k != "Secret"}',
            'item = {k: v for k, v in STORE[name].items() if k != "Secret"}; item["Size"] = 500',
        ),
    )
    result = run_contract_tests(root, keyword="create_read or invalid")
    text = message(result, "contract_create_read")
    assert "which does not match the schema" in text
    assert "/Size: 500 is greater than the maximum of 100" in text
    assert "rule: every model a handler returns must match the resource schema" in text
    # The invalid input really is invalid for the checker, so the test is not skipped.
    assert outcomes(result)["contract_create_invalid"] == "passed"


def test_overrides_apply_to_generated_inputs_as_cfn_test_applies_them(tmp_path, monkeypatch):
    import cfngen._instances
    from cfngen._kinds.resource._view import ResourceSchema
    from cfngen._kinds.resource.contract._inputs import load_input_sets

    generated = {
        "create": {"Name": "gen", "Kind": "small", "Size": 1},
        "update": {"Name": "gen", "Kind": "small", "Size": 2},
        "invalid": {"Name": "gen", "Kind": "huge"},
    }
    monkeypatch.setattr(cfngen._instances, "example_inputs", lambda schema: generated)
    root = project(tmp_path, "store")
    shutil.rmtree(root / "inputs")
    (root / "overrides.json").write_text(
        json.dumps({"CREATE": {"/Name": "fixed", "/Nope/Deep": 1}, "UPDATE": {"/Size": 7}})
    )
    [inputs], notes = load_input_sets(root, ResourceSchema({}))
    assert inputs.create == {"Name": "fixed", "Kind": "small", "Size": 1}
    assert inputs.update == {"Name": "gen", "Kind": "small", "Size": 7}
    assert inputs.invalid == {"Name": "fixed", "Kind": "huge"}
    assert notes == []
    (root / "overrides.json").write_text(json.dumps({"DELETE": {}}))
    [inputs], notes = load_input_sets(root, ResourceSchema({}))
    assert inputs.create == generated["create"]
    assert notes and "overrides.json is ignored" in notes[0]


def test_skips_name_the_input_file_that_is_missing(tmp_path):
    """Item 8.12: a skipped test names the real input (`inputs/inputs_1_update.json`), never
    `None_update.json`."""
    root = project(tmp_path, "store")
    for extra in ("update", "invalid"):
        (root / "inputs" / f"inputs_1_{extra}.json").unlink(missing_ok=True)
    result = run_contract_tests(root)
    messages = [t.message or "" for t in result.tests if t.outcome == "skipped"]
    assert any("inputs/inputs_1_update.json is missing" in m for m in messages), messages
    assert any("inputs/inputs_1_invalid.json is missing" in m for m in messages), messages
    assert not any("None" in m for m in messages), messages


def test_a_missing_generated_input_is_named_as_generated():
    from cfngen._kinds.resource.contract._inputs import InputSet

    message = InputSet(create={}, update=None, invalid=None).missing("update")
    assert "generated from the schema" in message and "inputs/inputs_1_update.json" in message
    assert "None" not in message


@pytest.mark.parametrize("entrypoint", ["os.system", "example_test_stor.handlers.resource"])
def test_a_broken_entrypoint_is_a_usage_error_before_anything_is_imported(
    cli, tmp_path, entrypoint
):
    """Item 8.2: `os.system` (or a typo) must not be imported as the project's handlers."""
    root = project(tmp_path, "store")
    config = json.loads((root / ".rpdk-config").read_text())
    config["entrypoint"] = entrypoint
    (root / ".rpdk-config").write_text(json.dumps(config))
    result = cli("test", cwd=root)
    assert result.exit_code == ExitCode.USAGE, result.stdout + result.stderr
    assert "does not exist" in result.stderr and "Traceback" not in result.stderr


def test_models_older_than_the_schema_are_warned_about(stubs, tmp_path):
    root = project(tmp_path, "store")
    schema, models = root / "example-test-store.json", root / "src/example_test_store/models.py"
    os.utime(models, (1_000_000, 1_000_000))
    result = run_contract_tests(root, keyword="create_read")
    assert result.notes[0].startswith(
        "src/example_test_store/models.py is older than example-test-store.json"
    )
    assert "run `cfngen generate`" in result.notes[0]
    os.utime(schema, (1_000_000, 1_000_000))
    os.utime(models, (2_000_000, 2_000_000))
    assert not any("older than" in n for n in run_contract_tests(root, keyword="create_read").notes)
    # A checkout that only changed the times: the manifest says generate ran on this schema.
    made = project(tmp_path / "made", stubs)
    (models,) = made.glob("src/*/models.py")
    os.utime(models, (1_000_000, 1_000_000))
    assert not any("older than" in n for n in run_contract_tests(made, keyword="create_read").notes)
    schema = made / "acme-svc-widget.json"
    schema.write_text(schema.read_text().replace('"description": "', '"description": "Edited. ', 1))
    assert any("older than" in n for n in run_contract_tests(made, keyword="create_read").notes)


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "inputs_1_create.json",
            '{"Name": "Not Valid!", "Kind": "small"}',
            "inputs/inputs_1_create.json does not match the schema: /Name:",
        ),
        (
            "inputs_1_update.json",
            '{"Name": "first-item", "Kind": "large", "Size": 5}',
            'inputs/inputs_1_update.json changes the createOnly property /Kind ("small" in '
            'inputs/inputs_1_create.json, "large" here)',
        ),
    ],
)
def test_a_user_input_that_breaks_the_schema_is_exit_2_before_any_handler_runs(
    cli, tmp_path, name, text, expected
):
    """Issue 8.11: the input is wrong, not the handler: one message, no test blamed."""
    called = tmp_path / "a-handler-was-called"
    root = project(
        tmp_path,
        "store",
        (
            "    model = request.desiredResourceState  # READ\n",
            f"    open({str(called)!r}, 'w').close()\n    model = request.desiredResourceState\n",
        ),
    )
    (root / "inputs" / name).write_text(text)
    result = cli("test", cwd=root)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert expected in result.stderr
    assert "the input is wrong, not the handler" in result.stderr
    assert "Traceback" not in result.stderr
    assert "FAILED" not in result.stdout and not called.exists()


def test_derived_inputs_follow_a_schema_edit_made_without_generate(stubs, tmp_path):
    """inputs/ that generate wrote and nobody edited are the schema's: after the schema
    changes (no generate yet), the tests use what the schema makes now, with a warning."""
    root = project(tmp_path, stubs)
    schema_path = root / "acme-svc-widget.json"
    schema = json.loads(schema_path.read_text())
    schema["properties"]["Name"]["pattern"] = "^zz[a-z]{3,10}$"
    schema_path.write_text(json.dumps(schema, indent=4))
    from cfngen._instances import example_inputs
    from cfngen._kinds.resource._view import ResourceSchema
    from cfngen._kinds.resource.contract._inputs import load_input_sets

    (inputs,), notes = load_input_sets(root, ResourceSchema(schema, base_dir=root))
    assert inputs.create == example_inputs(schema)["create"]
    assert inputs.create["Name"].startswith("zz")
    assert any("inputs/inputs_1_create.json is out of date" in note for note in notes)
    # An input the user edited is theirs: used as written, and checked.
    (root / "inputs" / "inputs_1_create.json").write_text('{"Name": "zzabc"}')
    (inputs,), notes = load_input_sets(root, ResourceSchema(schema, base_dir=root))
    assert inputs.create == {"Name": "zzabc"} and inputs.user_owned("create")
    assert not inputs.user_owned("update")


def test_a_schema_with_errors_is_named_before_any_handler_runs(cli, tmp_path):
    """The tests trust the schema's shape: one with errors is exit 2, not a crash inside."""
    root = project(tmp_path, "store")
    schema_path = root / "example-test-store.json"
    schema = json.loads(schema_path.read_text())
    schema["properties"] = []
    schema_path.write_text(json.dumps(schema))
    for command in (["test"], ["invoke", "READ", str(root / "inputs" / "inputs_1_create.json")]):
        result = cli(*command, cwd=root)
        assert result.exit_code == 2, result.stdout + result.stderr
        assert "example-test-store.json is not a valid resource schema (/properties:" in (
            result.stderr
        )
        assert "cfngen validate" in result.stderr and "Traceback" not in result.stderr


def test_an_export_named_in_several_inputs_gets_one_stand_in_and_one_warning(tmp_path):
    root = project(tmp_path, "store")
    _with_exports(root)
    result = run_contract_tests(root, keyword="update_read")  # no createOnly change: runs
    assert failed(result) == set(), [(t.name, t.message) for t in result.tests]
    warned = [note for note in result.notes if "{{ItemName}}" in note]
    assert len(warned) == 1
    assert "(inputs/inputs_1_create.json, inputs/inputs_1_update.json)" in warned[0]


def test_a_handler_that_ends_its_process_fails_its_tests_and_the_run_goes_on(tmp_path):
    """`os._exit` kills every thread of its process: handlers run in a worker process, so it
    fails the tests that call that handler, names the call, and the other tests still run."""
    root = project(
        tmp_path,
        "store",
        (
            "model = request.desiredResourceState  # READ",
            "model = request.desiredResourceState; __import__('os')._exit(3)",
        ),
    )
    result = run_contract_tests(root)
    text = message(result, "contract_create_read")
    assert "the handler process exited with status 3 during READ #1" in text
    assert "rule: a handler must return a progress event, never end its process" in text
    assert failed(result) == {
        "contract_create_read",
        "contract_create_list",
        "contract_update_read",
        "contract_delete_read",
    }
    assert [t.name for t in result.tests] == list(TEST_NAMES)
