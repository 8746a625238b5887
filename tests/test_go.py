"""Go handlers through cfngen's local Lambda runtime: a `bootstrap` built on aws-lambda-go runs
as it is under the Runtime API emulation (cfngen/_contract/_runtime_api.py), with the same
suite and verdicts as Python and TypeScript handlers.

The handler (tests/fixtures/go/main.go) is written against the registry's protocol itself: the
Go plugin's own library module is not served by the Go module proxy these machines reach, so
official Go projects cannot be built here (docs/languages.md). Building needs go and
aws-lambda-go from the module proxy: oracle tests.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.test_typescript import PLANTED, SCHEMA, TYPE_NAME, cfngen, verdicts

FIXTURE = Path(__file__).parent / "fixtures" / "go"
#: This handler calls no AWS: no permission to declare.
NO_CALLS = {**SCHEMA, "handlers": {k: {"permissions": []} for k in SCHEMA["handlers"]}}


def go_project(root: Path, go: str, bug: str = "none") -> Path:
    """A project as the Go plugin lays it out, `bin/bootstrap` built with `bug` planted."""
    root.mkdir(parents=True)
    for name in ("go.mod", "go.sum"):
        shutil.copy(FIXTURE / name, root / name)
    source = (FIXTURE / "main.go").read_text()
    assert bug == "none" or f'"{bug}"' in source, bug
    (root / "main.go").write_text(source.replace('const bug = "none"', f'const bug = "{bug}"'))
    (root / ".rpdk-config").write_text(
        json.dumps(
            {
                "artifact_type": "RESOURCE",
                "typeName": TYPE_NAME,
                "language": "go",
                "runtime": "provided.al2",
                "entrypoint": "bootstrap",
                "testEntrypoint": "bootstrap",
            }
        )
    )
    (root / "example-ssm-parameter.json").write_text(json.dumps(NO_CALLS, indent=2))
    build = subprocess.run(
        [go, "build", "-o", "bin/bootstrap", "."],
        cwd=root,
        env={**os.environ, "GOFLAGS": "-mod=mod", "CGO_ENABLED": "0"},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    return root


@pytest.mark.oracle
def test_a_go_bootstrap_gets_the_contract_suite_per_test(oracle_tool, tmp_path):
    root = go_project(tmp_path / "p", oracle_tool("go"))
    done = cfngen("test", "--format", "json", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    found = verdicts(done)
    assert {"contract_create_read", "contract_delete_read", "contract_update_not_updatable"} <= {
        name for name, test in found.items() if test["outcome"] == "passed"
    }
    assert "Go handlers (bin/bootstrap) run in one bootstrap process" in done.stderr


@pytest.mark.oracle
@pytest.mark.parametrize("bug", [*PLANTED, "exits"])
def test_a_bug_planted_in_a_go_handler_is_caught_by_the_named_test(oracle_tool, tmp_path, bug):
    name, says = PLANTED.get(bug, ("contract_create_read", "runtime ended: exit code 3"))
    done = cfngen(
        "test", "--format", "json", cwd=go_project(tmp_path / "p", oracle_tool("go"), bug)
    )
    assert done.returncode == 1, done.stdout + done.stderr
    test = verdicts(done)[name]
    assert test["outcome"] == "failed" and says in test["message"], test


@pytest.mark.oracle
def test_a_missing_or_stale_bootstrap_names_make(oracle_tool, tmp_path):
    root = go_project(tmp_path / "p", oracle_tool("go"))
    past = (root / "main.go").stat().st_mtime - 60
    os.utime(root / "bin" / "bootstrap", (past, past))
    stale = cfngen("test", cwd=root)
    assert stale.returncode == 2, stale.stdout + stale.stderr
    assert "bin/bootstrap is older than" in stale.stderr and "make" in stale.stderr
    (root / "bin" / "bootstrap").unlink()
    missing = cfngen("test", cwd=root)
    assert missing.returncode == 2 and "bin/bootstrap is not built" in missing.stderr


@pytest.mark.oracle
def test_a_go_run_connects_to_loopback_only(oracle_tool, tmp_path):
    import sys

    from tests.test_network import traced

    root = go_project(tmp_path / "p", oracle_tool("go"))
    run = traced([sys.executable, "-m", "cfngen", "test"], cwd=root, timeout=300)
    assert run.returncode == 0, run.output
    assert run.destinations and run.outside == [], run.outside
