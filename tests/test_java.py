"""Java handlers through cfngen's local Lambda runtime: the jar `mvn package` builds from a
project the official Java plugin made, run by AWS's Lambda runtime client for Java under the
Runtime API emulation (cfngen/_contract/_runtime_api.py), with the same suite and verdicts as
Python, TypeScript and Go handlers.

The oracles make the project with the plugin's `cfn init` and build it with Maven and the
plugin's library from Maven Central (cached by sources: tests/_java_projects.py); the handlers
are the plugin's stock ones, or ones written here (tests/fixtures/java/) with a bug planted.
The inner loop checks what needs no JVM: a missing or stale jar, a missing runtime client.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import _java_projects
from tests.conftest import build_cache
from tests.test_typescript import verdicts

FIXTURE = Path(__file__).parent / "fixtures" / "java"
#: A planted bug -> the test that must fail on it, and what it must say. An undeclared property
#: never leaves a Java handler: the plugin's wrapper reads the model it returns back into the
#: generated ResourceModel, which fails the call in Jackson's words (as it would in Lambda).
PLANTED = {
    "delete-returns-model": ("contract_delete_delete", "DELETE returned SUCCESS with a model"),
    "read-after-delete": ("contract_delete_read", "READ returned SUCCESS; expected FAILED"),
    "undeclared-property": ("contract_create_read", 'Unrecognized field "Colour"'),
}


def cfngen(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 600):
    return subprocess.run(
        [sys.executable, "-m", "cfngen", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env or _java_projects.ENV,
        check=False,
        timeout=timeout,
    )


# --------------------------------------------------------------------------- the inner loop


def laid_out(root: Path) -> Path:
    """A project as the Java plugin lays it out (no JVM needed: nothing is run)."""
    (root / _java_projects.PACKAGE).mkdir(parents=True)
    (root / ".rpdk-config").write_text(
        json.dumps(
            {
                "artifact_type": "RESOURCE",
                "typeName": _java_projects.TYPE_NAME,
                "language": "java",
                "runtime": "java17",
                "entrypoint": "com.acme.lang.jv.HandlerWrapper::handleRequest",
                "testEntrypoint": "com.acme.lang.jv.HandlerWrapper::testEntrypoint",
            }
        )
    )
    schema = {
        "typeName": _java_projects.TYPE_NAME,
        "description": "A report.",
        "properties": {"Code": {"type": "string"}},
        "additionalProperties": False,
        "readOnlyProperties": ["/properties/Code"],
        "primaryIdentifier": ["/properties/Code"],
        "handlers": {a: {"permissions": []} for a in ("create", "read", "delete")},
    }
    (root / "acme-lang-jv.json").write_text(json.dumps(schema, indent=2))
    (root / "pom.xml").write_text("<project/>\n")
    (root / _java_projects.PACKAGE / "ReadHandler.java").write_text("class ReadHandler {}\n")
    return root


@pytest.mark.parametrize("state", ["missing", "stale-source", "stale-schema"])
def test_a_missing_or_stale_jar_names_mvn_package(tmp_path, state):
    root = laid_out(tmp_path / "p")
    before = sorted(p.as_posix() for p in root.rglob("*"))
    if state != "missing":
        (root / "target").mkdir()
        jar = root / "target" / "acme-lang-jv-handler-1.0-SNAPSHOT.jar"
        jar.write_bytes(b"PK\x05\x06" + bytes(18))
        (root / "target" / "original-acme-lang-jv-handler-1.0-SNAPSHOT.jar").write_bytes(b"")
        past = jar.stat().st_mtime - 60
        os.utime(jar, (past, past))
        before = sorted(p.as_posix() for p in root.rglob("*"))
        # The one input newer than the jar: a handler source, or the schema (the build
        # copies it into the jar).
        older = ["pom.xml", "acme-lang-jv.json" if state == "stale-source" else ""]
        older += [p.relative_to(root).as_posix() for p in root.rglob("*.java")] * (
            state == "stale-schema"
        )
        for relpath in filter(None, older):
            os.utime(root / relpath, (past - 60, past - 60))
    done = cfngen("test", cwd=root)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "mvn package" in done.stderr, done.stderr
    if state == "missing":
        assert "target/*.jar is not built" in done.stderr
    else:
        said = {"stale-schema": "acme-lang-jv.json", "stale-source": "src/main/java/"}[state]
        assert f"acme-lang-jv-handler-1.0-SNAPSHOT.jar is older than {said}" in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.as_posix() for p in root.rglob("*")) == before


def test_a_missing_runtime_client_names_the_maven_command(tmp_path, oracle_tool):
    oracle_tool("java")
    root = laid_out(tmp_path / "p")
    (root / "target").mkdir()
    (root / "target" / "acme-lang-jv-handler-1.0-SNAPSHOT.jar").write_bytes(
        b"PK\x05\x06" + bytes(18)
    )
    env = {**_java_projects.ENV, "MAVEN_REPOSITORY": str(tmp_path / "empty")}
    done = cfngen("test", cwd=root, env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "the Lambda runtime client for Java is not in the local Maven repository" in done.stderr
    client = "com.amazonaws:aws-lambda-java-runtime-interface-client:2.10.1"
    assert f"mvn dependency:get -Dartifact={client}" in done.stderr


#: Four processes at once, as four runs starting together: each prints where the library is.
_UNPACK = (
    "import sys; from pathlib import Path; "
    "from cfngen._languages._java_jni import native_library; "
    "print(native_library(Path(sys.argv[1])))"
)


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the client's libraries are Linux's"
)
def test_runs_starting_at_once_unpack_one_whole_native_library_into_the_cache(tmp_path):
    import platform
    import zipfile

    # A jar laid out as the client's is (a jar is a zip): one library per libc and machine.
    jar = tmp_path / "client.jar"
    with zipfile.ZipFile(jar, "w") as made:
        for libc in ("linux", "linux_musl"):
            for arch in ("x86_64", "aarch_64"):
                made.writestr(f"jni/libaws-lambda-jni.{libc}-{arch}.so", f"{libc}-{arch}" * 99999)
    home = tmp_path / "home"
    env = {**os.environ, "CFNGEN_HOME": str(home), "PYTHONPATH": str(Path(__file__).parents[1])}
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", _UNPACK, str(jar)], env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    paths = {run.communicate(timeout=60)[0].strip() for run in runs}
    assert len(paths) == 1, paths
    library = Path(paths.pop())
    assert home / "cache" / "java-jni" in library.parents
    libc = "linux" if platform.libc_ver()[0] == "glibc" else "linux_musl"
    arch = "aarch_64" if platform.machine() in ("aarch64", "arm64") else "x86_64"
    assert library.name == f"libaws-lambda-jni.{libc}-{arch}.so"
    assert library.read_text() == f"{libc}-{arch}" * 99999
    # Nothing half-written is left beside it, and nothing outside cfngen's own cache.
    assert [p.name for p in (home / "cache" / "java-jni").iterdir()] == [library.parent.name]


# --------------------------------------------------------------------------- real projects


@pytest.fixture(scope="session")
def java_cache() -> Path:
    return build_cache("cfngen-java")


@pytest.fixture(scope="module")
def official(oracle_tool, tmp_path_factory) -> Path:
    """A project the official Java plugin made (`cfn init`), its pom pinned (_java_projects)."""
    oracle_tool("java")
    _java_projects.runtime_client(oracle_tool("mvn"))
    root = tmp_path_factory.mktemp("java") / "official"
    _java_projects.official_init(oracle_tool("cfn"), root)
    return root


@pytest.fixture
def build(oracle_tool, java_cache):
    """Build a copy of the official project, with the handlers of tests/fixtures/java/ and
    `bug` planted when `ours`; the copy's root."""
    mvn, cfn = oracle_tool("mvn"), oracle_tool("cfn")

    def make(official: Path, to: Path, *, ours: bool = True, bug: str = "none") -> Path:
        shutil.copytree(official, to, symlinks=True)
        if ours:
            planted = "".join(source.read_text() for source in FIXTURE.glob("*.java"))
            assert bug == "none" or f'"{bug}"' in planted, bug
            for source in FIXTURE.glob("*.java"):
                text = source.read_text().replace('BUG = "none"', f'BUG = "{bug}"')
                (to / _java_projects.PACKAGE / source.name).write_text(text)
        _java_projects.built(to, mvn, cfn, java_cache)
        return to

    return make


