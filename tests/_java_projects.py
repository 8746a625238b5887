"""Java projects made by the official Java plugin and built with Maven for the tests, fast:
`mvn package` once per set of sources, the built jar kept in a cache folder
(`~/.cache/cfngen-test-builds/cfngen-java/`, tests/conftest.py's build_cache) that outlives the
session and the checkout.

A project gets its build as a fresh copy of the cached jar in `target/` (a new modification
time: newer than the sources, as after a real build). A missing cfn, JDK or Maven fails the
test that needs it (`oracle_tool`).

The generated pom names the plugin's library as a range, `[2.0.0,3.0.0)`: Maven reads the
descriptor of every version in a range, and those of 2.0.0-2.0.7 (through the schema library
2.0.0-2.0.7) name `com.github.everit-org.json-schema`, served only by jitpack, which these
machines cannot reach, so the build as generated fails here. The projects pin the newest
library, 2.2.5, and the schema library 2.0.10 (which takes everit's schema from Maven Central
as `com.github.erosb`), as many public projects pin theirs.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

TYPE_NAME = "Acme::Lang::Jv"
PACKAGE = Path("src/main/java/com/acme/lang/jv")
PLUGIN_LIBRARY = "2.2.5"
SCHEMA_LIBRARY = "2.0.10"
ENV = {
    **os.environ,
    "NO_COLOR": "1",
    "AWS_EC2_METADATA_DISABLED": "true",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@e",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@e",
}


def official_init(cfn: str, root: Path) -> None:
    """`cfn init` of a Java resource type in `root`: the plugin registers no subcommand, so
    the language is chosen by its number in cfn's list, then the default package and the
    default codegen model."""
    root.mkdir(parents=True)
    base = [cfn, "init", "-t", TYPE_NAME, "-a", "RESOURCE"]
    listing = subprocess.run(base, cwd=root, input="", capture_output=True, text=True, check=False)
    number = re.search(r"\[(\d+)\] java\b", listing.stdout + listing.stderr)
    assert number, listing.stdout + listing.stderr
    for leftover in root.iterdir():
        shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
    done = subprocess.run(
        base,
        cwd=root,
        input=f"{number.group(1)}\n\n1\n",
        capture_output=True,
        text=True,
        env=ENV,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((root / ".rpdk-config").read_text())["language"] == "java"
    pom = (root / "pom.xml").read_text()
    assert "<version>[2.0.0,3.0.0)</version>" in pom, "the plugin's pom changed: check the pin"
    pom = pom.replace("<version>[2.0.0,3.0.0)</version>", f"<version>{PLUGIN_LIBRARY}</version>")
    pom = pom.replace(
        "<dependencies>",
        "<dependencyManagement><dependencies><dependency>"
        "<groupId>software.amazon.cloudformation</groupId>"
        "<artifactId>aws-cloudformation-resource-schema</artifactId>"
        f"<version>{SCHEMA_LIBRARY}</version>"
        "</dependency></dependencies></dependencyManagement>\n    <dependencies>",
        1,
    )
    (root / "pom.xml").write_text(pom)


def runtime_client(mvn: str) -> None:
    """The Lambda runtime client for Java in the local Maven repository, fetched from Maven
    Central when missing (cfngen reads it there and downloads nothing itself)."""
    from cfngen._languages import _java

    if all((_java.maven_repository() / name).is_file() for name in _java._CLIENT_JARS):
        return
    done = subprocess.run(
        [
            mvn,
            "-B",
            "-q",
            "dependency:get",
            f"-Dartifact={_java.CLIENT}",
            f"-Dmaven.repo.local={_java.maven_repository()}",
        ],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]


def _key(root: Path) -> str:
    digest = hashlib.sha256()
    sources = [root / "pom.xml", *root.glob("*.json"), *sorted((root / "src").rglob("*"))]
    for path in sources:
        if path.is_file():
            part = path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes()
            digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()[:20]


def built(root: Path, mvn: str, cfn: str, cache: Path) -> Path:
    """`mvn package` in `root`, from the cache when these sources were built before; the
    built jar's path. The pom runs `cfn generate` first (the exec plugin), so cfn must be on
    PATH; the plugin's own unit tests are not run (they test the stock handlers)."""
    key = _key(root)
    done = cache / "jars" / f"{key}.jar"
    jar = root / "target" / "acme-lang-jv-handler-1.0-SNAPSHOT.jar"
    if not done.is_file():
        work = cache / "work" / f"{key}.{os.getpid()}"
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(root, work, ignore=shutil.ignore_patterns("target", ".git"))
        build = subprocess.run(
            [mvn, "-B", "-q", "package", "-DskipTests", "-Djacoco.skip=true"],
            cwd=work,
            env={**ENV, "PATH": f"{Path(cfn).parent}{os.pathsep}{ENV['PATH']}"},
            capture_output=True,
            text=True,
            timeout=1500,
            check=False,
        )
        assert build.returncode == 0, build.stdout[-4000:] + build.stderr[-4000:]
        done.parent.mkdir(parents=True, exist_ok=True)
        temporary = done.with_suffix(f".{os.getpid()}.tmp")
        shutil.copy(work / "target" / jar.name, temporary)
        os.replace(temporary, done)
        shutil.rmtree(work, ignore_errors=True)
    jar.parent.mkdir(exist_ok=True)
    shutil.copy(done, jar)
    return jar
