"""`pytest --cfngen` agrees with `cfngen test`, test by test, on every kind and shape of project:
every example and starter `cfngen init` makes (a resource type, a hook with one, two and three
invocation points, a module in YAML and JSON, a custom resource, a Lambda hook), projects in
the official layout, and (oracle) projects the official `cfn init` made.

Both run as a user runs them, each in a process of its own: `cfngen test --format json` and
`pytest --cfngen -m cfngen --junitxml` (read back with junitparser). They must report the same
test names, each with the same outcome (and the same reason for a skip, the same message for a
failure), and the same verdict (exit 0 or 1). Before, the plugin made its items from a static
list of a kind's test names: a hook with two invocation points had 9 items for the third, each
failing with "-k ... selects none of the tests"; a module was one item ("contract") that failed
with a usage error; a resource with two input sets had one item per test covering both.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from junitparser import Failure, JUnitXml, Skipped

from tests.conftest import made_once

Outcome = tuple[str, str | None]


def environment() -> dict[str, str]:
    return {**os.environ, "NO_COLOR": "1", "PYTEST_ADDOPTS": "", "CFNGEN_NO_CACHE": "1"}


def cfngen(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cfngen", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env=environment(),
    )


def cfngen_test(root: Path) -> tuple[int, dict[str, Outcome] | str]:
    """The exit code, and each test's outcome (or, exit 2, why none could run)."""
    ran = cfngen(root, "test", "--format", "json")
    assert ran.returncode in (0, 1, 2), ran.stdout + ran.stderr
    document = json.loads(ran.stdout)
    if ran.returncode == 2:
        return 2, document["error"]["message"]
    tests = document["tests"]
    return ran.returncode, {t["name"]: (t["outcome"], t["message"]) for t in tests}


def pytest_cfngen(root: Path, report: Path) -> tuple[int, dict[str, Outcome]]:
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly",
         "--cfngen", "-m", "cfngen", f"--junitxml={report}"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env=environment(),
    )  # fmt: skip
    assert ran.returncode in (0, 1), ran.stdout + ran.stderr
    found: dict[str, Outcome] = {}
    for suite in JUnitXml.fromfile(str(report)):
        for case in suite:
            results = list(case.result)
            failures = [r for r in results if isinstance(r, Failure)]
            skips = [r for r in results if isinstance(r, Skipped)]
            if failures:
                found[case.name] = ("failed", failures[0].text or failures[0].message)
            elif skips:
                found[case.name] = ("skipped", skips[0].message)
            else:
                found[case.name] = ("passed", None)
    return ran.returncode, found


def assert_agree(root: Path, report: Path, *, runs: bool = True) -> dict[str, Outcome]:
    """`runs`: the project's tests run (every example and starter's do, without flags)."""
    code, expected = cfngen_test(root)
    pytest_code, got = pytest_cfngen(root, report)
    assert isinstance(expected, dict) == runs, expected
    if isinstance(expected, str):
        # No test can run (exit 2): every item fails, the first saying why, the others
        # pointing at it.
        assert got and all(outcome == "failed" for outcome, _ in got.values()), got
        told = [name for name, (_, text) in got.items() if expected in (text or "")]
        assert len(told) == 1, got
        assert pytest_code == 1
        return got
    assert sorted(got) == sorted(expected), "the items are not the tests `cfngen test` runs"
    for name, (outcome, message) in expected.items():
        assert got[name][0] == outcome, f"{name}: {got[name]} but `cfngen test` says {outcome}"
        if outcome == "skipped":
            assert got[name][1] == message, name
        elif outcome == "failed":
            assert (message or "").splitlines()[0] in (got[name][1] or ""), name
    assert pytest_code == code, "the verdicts differ"
    return expected


# --------------------------------------------------------------------------- the shapes


def init(*args: str) -> Callable[[pytest.TempPathFactory], Path]:
    name = "parity-" + "-".join(a.strip("-").replace("::", "-").replace(",", "-") for a in args)

    def make(factory: pytest.TempPathFactory) -> Path:
        return made_once(factory, name.lower(), *args)

    return make


def then(make: Callable[..., Path], change: Callable[[Path], None]) -> Callable[..., Path]:
    """A shape made from another by a change (applied to the test's own copy)."""

    def made(factory: pytest.TempPathFactory) -> Path:
        root = make(factory)
        copy = factory.mktemp("changed") / root.name
        shutil.copytree(root, copy, symlinks=True)
        change(copy)
        return copy

    return made


def second_input_set(root: Path) -> None:
    """inputs_2_* beside inputs_1_*: every test runs once per set, named `test[inputs_N]`."""
    for path in sorted((root / "inputs").glob("inputs_1_*.json")):
        data = json.loads(path.read_text())
        path.with_name(path.name.replace("inputs_1_", "inputs_2_")).write_text(json.dumps(data))


