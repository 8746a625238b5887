"""Java handlers (cloudformation-cli-java-plugin): the jar `mvn package` builds, and whether it
is older than what it is built from.

The plugin's pom shades the handlers and their libraries into `target/<artifactId>-<version>.jar`
(template.yml's CodeUri), keeping the unshaded one as `target/original-*.jar`; its `generate`
execution runs `cfn generate`, so the schema is a source of the build besides `pom.xml` and
`src/`. cfngen never builds it: `mvn package` is the project's own.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from cfngen._languages._runtime import Built, NotBuilt

BUILD = "mvn package"
#: Jars Maven writes beside the one Lambda runs.
_NOT_THE_HANDLER = ("original-",)
_ATTACHED = ("-sources.jar", "-javadoc.jar", "-tests.jar")


def check_built(root: Path, config: dict[str, Any]) -> Built:
    """The newest handler jar under target/, newer than pom.xml, src/ and the schema; else a
    CfngenError naming the build command."""
    jars = [
        path
        for path in (root / "target").glob("*.jar")
        if path.is_file()
        and not path.name.startswith(_NOT_THE_HANDLER)
        and not path.name.endswith(_ATTACHED)
    ]
    if not jars:
        raise NotBuilt(
            "target/*.jar is not built (the jar Lambda runs, template.yml's CodeUri)",
            f"build the handlers first: {BUILD}",
            BUILD,
        )
    jar = max(jars, key=lambda path: path.stat().st_mtime)
    newer = newer_source(root, jar.stat().st_mtime, config)
    if newer is not None:
        raise NotBuilt(
            f"{jar.relative_to(root).as_posix()} is older than {newer}: it holds the handlers as "
            "they were at the last build",
            f"build them again: {BUILD}",
            BUILD,
        )
    return Built(jar.relative_to(root).as_posix(), BUILD, "pom.xml, src/ and the schema")


def newer_source(root: Path, built: float, config: dict[str, Any]) -> str | None:
    """pom.xml, a file under src/ or the schema changed after `built` (a modification time)."""
    candidates = [root / "pom.xml"]
    type_name = config.get("typeName")
    if isinstance(type_name, str):  # the schema's name, as `cfn init` writes it
        candidates.append(root / f"{type_name.lower().replace('::', '-')}.json")
    for parent, dirs, files in os.walk(root / "src"):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        candidates.extend(Path(parent) / f for f in files)
    for path in sorted(candidates):
        try:
            if path.stat().st_mtime > built:
                return path.relative_to(root).as_posix()
        except OSError:
            continue
    return None