@pytest.mark.oracle
def test_the_official_java_project_gets_per_test_verdicts(official, build, tmp_path):
    """The plugin's stock handlers echo the model back: no primary identifier, named per test."""
    root = build(official, tmp_path / "p", ours=False)
    done = cfngen("test", "--format", "json", cwd=root)
    assert done.returncode == 1, done.stdout + done.stderr
    found = verdicts(done)
    assert found["contract_create_read"]["outcome"] == "failed"
    assert "model has no primaryIdentifier (/TPSCode)" in found["contract_create_read"]["message"]
    assert found["contract_create_invalid"]["outcome"] == "passed"


@pytest.mark.oracle
def test_java_handlers_get_the_contract_suite_per_test(official, build, tmp_path):
    root = build(official, tmp_path / "p")
    sentinel = Path(os.environ.get("TMPDIR", "/tmp")) / f"cfngen-java-keep-{os.getpid()}"
    sentinel.write_text("the machine's temporary folder is not the runtime's")
    try:
        done = cfngen("test", "--format", "json", cwd=root)
        # The plugin's wrapper empties java.io.tmpdir before every call: never the machine's.
        assert sentinel.is_file()
    finally:
        sentinel.unlink(missing_ok=True)
    assert done.returncode == 0, done.stdout + done.stderr
    found = verdicts(done)
    assert {"contract_create_read", "contract_delete_read", "contract_update_read"} <= {
        name for name, test in found.items() if test["outcome"] == "passed"
    }
    assert "Java handlers (target/acme-lang-jv-handler-1.0-SNAPSHOT.jar" in done.stderr
    assert "run in one java process for the run" in done.stderr
    assert "a JVM's clock cannot be simulated" in done.stderr


