"""The contract tests as pytest items: `pytest --cfngen` (or `cfngen = true` in the ini file).

Registered under the `pytest11` entry point, so pytest loads it in every session; it imports
nothing of cfngen's until it is enabled. Enabled, it collects each project below the root (every
`.rpdk-config`, and each custom resource's template: a monorepo works) as one item per contract
test, so `-k`, `-m cfngen`, `--collect-only`, `--junitxml` and xdist work as for any test.
Each item runs its one test through `cfngen._contract.run_contract_tests`, the function
`cfngen test` calls: one implementation. A test the schema rules out is reported skipped with
the reason (never deselected: deselected tests vanish from JUnit reports); a failure shows the
runner's message, with the property-level difference of the models.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from cfngen._contract._results import SuiteResult

CONFIG_FILE = ".rpdk-config"

#: The item of a kind whose test names are unknown: all of its tests at once.
ALL_TESTS = "contract"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cfngen", "CloudFormation extension contract tests (cfngen)")
    group.addoption(
        "--cfngen",
        action="store_true",
        default=None,
        help="collect the contract tests of every cfngen/cfn project (.rpdk-config) below "
        "the root, one item per test",
    )
    group.addoption(
        "--cfngen-region",
        default=None,
        metavar="REGION",
        help="the region the handlers see (default: us-east-1)",
    )
    group.addoption(
        "--cfngen-allow-network",
        action="store_true",
        default=False,
        help="let the handlers' own connections leave this machine (AWS calls still go to "
        "moto); without it each fails naming its host",
    )
    parser.addini(
        "cfngen", "collect cfngen contract tests (as --cfngen)", type="bool", default=False
    )


def _enabled(config: pytest.Config) -> bool:
    flag = config.getoption("cfngen")
    return bool(flag if flag is not None else config.getini("cfngen"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "cfngen: a handler contract test of a CloudFormation extension (cfngen)"
    )
    if not _enabled(config):
        return
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
    from cfngen._project import custom_resource_template

    return custom_resource_template(folder)


class ContractProject(pytest.File):
    """A project folder's contract tests; its node is the `.rpdk-config` (or a custom
    resource's template) that makes it one."""

    def collect(self) -> Iterator[pytest.Item]:
        from cfngen._errors import CfngenError
        from cfngen._project import load_project

        root = self.path.parent
        try:
            project = load_project(root)
        except CfngenError as error:
            raise self.CollectError(_error_text(error)) from None
        contract = project.kind.contract
        if contract is None:
            return
        for name in _test_names(project, contract):
            item: ContractItem = ContractItem.from_parent(self, name=name)
            item.add_marker("cfngen")
            yield item

    def run_one(self, name: str, region: str | None, allow_network: bool) -> SuiteResult:
        from cfngen._contract import run_contract_tests

        # The keyword matches by substring: exact names are picked from the result.
        return run_contract_tests(
            self.path.parent,
            keyword=None if name == ALL_TESTS else name,
            region=region,
            allow_network=allow_network,
        )


def _test_names(project: Any, contract: Any) -> tuple[str, ...]:
    """The names of a project's contract tests: its contract's `test_names` (a method of the
    project, or a sequence), else the `TEST_NAMES` of the kind's tests module (`*tests.py` in
    the kind's folder, at any depth). A kind with neither gets one item that runs all of its
    tests."""
    names = getattr(contract, "test_names", None)
    if callable(names):
        names = names(project)
    if names is None:
        names = _names_in_package(type(project.kind).__module__)
    return tuple(names) if names else (ALL_TESTS,)


def _names_in_package(package: str) -> tuple[str, ...] | None:
    import pkgutil

    try:
        root = importlib.import_module(package)
    except ImportError:
        return None
    found = pkgutil.walk_packages(getattr(root, "__path__", []), prefix=f"{package}.")
    for module in sorted(info.name for info in found):
        if not module.rsplit(".", 1)[-1].endswith("tests"):
            continue
        try:
            names = getattr(importlib.import_module(module), "TEST_NAMES", None)
        except ImportError:
            continue
        if names:
            return tuple(names)
    return None


class ContractWarning(UserWarning):
    """A contract test passed with a warning (a rule CloudFormation does not enforce)."""


class ContractFailure(Exception):
    """A contract test failed: the runner's message says how."""


class ContractItem(pytest.Item):
    parent: ContractProject

    def runtest(self) -> None:
        from cfngen._errors import CfngenError

        region = self.config.getoption("cfngen_region")
        allow_network = bool(self.config.getoption("cfngen_allow_network"))
        try:
            suite = self.parent.run_one(self.name, region, allow_network)
        except CfngenError as error:
            # The tests cannot run at all (bad inputs, no handlers): say why, as cfngen test.
            raise ContractFailure(_error_text(error)) from None
        mine = [
            t for t in suite.tests if self.name in (ALL_TESTS, t.name) or _base(t.name) == self.name
        ]
        for note in suite.notes:
            self.add_report_section("call", "cfngen", note)
        for warning in dict.fromkeys(w for t in mine for w in t.warnings):
            # What CloudFormation accepts but the user should know: pytest's warnings summary.
            warnings.warn(ContractWarning(warning), stacklevel=1)
        failed = [t for t in mine if t.outcome == "failed"]
        if failed:
            raise ContractFailure(
                "\n\n".join(
                    f"{t.name}: {t.message or 'failed'}" if len(mine) > 1 else t.message or ""
                    for t in failed
                )
            )
        if mine and all(t.outcome == "skipped" for t in mine):
            _skip(mine[0].message or "skipped")
        if not mine:
            _skip("not run: the project's contract has no such test")

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        if isinstance(excinfo.value, ContractFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[os.PathLike[str] | str, int, str]:
        return self.path, 0, f"{self.parent.path.parent.name}::{self.name}"


def _skip(reason: str) -> None:
    """Skip, reported at the test (the project's `.rpdk-config`), not at this plugin's line."""
    try:
        raise pytest.skip.Exception(reason, _use_item_location=True)
    except TypeError:  # a pytest without that option: the plugin's line it is
        pytest.skip(reason)


def _base(name: str) -> str:
    """`contract_create_read[inputs_2]` -> `contract_create_read`: an item covers every input
    set the project has."""
    return re.sub(r"\[[^\]]*\]$", "", name)


def _error_text(error: Exception) -> str:
    hint = getattr(error, "hint", None)
    message = getattr(error, "message", str(error))
    return f"{message}\n  hint: {hint}" if hint else message
