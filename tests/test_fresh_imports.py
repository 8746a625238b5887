"""Every contract test still imports the handler package afresh, as a new Lambda container
would, now that its code is compiled once per content (cfngen/_contract/_compiled.py) and its
STUB markers read once per file version: module state never leaks from one test into the
next, with bytecode caches written or not, and an edit between two runs of one process is
the code the second runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cfngen._contract import run_contract_tests
from tests.conftest import made_once

HANDLERS = "src/example_ssm_parameter/handlers.py"
READ = '    return _success(_read(client(session, "ssm"), model.Name if model else None))\n'
#: Module state the read handler counts its calls in: more than a test makes means another
#: test's import was reused.
COUNTED = (
    "    _STATE['reads'] += 1\n"
    "    if _STATE['reads'] > 4:\n"
    "        raise RuntimeError(f\"module state leaked: {_STATE['reads']} reads\")\n" + READ
)


@pytest.fixture(scope="session")
def example(tmp_path_factory) -> Path:
    return made_once(tmp_path_factory, "example", "--example")


@pytest.fixture
def counting(example, tmp_path) -> Path:
    root = tmp_path / "ex"
    shutil.copytree(example, root, ignore=shutil.ignore_patterns("__pycache__"))
    handlers = root / HANDLERS
    text = handlers.read_text().replace(READ, COUNTED)
    handlers.write_text(text + "\n_STATE = {'reads': 0}\n")
    return root


@pytest.mark.parametrize("bytecode", ["written", "never written"])
def test_no_test_sees_module_state_another_left(counting, tmp_path, bytecode):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if bytecode == "never written":
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path.cwd()), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-m", "cfngen", "test", "--format", "json", str(counting)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    report = json.loads(done.stdout)
    failed = {t["name"]: t["message"] for t in report["tests"] if t["outcome"] == "failed"}
    assert failed == {}, failed
    assert sum(t["outcome"] == "passed" for t in report["tests"]) > 15
    cache = counting / "src" / "example_ssm_parameter" / "__pycache__"
    assert cache.is_dir() == (bytecode == "written")


def test_an_edit_between_two_runs_in_one_process_is_what_the_second_runs(counting, monkeypatch):
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    handlers = counting / HANDLERS
    text = handlers.read_text()
    verdicts = []
    for planted in (None, "first", "second", None):
        body = (
            text
            if planted is None
            else text.replace(COUNTED, f"    raise RuntimeError('planted {planted}')\n")
        )
        handlers.write_text(body)
        result = run_contract_tests(counting, keyword="create_read")
        (test,) = result.tests
        verdicts.append(
            (test.outcome, planted is not None and f"planted {planted}" in (test.message or ""))
        )
    assert verdicts == [("passed", False), ("failed", True), ("failed", True), ("passed", False)]


def test_dataclass_methods_are_compiled_once_and_every_import_gets_its_own(tmp_path, monkeypatch):
    """The methods dataclasses writes are compiled once per source text within
    compiled_once: an import of the same models compiles none again, an edited class gets
    methods for its new fields, and every import still makes its own classes and functions."""
    import builtins
    import dataclasses
    import importlib

    from cfngen._contract import _compiled

    compiled: list[str] = []

    def counting(source, *args, **kwargs):
        compiled.append(source)
        return builtins.compile(source, *args, **kwargs)

    monkeypatch.setattr(_compiled, "compile", counting, raising=False)
    package = tmp_path / "dc_models"
    package.mkdir()
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    header = "from dataclasses import dataclass\n\n@dataclass\nclass Widget:\n    name: str\n"
    made = []
    for extra in ("", "", "    size: int = 2\n"):
        (package / "models.py").write_text(header + extra)
        for name in [n for n in sys.modules if n.startswith("dc_models")]:
            del sys.modules[name]
        importlib.invalidate_caches()
        before = len(compiled)
        with _compiled.compiled_once(tmp_path):
            module = importlib.import_module("dc_models.models")
        made.append((module.Widget, len(compiled) - before))
    (first, compiled_first), (second, compiled_second), (third, compiled_third) = made
    assert compiled_first > 0 and compiled_second == 0 and compiled_third > 0
    assert first is not second and first.__init__ is not second.__init__
    assert second("a") == second("a") and repr(second("a")) == "Widget(name='a')"
    assert third("a").size == 2 and repr(third("a", 3)) == "Widget(name='a', size=3)"
    assert "exec" not in vars(dataclasses)  # as it was after the block