@pytest.mark.oracle
@pytest.mark.parametrize("bug", list(PLANTED))
def test_a_bug_planted_in_a_java_handler_is_caught_by_the_named_test(
    official, build, tmp_path, bug
):
    name, says = PLANTED[bug]
    root = build(official, tmp_path / "p", bug=bug)
    done = cfngen("test", "--format", "json", cwd=root)
    assert done.returncode == 1, done.stdout + done.stderr
    test = verdicts(done)[name]
    assert test["outcome"] == "failed" and says in test["message"], test


@pytest.mark.oracle
def test_a_java_run_connects_to_loopback_only(official, build, tmp_path):
    from tests.test_network import traced

    # Its create handler tries an HTTP request and a plain socket off the machine: the JVM's
    # proxy properties send both to the run's closed loopback port.
    root = build(official, tmp_path / "p", bug="connects-out")
    run = traced([sys.executable, "-m", "cfngen", "test", "-v"], cwd=root, timeout=600)
    assert run.returncode == 0, run.output
    assert run.destinations and run.outside == [], run.outside


#: Where the runtime client 2.10.1 copies its native library on every start unless told where
#: it is: JVMs starting at once (two runs, two test workers) load each other's half-written copy.
_CLIENT_FIXED_COPY = "/tmp/.libaws-lambda-jni.so"


@pytest.mark.oracle
def test_java_runs_load_the_client_library_from_the_cache_never_a_fixed_tmp_copy(
    official, build, tmp_path
):
    """Four runs at once, one of them traced: none writes the client's fixed /tmp copy, each
    loads the library cfngen unpacked into its own cache, and every run comes up."""
    root = build(official, tmp_path / "p", ours=False)
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"desiredResourceState": {"Title": "t"}}))
    home = tmp_path / "home"
    env = {**_java_projects.ENV, "CFNGEN_HOME": str(home)}
    trace = tmp_path / "open.trace"
    invoke = [sys.executable, "-m", "cfngen", "invoke", "CREATE", str(request), "--format", "json"]
    traced = [shutil.which("strace") or "strace", "-f", "-qq", "-e", "trace=openat", "-o"]
    runs = [
        subprocess.Popen(
            [*traced, str(trace), *invoke] if n == 0 else invoke,
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    for run in runs:
        out, err = run.communicate(timeout=600)
        assert run.returncode in (0, 1), out + err
        assert json.loads(out).get("invocations"), out + err
    opened = [line for line in trace.read_text().splitlines() if "libaws-lambda-jni" in line]
    assert not [line for line in opened if _CLIENT_FIXED_COPY in line], opened
    cached = home / "cache" / "java-jni"
    assert [line for line in opened if str(cached) in line and "= -1" not in line], opened


# ------------------------------------------------ every runtime's temporary folder is its own

#: A built handler that does what the Java plugin's wrapper does before every call (empties its
#: temporary folder) and answers where that folder was: plain JavaScript, so the inner loop
#: checks the runner's part without a JVM.
_SCRUBBING_HANDLER = """
const fs = require('fs'), os = require('os'), path = require('path');
exports.entrypoint = async (event) => {
  const tmp = os.tmpdir();
  for (const name of fs.readdirSync(tmp)) fs.rmSync(path.join(tmp, name), {recursive: true});
  return {status: 'SUCCESS', resourceModel: {Name: 'n', Value: tmp}};
};
"""


def test_a_runtime_empties_a_temporary_folder_of_its_own(oracle_tool, tmp_path):
    from tests.test_typescript import js_project

    oracle_tool("node")
    root = js_project(tmp_path / "p")
    (root / "dist" / "handlers.js").write_text(_SCRUBBING_HANDLER)
    machine = tmp_path / "machine-tmp"
    machine.mkdir()
    (machine / "another-program's-file").write_text("kept")
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"desiredResourceState": {"Name": "n", "Value": "v"}}))
    env = {**_java_projects.ENV, "TMPDIR": str(machine), "TMP": str(machine)}
    done = cfngen("invoke", "CREATE", str(request), "--format", "json", cwd=root, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (machine / "another-program's-file").read_text() == "kept"
    used = Path(json.loads(done.stdout)["invocations"][-1]["response"]["resourceModel"]["Value"])
    assert used.name.startswith("cfngen-runtime-tmp-") and not used.exists()
