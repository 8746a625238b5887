"""Go handlers through cfngen's local Lambda runtime: a `bootstrap` built on aws-lambda-go runs
as it is under the Runtime API emulation (cfngen/_contract/_runtime_api.py), with the same
suite and verdicts as Python and TypeScript handlers.

Two routes: a handler of our own on aws-lambda-go (tests/fixtures/go/main.go, written against the
registry's protocol itself), and projects the official Go plugin's `cfn init` makes, built by
their own `make` with the plugin's library pinned (tests/fixtures/go_official/resource.go is
our handlers for such a project). Building needs go, cfn and the module proxy: oracle tests.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from importlib.metadata import version
from pathlib import Path

import pytest

from tests.conftest import build_cache
from tests.test_languages import tree
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


#: The Go plugin's library, pinned: the module proxy refuses its version list (403 on `@v/list`),
#: so `go get ...@latest` fails, and so does the plugin's own `make` in a fresh project (its
#: go.mod requires nothing, and go looks the packages up by that list); a pinned version is
#: served (docs/languages.md).
GO_PLUGIN = "github.com/aws-cloudformation/cloudformation-cli-go-plugin@v1.2.0"
OFFICIAL_HANDLERS = Path(__file__).parent / "fixtures" / "go_official" / "resource.go"
#: What cfngen derives in a project (generate, test): everything else is the plugin's or the user's.
DERIVED = re.compile(r"resource-role\.yaml|(docs|inputs)/.*")


@pytest.fixture(scope="module")
def go_cache() -> Path:
    return build_cache("cfngen-go")


def official_go(root: Path, oracle_tool, cache: Path, bug: str | None = None) -> Path:
    """`cfn init ... go` in `root`, the plugin's library pinned, built by the plugin's own `make`.
    With `bug`, our handlers (and a schema of their own) replace the stock ones, that bug
    planted ("none": none). The built project comes from the cache when these sources
    (plugin version, schema, handlers) were built before."""
    cfn, go = oracle_tool("cfn"), oracle_tool("go")
    schema = {**NO_CALLS, "typeName": "Acme::Lang::Go"} if bug else None
    handlers = None
    if bug:
        handlers = OFFICIAL_HANDLERS.read_text()
        assert bug == "none" or f'"{bug}"' in handlers, bug
        handlers = handlers.replace('const bug = "none"', f'const bug = "{bug}"')
    # What `cfn init` writes depends on the plugins installed, and the go.mod on go.
    tools = [version(name) for name in ("cloudformation-cli", "cloudformation-cli-go-plugin")]
    tools.append(os.path.realpath(go))
    sources = json.dumps([GO_PLUGIN, tools, schema, handlers]).encode()
    key = hashlib.sha256(sources).hexdigest()[:20]
    done = cache / "projects" / key
    if not done.is_dir():
        work = cache / "work" / f"{key}.{os.getpid()}"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        env = {
            **os.environ,
            "PATH": os.pathsep.join(
                [str(Path(go).parent), str(Path(cfn).parent), os.environ["PATH"]]
            ),
        }

        def run(*args: str) -> None:
            step = subprocess.run(
                args, cwd=work, env=env, capture_output=True, text=True, timeout=900, check=False
            )
            assert step.returncode == 0, f"{args}: {step.stdout[-4000:]}{step.stderr[-4000:]}"

        run(
            cfn,
            "init",
            "-t",
            "Acme::Lang::Go",
            "-a",
            "RESOURCE",
            "go",
            "-p",
            "github.com/acme/lang",
        )
        run(go, "get", GO_PLUGIN)
        if bug:
            (work / "acme-lang-go.json").write_text(json.dumps(schema, indent=4) + "\n")
            (work / "cmd" / "resource" / "resource.go").write_text(handlers)
        # go.sum gets the library's own requirements (the build wants them), and go.mod the
        # AWS SDK our handlers import, as after any `go get`.
        run(go, "mod", "tidy")
        run("make")
        assert (work / "bin" / "bootstrap").is_file()
        done.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.rename(work, done)
        except OSError:  # another worker was first
            shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(done, root, symlinks=True)  # modification times kept: the build stays newer
    return root


def plugins_files(root: Path) -> dict[str, str]:
    return {path: digest for path, digest in tree(root).items() if not DERIVED.fullmatch(path)}


@pytest.mark.oracle
def test_an_official_go_project_gets_per_test_verdicts_and_keeps_its_files(
    oracle_tool, go_cache, tmp_path
):
    """The stock project as `cfn init` and `make` leave it: every test says the stock handlers'
    `Not implemented`, and no file of the plugin's changes."""
    root = official_go(tmp_path / "p", oracle_tool, go_cache)
    before = plugins_files(root)
    assert "cmd/resource/model.go" in before and "bin/bootstrap" in before
    for command in (["validate"], ["generate"]):
        done = cfngen(*command, cwd=root)
        assert done.returncode == 0, done.stdout + done.stderr
    done = cfngen("test", "--format", "json", cwd=root)
    assert done.returncode == 1, done.stdout + done.stderr
    found = verdicts(done)
    create = found["contract_create_read"]
    assert create["outcome"] == "failed" and "Not implemented: Create" in create["message"], create
    assert plugins_files(root) == before


@pytest.mark.oracle
def test_our_handlers_in_an_official_go_project_pass_the_suite(oracle_tool, go_cache, tmp_path):
    root = official_go(tmp_path / "p", oracle_tool, go_cache, "none")
    before = plugins_files(root)
    done = cfngen("test", "--format", "json", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    found = verdicts(done)
    assert {"contract_create_read", "contract_delete_read", "contract_update_not_updatable"} <= {
        name for name, test in found.items() if test["outcome"] == "passed"
    }
    assert plugins_files(root) == before


@pytest.mark.oracle
@pytest.mark.parametrize("bug", list(PLANTED))
def test_a_bug_planted_in_an_official_go_project_is_caught_by_the_named_test(
    oracle_tool, go_cache, tmp_path, bug
):
    name, says = PLANTED[bug]
    root = official_go(tmp_path / "p", oracle_tool, go_cache, bug)
    done = cfngen("test", "--format", "json", cwd=root)
    assert done.returncode == 1, done.stdout + done.stderr
    test = verdicts(done)[name]
    assert test["outcome"] == "failed" and says in test["message"], test


@pytest.mark.oracle
def test_the_official_go_librarys_own_calls_stay_off_the_closed_proxy(
    oracle_tool, go_cache, tmp_path
):
    """The plugin's library publishes metrics (through the AWS SDK for Go v1, which reads no
    AWS_ENDPOINT_URL) around each handler, each retried with backoff against the closed proxy:
    about a second per invocation. Run as `sam local` runs it, it publishes none."""
    root = official_go(tmp_path / "p", oracle_tool, go_cache, "none")
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"desiredResourceState": {}}))
    done = cfngen("invoke", "READ", str(request), cwd=root)
    assert "Handler received the READ action" in done.stdout, done.stdout + done.stderr
    assert "publishing metrics" not in done.stdout + done.stderr, done.stdout
    assert "proxyconnect" not in done.stdout + done.stderr, done.stdout
