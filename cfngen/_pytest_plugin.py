"""The contract tests as pytest items: `pytest --cfngen` (or `cfngen = true` in the ini file).

Registered under the `pytest11` entry point, so pytest loads it in every session; it imports
nothing of cfngen's until it is enabled. Enabled, it collects each project below the root (every
`.rpdk-config`, and each custom resource's template: a monorepo works) as one item per contract
test, so `-k`, `-m cfngen`, `--collect-only`, `--junitxml` and xdist work as for any test.

The items are the tests the project's kind lists (`ContractProtocol.test_names`, the names
`cfngen test` reports), whatever the kind: nothing here knows one. The first item of a project to
run in a process runs the project's suite once through `cfngen._contract.run_contract_tests`,
the function `cfngen test` calls, with the items the session kept (`cfngen test -k`); every item
then reports its own test's result from that run, so the two commands agree test by test. A
test the schema rules out is reported skipped with the reason (never deselected: deselected
tests vanish from JUnit reports); a failure shows the runner's message. A run in which every
test was skipped fails `cfngen test` (it proved nothing): the session fails too, saying why.
"""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from cfngen._contract._results import SuiteResult
    from cfngen._errors import CfngenError

CONFIG_FILE = ".rpdk-config"

#: The user property an item's report carries when its project's run proved nothing.
PROVED_NOTHING = "cfngen-proved-nothing"


def pytest_addoption(parser: pytest.Parser) -> None:
    from cfngen._pytest_options import add_options

    add_options(parser)


