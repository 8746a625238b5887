"""How projects get the runtime library's steps (cfngen_runtime/, cfngen_aws.py in earlier
versions) and what they need from them: generate writes the package beside
models.py, models.py declares the reserved callback-context key and each handler's timeout,
and validate and generate refuse a callback context that takes the reserved key."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cfngen._errors import CfngenError, ExitCode
from cfngen._generate import generate_project
from cfngen._models import render_models
from cfngen._support import STATE_KEY, package_files, shim
from cfngen._support.cfngen_runtime import steps, waiters
from cfngen._timeouts import handler_timeouts
from cfngen._validate import validate_file, validate_paths
from tests._generate_helpers import make_project, snapshot_tree, widget_schema

ROOT = Path(__file__).resolve().parent.parent


def test_the_reserved_key_is_the_modules():
    assert STATE_KEY == steps.STATE_KEY


# --------------------------------------------------------------------------- timeouts


@pytest.mark.parametrize(
    ("handlers", "expected"),
    [
        (None, {}),
        ({}, {}),
        ({"delete": {}, "create": {"timeoutInMinutes": 30}}, {"create": 30, "delete": 120}),
        ({"list": {}, "update": {"timeoutInMinutes": 2160}}, {"update": 2160, "list": 120}),
        ({"create": {"timeoutInMinutes": "30"}}, {"create": 120}),
        ({"create": {"timeoutInMinutes": True}}, {"create": 120}),
        ({"create": "nonsense", "read": {}}, {"read": 120}),
    ],
)
def test_handler_timeouts(handlers, expected):
    schema = {} if handlers is None else {"handlers": handlers}
    assert handler_timeouts(schema) == expected
    assert list(handler_timeouts(schema)) == list(expected)


# --------------------------------------------------------------------------- models.py


@pytest.fixture
def generated(tmp_path: Path) -> Iterator[Any]:
    """models.py and the runtime library rendered for a schema, imported as the package `gen`
    (the steps through the shim that stands for cfngen_aws.py of earlier versions)."""
    loaded: list[str] = []

    def load(schema: dict[str, Any], callback_context: dict[str, Any] | None) -> Any:
        package = tmp_path / "gen"
        package.mkdir(exist_ok=True)
        (package / "__init__.py").write_text("")
        for name, text in render_models(schema, callback_context).items():
            (package / name).parent.mkdir(exist_ok=True)
            (package / name).write_text(text)
        (package / "cfngen_aws.py").write_text(shim("cfngen_aws.py"))
        sys.path.insert(0, str(tmp_path))
        loaded.append("gen")
        return importlib.import_module("gen.models"), importlib.import_module("gen.cfngen_aws")

    yield load
    sys.path.remove(str(tmp_path))
    for name in [n for n in sys.modules if n == "gen" or n.startswith("gen.")]:
        del sys.modules[name]


CONTEXT = {"type": "object", "properties": {"Attempts": {"type": "integer"}}}


def test_models_declare_the_handler_timeouts_and_the_reserved_key(generated):
    schema = widget_schema(
        handlers={
            "create": {"permissions": ["s3:PutObject"], "timeoutInMinutes": 45},
            "read": {"permissions": ["s3:GetObject"]},
        }
    )
    models, _ = generated(schema, CONTEXT)
    assert models.TIMEOUT_MINUTES == {"create": 45, "read": 120}
    fields = list(models.CallbackContext.__dataclass_fields__)
    assert fields == ["Attempts", STATE_KEY]
    state = {"step": "wait", "deadline": 1.5, "progress": {"polls": 3, "last": "x"}}
    context = models.CallbackContext._deserialize({"Attempts": 2, STATE_KEY: state})
    assert context._serialize() == {"Attempts": 2, STATE_KEY: state}


def test_a_user_property_of_the_reserved_name_never_reaches_the_models():
    text = render_models(
        widget_schema(), {"properties": {STATE_KEY: {"type": "integer"}, "A": {"type": "string"}}}
    )["models.py"]
    assert f"    {STATE_KEY}: dict[str, Any] | None = None" in text
    assert f"{STATE_KEY}: int" not in text


class Clock(waiters.Clock):
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def time(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_steps_answer_the_same_with_the_typed_context_and_the_plain_dict(generated):
    models, aws = generated(widget_schema(), CONTEXT)

    def run(typed: bool) -> list[dict[str, Any]]:
        clock, polls, events = Clock(), [0], []

        def refresh() -> tuple[Any, str]:
            polls[0] += 1
            return {}, "ready" if polls[0] > 12 else "pending"

        def count(context: Any) -> None:
            if typed:
                context.Attempts = (context.Attempts or 0) + 1
            else:
                context["Attempts"] = context.get("Attempts", 0) + 1

        raw: dict[str, Any] = {}
        while True:
            context = models.CallbackContext._deserialize(raw) if typed else raw
            steps = aws.Steps(
                aws.Call("count", lambda c=context: count(c)),
                aws.Waiter(refresh, pending=["pending"], target=["ready"]),
            )
            event = json.loads(json.dumps(steps.run(context, None, clock=clock)._serialize()))
            events.append(event)
            if event["status"] != "IN_PROGRESS":
                return events
            clock.now += event["callbackDelaySeconds"]
            raw = event["callbackContext"]

    typed, plain = run(typed=True), run(typed=False)
    assert typed == plain
    assert len(typed) > 2 and typed[-1]["status"] == "SUCCESS"
    assert typed[0]["callbackContext"]["Attempts"] == 1  # the user's own field is kept


# --------------------------------------------------------------------------- generate


def test_generate_writes_the_module_verbatim_beside_models(tmp_path, monkeypatch):
    monkeypatch.setenv("CFNGEN_NO_FORK", "1")
    root = make_project(tmp_path / "p", widget_schema())
    generate_project(root)
    for relpath, text in package_files().items():
        written = (root / "src/acme_test_widget" / relpath).read_text()
        header, body = written.split("\n", 1)
        assert "Generated by cfngen" in header
        assert body == text


def test_generate_refuses_a_callback_context_that_takes_the_reserved_key(tmp_path, monkeypatch):
    monkeypatch.setenv("CFNGEN_NO_FORK", "1")
    root = make_project(tmp_path / "p", widget_schema())
    (root / "callback-context.json").write_text(
        json.dumps({"type": "object", "properties": {STATE_KEY: {"type": "object"}}}, indent=4)
    )
    before = snapshot_tree(root)
    with pytest.raises(CfngenError) as raised:
        generate_project(root)
    assert raised.value.exit_code == ExitCode.FAILED
    [diagnostic] = raised.value.report.diagnostics  # type: ignore[attr-defined]
    assert (diagnostic.pointer, diagnostic.line, diagnostic.column) == (
        f"/properties/{STATE_KEY}",
        4,
        9,
    )
    assert snapshot_tree(root) == before


# --------------------------------------------------------------------------- validate

#: Planted bugs in callback-context.json and what validate must say about each.
PLANTED = [
    ({"properties": {STATE_KEY: {"type": "object"}}}, f"/properties/{STATE_KEY}", "is reserved"),
    (
        {"properties": {"Attempts": {"type": "integer"}, STATE_KEY: {"type": "string"}}},
        f"/properties/{STATE_KEY}",
        "is reserved",
    ),
    ([], "", "must be a JSON object"),
    ('{"properties": ', "", "invalid JSON"),
]


@pytest.mark.parametrize(("content", "pointer", "message"), PLANTED)
def test_validate_names_each_planted_bug_in_the_callback_context(
    tmp_path, content, pointer, message
):
    path = tmp_path / "callback-context.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content, indent=4))
    report = validate_file(path)
    assert not report.valid
    [diagnostic] = report.diagnostics
    assert (diagnostic.pointer, diagnostic.severity) == (pointer, "error")
    assert message in diagnostic.message
    assert diagnostic.line is not None


def test_validate_accepts_a_callback_context_that_leaves_the_key_alone(tmp_path):
    path = tmp_path / "callback-context.json"
    path.write_text(json.dumps({"properties": {"Cfngen": {}, f"{STATE_KEY}x": {}}}))
    assert validate_file(path).diagnostics == []


def test_validating_a_project_folder_checks_its_callback_context(tmp_path):
    root = make_project(tmp_path / "p", widget_schema())
    (root / "callback-context.json").write_text(json.dumps({"properties": {STATE_KEY: {}}}))
    reports = validate_paths([root])
    assert [Path(r.path).name for r in reports] == [
        "acme-test-widget.json",
        "callback-context.json",
    ]
    assert [r.valid for r in reports] == [True, False]