def no_targets(root: Path) -> None:
    """Every handler names no target: every test is skipped, which proves nothing, and both
    fail the run."""
    (schema,) = [p for p in root.glob("*.json") if "handlers" in json.loads(p.read_text())]
    data = json.loads(schema.read_text())
    for handler in data["handlers"].values():
        handler["targetNames"] = []
    schema.write_text(json.dumps(data, indent=2))


def official_layout(kind: str, *, generated: bool = True) -> Callable[..., Path]:
    """A project in the official `cfn init` layout, written by hand (generate run, unless
    `generated` is False: its handlers then cannot import their models)."""

    def make(factory: pytest.TempPathFactory) -> Path:
        from tests._official_projects import by_hand

        root = by_hand(factory.mktemp("by-hand") / kind, kind)
        if generated:
            ran = cfngen(root, "generate")
            assert ran.returncode == 0, ran.stdout + ran.stderr
        return root

    return make


HOOK = ("--artifact-type", "hook", "-t", "Acme::Svc::Guard")
SHAPES: dict[str, Callable[[pytest.TempPathFactory], Path]] = {
    "resource-starter": init("-t", "Acme::Svc::Widget"),
    "resource-example": init("--example"),
    "resource-example-two-input-sets": then(init("--example"), second_input_set),
    "hook-starter-three-points": init(*HOOK),
    "hook-two-points": init(*HOOK, "--invocation-points", "preCreate,preUpdate"),
    "hook-one-point": init(*HOOK, "--invocation-points", "preDelete"),
    "hook-wildcard-target": init(*HOOK, "--target", "AWS::S3::*"),
    "hook-that-names-no-target": then(init(*HOOK), no_targets),
    "hook-example": init("--artifact-type", "hook", "--example"),
    "module-yaml": init("--artifact-type", "module", "-t", "Acme::Svc::Shelf::MODULE"),
    "module-json": init(
        "--artifact-type", "module", "-t", "Acme::Svc::Box::MODULE", "--fragment-format", "json"
    ),
    "custom-resource-starter": init("--artifact-type", "custom-resource"),
    "custom-resource-example": init("--artifact-type", "custom-resource", "--example"),
    "lambda-hook-starter": init("--artifact-type", "lambda-hook"),
    "lambda-hook-example": init("--artifact-type", "lambda-hook", "--example"),
    "resource-official-layout": official_layout("resource"),
    "hook-official-layout": official_layout("hook"),
    "resource-that-cannot-run": official_layout("resource", generated=False),
}
#: Shapes whose tests cannot run at all (`cfngen test` exits 2).
CANNOT_RUN = {"resource-that-cannot-run"}
#: The inner loop's sample: the shapes the plugin failed first; CI runs every one.
INNER = {"hook-two-points", "module-yaml", "lambda-hook-example"}


@pytest.mark.parametrize(
    "shape",
    [pytest.param(s, marks=() if s in INNER else pytest.mark.exhaustive) for s in SHAPES],
)
def test_pytest_and_cfngen_test_agree_test_by_test(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path, shape: str
) -> None:
    made = SHAPES[shape](tmp_path_factory)
    root = tmp_path / made.name
    shutil.copytree(made, root, symlinks=True)
    assert assert_agree(root, tmp_path / "report.xml", runs=shape not in CANNOT_RUN)


# --------------------------------------------------------------------------- the official tool


def cfn_init_module(factory: pytest.TempPathFactory) -> Path:
    """The module `cfn init -a MODULE` makes (its sample fragment's BucketName has no default:
    `cfngen test` gives it a stand-in)."""
    from tests._official_projects import CFN

    root = factory.mktemp("cfn-init-module") / "module"
    root.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    subprocess.run(
        [str(CFN), "init", "-t", "Acme::Test::Shelf::MODULE", "-a", "MODULE"],
        cwd=root,
        check=True,
        capture_output=True,
        env={**env, "AWS_EC2_METADATA_DISABLED": "true"},
    )
    (root / "rpdk.log").unlink(missing_ok=True)
    return root


def cfn_init(kind: str) -> Callable[[pytest.TempPathFactory], Path]:
    def make(factory: pytest.TempPathFactory) -> Path:
        from tests._official_projects import cfn_init

        return cfn_init(factory, kind)

    return make


OFFICIAL: dict[str, Callable[[pytest.TempPathFactory], Any]] = {
    "resource": cfn_init("resource"),
    "hook": cfn_init("hook"),
    "module": cfn_init_module,
}


@pytest.mark.oracle
@pytest.mark.parametrize("kind", list(OFFICIAL))
def test_projects_the_official_cfn_init_made_agree_too(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path, kind: str
) -> None:
    made = OFFICIAL[kind](tmp_path_factory)
    root = tmp_path / "project"
    shutil.copytree(made, root, symlinks=True)
    assert assert_agree(root, tmp_path / "report.xml")
