"""A watch session's run forked ahead of the save (cfngen/_watch_standby.py): it goes on past
the gate only when it read none of the files the save changed, and a session uses it for a
handler edit and never for a save that changed what it read."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cfngen._contract import _entrypoint
from cfngen._watch import Session
from cfngen._watch_standby import Stale, Standby
from tests.conftest import made_once
from tests.test_watch import HANDLERS, SCHEMA, planted, save


def _through_the_gate() -> None:
    """What the next Entrypoint does first."""
    while _entrypoint._gate:
        _entrypoint._gate.pop()()


def _reader(root: Path, *, before: str = "a.txt", spawn: bool = False, gate: bool = True):
    def run() -> str:
        seen = (root / before).read_text()
        if spawn:
            subprocess.run(["true"], check=True)
        if gate:
            _through_the_gate()
        return seen + "|" + (root / "a.txt").read_text()

    return run


@pytest.fixture
def files(tmp_path) -> Path:
    (tmp_path / "a.txt").write_text("a1")
    (tmp_path / "b.txt").write_text("b1")
    return tmp_path.resolve()


def test_a_run_goes_on_when_the_save_changed_nothing_it_read(files):
    standby = Standby(_reader(files, before="b.txt"), files, graceful=5)
    (files / "a.txt").write_text("a2")
    assert standby.go({"a.txt"}, print) == "b1|a2"


@pytest.mark.parametrize(
    "changed,why",
    [
        pytest.param({"a.txt"}, "it read a.txt before the save", id="the file it read"),
        pytest.param({"b.txt", "a.txt"}, "it read a.txt before the save", id="among others"),
    ],
)
def test_a_run_that_read_a_changed_file_is_stale(files, changed, why):
    standby = Standby(_reader(files), files, graceful=5)
    stale = standby.go(changed, print)
    assert isinstance(stale, Stale) and stale.why == why and not stale.recurs


@pytest.mark.parametrize("link", ["inside/a-link.txt", "a.txt"], ids=["another name", "same"])
def test_a_changed_file_read_through_a_link_is_stale(files, tmp_path_factory, link):
    """Read through a link inside the project under another name, or from outside the
    project under its own: the link is followed."""
    where = files / link if link != "a.txt" else tmp_path_factory.mktemp("outside") / link
    where.parent.mkdir(exist_ok=True)
    where.symlink_to(files / "a.txt")

    def run() -> str:
        seen = where.read_text()
        _through_the_gate()
        return seen

    stale = Standby(run, files, graceful=5).go({"a.txt"}, print)
    assert isinstance(stale, Stale) and "a.txt" in stale.why


def test_a_module_of_the_project_imported_before_the_gate_counts_as_read(files):
    (files / "mine.py").write_text("VALUE = 1\n")

    def run() -> int:
        sys.path.insert(0, str(files))
        import mine  # the project's module, imported before the gate

        _through_the_gate()
        return mine.VALUE

    stale = Standby(run, files, graceful=5).go({"mine.py"}, print)
    assert isinstance(stale, Stale) and "mine.py" in stale.why


@pytest.mark.parametrize(
    "kwargs,why",
    [
        pytest.param({"spawn": True}, "it started a program before the gate", id="a program"),
        pytest.param({"gate": False}, "it never reached the gate", id="no gate"),
    ],
)
def test_what_would_be_stale_at_every_save_says_so(files, kwargs, why):
    stale = Standby(_reader(files, before="b.txt", **kwargs), files, graceful=5).go(
        {"a.txt"}, print
    )
    assert isinstance(stale, Stale) and stale.why == why and stale.recurs


def test_a_discarded_run_ends_and_is_reaped(files):
    standby = Standby(_reader(files), files, graceful=5)
    pid = standby._child.pid
    standby.discard()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no longer this process's child


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> Path:
    return made_once(tmp_path_factory, "example", "--example")


@pytest.fixture
def session(example, tmp_path):
    root = tmp_path / "ex"
    shutil.copytree(example, root, ignore=shutil.ignore_patterns("__pycache__"))
    watched = Session(root, {})
    with watched.opened():
        yield watched


def _ran_after(session: Session, path: str, text: str):
    """The verdict of the run after `path` is saved with `text`, and whether that run was the
    one forked ahead (it was waiting when the file was saved)."""
    assert session._standby is not None, "no run was forked ahead"
    save(session.root / path, text)
    verdict = session.run(session._changed({session.root / path}))
    session._warm()
    return verdict, verdict.ahead


def test_a_handler_edit_runs_in_the_run_forked_ahead_and_sees_the_edit(session):
    first = session.run(set(session._snapshot()), first_run=True)
    session._warm()
    assert first.ok and session._standby is not None
    schema = session.root / SCHEMA
    for number in (1, None, 2, None):
        verdict, ahead = _ran_after(session, HANDLERS, planted(session.root, number))
        assert ahead, "the handler edit did not use the run forked ahead"
        assert verdict.ok is (number is None), verdict
        if number is not None:
            assert any(f"planted {number}" in message for _, message in verdict.failures)
        # A schema edit that leaves models.py as it was (its description): the run after it
        # must not have read the handlers before the gate (the stale-models note reads them).
        text = schema.read_text().replace('"description": "', f'"description": "{number} ', 1)
        verdict, ahead = _ran_after(session, SCHEMA, text)
        assert verdict.generated and not ahead


def test_an_inputs_edit_the_run_ahead_had_read_is_run_afresh(session):
    session.run(set(session._snapshot()), first_run=True)
    session._warm()
    inputs = session.root / "inputs" / "inputs_1_create.json"
    good = inputs.read_text()
    bad = json.loads(good)
    bad["Value"] = 12  # not a string: the schema refuses it, as the suite reads the inputs
    verdict, ahead = _ran_after(session, "inputs/inputs_1_create.json", json.dumps(bad))
    assert not ahead
    assert not verdict.ok, "a verdict on the inputs as they were before the save"
    verdict, ahead = _ran_after(session, "inputs/inputs_1_create.json", good)
    assert not ahead and verdict.ok, verdict


def test_a_save_during_a_run_gets_a_run_of_its_own(session):
    """The files' digests are taken before the tests run: a save while they run is a change
    the next batch sees (taken after the run, it was counted as seen, and never tested)."""
    session.run(set(session._snapshot()), first_run=True)
    session._warm()
    handlers = session.root / HANDLERS
    real_test = session._test

    def test_then_save(*args):
        real_test(*args)
        save(handlers, planted(session.root, 7))  # before this run's verdict is out

    session._test = test_then_save
    save(handlers, planted(session.root, None) + "# an edit\n")
    assert session.run(session._changed({handlers})).ok
    session._test = real_test
    changed = session._changed({handlers})
    assert changed == {HANDLERS}
    verdict = session.run(changed)
    assert any("planted 7" in message for _, message in verdict.failures), verdict


@pytest.mark.parametrize(
    ("kind", "name", "handlers"),
    [
        ("custom-resource", "watch-custom-example", "src/app.py"),
        ("hook", "watch-hook-example", "src/example_s3_compliancehook/handlers.py"),
        ("lambda-hook", "watch-lambda-hook-example", "src/app.py"),
    ],
)
def test_other_kinds_run_a_handler_edit_in_the_run_forked_ahead(
    tmp_path_factory, tmp_path, kind, name, handlers
):
    """Each kind's suite reads its inputs, template and schema before the gate and its
    handlers after it: an edit of the handlers goes on in the run forked ahead, and sees the
    edit (a handler module that raises as it is imported)."""
    made = made_once(tmp_path_factory, name, "--artifact-type", kind, "--example")
    root = tmp_path / "made"
    shutil.copytree(made, root, ignore=shutil.ignore_patterns("__pycache__"))
    session = Session(root, {})
    path = root / handlers
    original = path.read_text()
    with session.opened():
        first = session.run(set(session._snapshot()), first_run=True)
        session._warm()
        assert first.ok, first
        verdict, ahead = _ran_after(session, handlers, original + "# an edit\n")
        assert ahead and verdict.ok and verdict.order == first.order, verdict
        verdict, _ahead = _ran_after(session, handlers, original + "raise RuntimeError('x9')\n")
        assert not verdict.ok and "x9" in repr(verdict), verdict
        verdict, ahead = _ran_after(session, handlers, original)
        assert verdict.ok, verdict


@pytest.mark.oracle
def test_a_handler_edit_in_a_project_the_official_cfn_init_made_goes_on_ahead(
    tmp_path_factory, tmp_path
):
    """`cfn init`'s layout and handlers (the session the library passes), generated by cfngen:
    the handler edit goes on in the run forked ahead, and its planted bug is seen."""
    from cfngen._generate import generate_project
    from tests._official_projects import cfn_init

    root = tmp_path / "official"
    shutil.copytree(cfn_init(tmp_path_factory, "resource"), root)
    generate_project(root)
    (handlers,) = root.glob("src/*/handlers.py")
    relative = handlers.relative_to(root).as_posix()
    original = handlers.read_text()
    planted_text = original.replace(
        "def read_handler(",
        "def read_handler(*args):\n    raise RuntimeError('x7')\n\n\ndef _read(",
        1,
    )
    assert planted_text != original
    session = Session(root, {})
    with session.opened():
        first = session.run(set(session._snapshot()), first_run=True)
        session._warm()
        assert first.error is None, first
        for text, planted in (
            (original + "# an edit\n", False),
            (planted_text, True),
            (original, False),
        ):
            verdict, ahead = _ran_after(session, relative, text)
            assert ahead, verdict
            assert any("x7" in message for _, message in verdict.failures) is planted, verdict