def _enabled(config: pytest.Config) -> bool:
    flag = config.getoption("cfngen")
    return bool(flag if flag is not None else config.getini("cfngen"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "cfngen: a handler contract test of a CloudFormation extension (cfngen)"
    )
    if not _enabled(config):
        return
    config.pluginmanager.register(ProvedNothing(), "cfngen-proved-nothing")
    # A project's own pytest settings point at its unit tests (`testpaths = ["tests"]`): the
    # contract lives beside them, in the project folder that `.rpdk-config` marks.
    if config.args_source == pytest.Config.ArgsSource.TESTPATHS:
        config.args.extend(str(path) for path in [config.rootpath / CONFIG_FILE] if path.is_file())


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """In a folder holding several projects, each project's unit tests are left to its own
    pytest run: they need its settings (`pythonpath = ["src"]`), and same-named test modules of
    two projects cannot be imported side by side. Its contract tests are collected."""
    if not _enabled(config) or collection_path.name == CONFIG_FILE:
        return None
    folder = collection_path.parent
    if folder != config.rootpath and (folder / CONFIG_FILE).is_file():
        return True
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if not _enabled(parent.config):
        return None
    if file_path.name != CONFIG_FILE and not _custom_resource_template(file_path):
        return None
    project: ContractProject = ContractProject.from_parent(parent, path=file_path)
    return project


_TEMPLATE_SUFFIXES = (".yaml", ".yml", ".json", ".template")


def _custom_resource_template(path: Path) -> bool:
    """A SAM/CloudFormation template that makes its folder a custom resource project (one
    without `.rpdk-config`), as `cfngen test` finds it."""
    if path.suffix not in _TEMPLATE_SUFFIXES or (path.parent / CONFIG_FILE).exists():
        return False
    return _template_of(path.parent) == path


@functools.cache
def _template_of(folder: Path) -> Path | None:
    from cfngen._project import project_file

    return project_file(folder)


class ContractProject(pytest.File):
    """A project folder's contract tests; its node is the `.rpdk-config` (or a custom
    resource's template) that makes it one."""

    #: The names collected (before -k and -m), and the run's result once it ran here.
    names: list[str]
    _outcome: SuiteResult | CfngenError | None = None
    #: The node id of the item that showed why the suite cannot run (in this process).
    _told: str | None = None

    def collect(self) -> Iterator[pytest.Item]:
        from cfngen._contract import contract_test_names
        from cfngen._errors import CfngenError
        from cfngen._project import load_project

        root = self.path.parent
        try:
            project = load_project(root)
            if project.kind.contract is None:
                return
            self.names = contract_test_names(root)
        except CfngenError as error:
            # The tests cannot run at all (bad inputs, a broken schema): said once, as
            # `cfngen test` says it (exit 2 there, a collection error here).
            raise self.CollectError(_error_text(error)) from None
        for name in self.names:
            item: ContractItem = ContractItem.from_parent(self, name=name)
            item.add_marker("cfngen")
            yield item

    def outcome(self) -> SuiteResult | CfngenError:
        """The suite's result, or why it cannot run: run once in this process."""
        from cfngen._contract import run_contract_tests
        from cfngen._errors import CfngenError
        from cfngen._pytest_options import seeds, target

        if self._outcome is None:
            typeconfig = self.config.getoption("cfngen_typeconfig")
            try:
                self._outcome = _scrubbed(
                    run_contract_tests(
                        self.path.parent,
                        keyword=self._keyword(),
                        region=self.config.getoption("cfngen_region"),
                        allow_network=bool(self.config.getoption("cfngen_allow_network")),
                        typeconfig=Path(typeconfig) if typeconfig else None,
                        seeds=seeds(self.config),
                        **target(self.config),
                    )
                )
            except CfngenError as error:
                from cfngen._redact import scrub

                error.message = scrub(error.message)
                self._outcome = error
        return self._outcome

    def _keyword(self) -> str | None:
        """None (every test) when the session kept all of this project's items, else the kept
        names joined with `or`: a name selects itself (and the names it is part of, whose
        results are not read)."""
        from cfngen._contract._select import MAX_TOKENS

        kept = [i.name for i in self.session.items if i.parent is self]
        if set(kept) >= set(self.names) or 2 * len(kept) > MAX_TOKENS:
            return None
        return " or ".join(kept)


class ContractWarning(UserWarning):
    """A contract test passed with a warning (a rule CloudFormation does not enforce)."""


class ContractFailure(Exception):
    """A contract test failed: the runner's message says how."""


class ContractItem(pytest.Item):
    parent: ContractProject

    def runtest(self) -> None:
        from cfngen._errors import CfngenError

        outcome = self.parent.outcome()
        if isinstance(outcome, CfngenError):
            # The tests cannot run at all: said in full once, then pointed at.
            told = self.parent._told
            if told is None:
                self.parent._told = self.nodeid
                raise ContractFailure(_error_text(outcome))
            raise ContractFailure(f"the contract tests cannot run: see {told}")
        for note in outcome.notes:
            self.add_report_section("call", "cfngen", note)
        if not outcome.ok and not outcome.count("failed"):
            self.user_properties.append((PROVED_NOTHING, str(self.parent.path.parent)))
        mine = next((t for t in outcome.tests if t.name == self.name), None)
        if mine is None:
            raise ContractFailure(
                f"`cfngen test` reported no result for {self.name}, which its kind lists: "
                "a bug in cfngen"
            )
        for warning in mine.warnings:
            # What CloudFormation accepts but the user should know: pytest's warnings summary.
            warnings.warn(ContractWarning(warning), stacklevel=1)
        if mine.outcome == "failed":
            raise ContractFailure(mine.message or "failed")
        if mine.outcome == "skipped":
            _skip(mine.message or "skipped")

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        if isinstance(excinfo.value, ContractFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[os.PathLike[str] | str, int, str]:
        return self.path, 0, f"{self.parent.path.parent.name}::{self.name}"


class ProvedNothing:
    """Fails a session in which some project's run proved nothing (every test skipped, which
    fails `cfngen test` too), naming the project. It reads the items' reports, so it works in
    xdist's controller too, where the workers' items run."""

    def __init__(self) -> None:
        self.folders: set[str] = set()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.folders.update(str(v) for k, v in report.user_properties if k == PROVED_NOTHING)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.folders and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for folder in sorted(self.folders):
            terminalreporter.write_line(
                f"cfngen: {folder}: every contract test was skipped, which proves nothing "
                "(`cfngen test` fails such a run too)",
                red=True,
            )


def _scrubbed(result: SuiteResult) -> SuiteResult:
    """The result with the run's secrets masked: pytest prints and stores what it is given
    (terminal, JUnit XML), past cfngen's own output streams (cfngen/_redact.py)."""
    from cfngen._redact import scrub

    result.notes = [scrub(note) for note in result.notes]
    for test in result.tests:
        test.message = scrub(test.message) if test.message else test.message
        test.warnings = [scrub(warning) for warning in test.warnings]
    return result


def _skip(reason: str) -> None:
    """Skip, reported at the test (the project's `.rpdk-config`), not at this plugin's line."""
    try:
        raise pytest.skip.Exception(reason, _use_item_location=True)
    except TypeError:  # a pytest without that option: the plugin's line it is
        pytest.skip(reason)


def _error_text(error: Exception) -> str:
    hint = getattr(error, "hint", None)
    message = getattr(error, "message", str(error))
    return f"{message}\n  hint: {hint}" if hint else message
