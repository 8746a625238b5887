"""TypeScript handlers (cloudformation-cli-typescript-plugin): where the built handler is,
when it is stale, and how it runs.

The plugin records `"entrypoint": "dist/handlers.entrypoint"`: the module `dist/handlers.js`
(what `npm run build` compiles from `src/`), its export `entrypoint`. cfngen never builds it:
the build is the project's own (`npm run build`, its TypeScript version, its tsconfig), so a
missing or stale `dist/` is the user's to rebuild, and cfngen names the command.

It runs in `node` with two files cfngen ships (cfngen/_languages/node/): `harness.js`, a
Lambda runtime client (the Runtime API loop that Lambda's own Node runtime runs), and
`preload.js`, loaded first with `--require`, which keeps the handler offline (a connection or
a name lookup to anything but loopback fails by name) and points the AWS SDK for JavaScript v2
at cfngen's endpoint: v2, which the plugin's library still uses, ignores `AWS_ENDPOINT_URL`;
v3 reads it, and gets it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError
from cfngen._files._contain import readable, repository_root
from cfngen._languages._runtime import Built, Launch, NotBuilt

_NODE_FILES = Path(__file__).parent / "node"
#: Where the sources of the build are looked for (the plugin's layout and tsconfig).
_SOURCE_FOLDERS = ("src",)
_SOURCE_SUFFIXES = (".ts", ".mts", ".cts", ".js")
_BUILD_INPUTS = ("tsconfig.json",)


class NodeRuntime:
    program = "node"

    def launch(self, root: Path, config: dict[str, Any]) -> Launch:
        built = check_built(root, config)
        export = str(config["entrypoint"]).rpartition(".")[2]
        path = readable(
            root / built.artefact, repository_root(root), what=".rpdk-config entrypoint"
        )
        if not (root / "node_modules").is_dir():
            raise CfngenError(
                f"{root}/node_modules is missing: the handlers' libraries are not installed",
                f"install and build them: npm install && {built.command}",
            )
        node = shutil.which(self.program)
        if node is None:
            raise CfngenError(
                "node is not on PATH: TypeScript handlers run in Node.js",
                "install Node.js (the version of the project's runtime, e.g. 20) and run again",
            )
        return Launch(
            argv=(
                node,
                "--require",
                str(_NODE_FILES / "preload.js"),
                str(_NODE_FILES / "harness.js"),
                str(path),
                export,
            ),
            cwd=root,
            handler=f"{built.artefact}, export {export}",
            endpoint_note=(
                "the AWS SDK for JavaScript v2 (the plugin's library) is pointed at it by "
                "cfngen's preload, v3 by AWS_ENDPOINT_URL"
            ),
            clock_note=(
                "callbackDelaySeconds are waited for real (Node's clock cannot be simulated), "
                "each at most --max-delay seconds"
            ),
        )


def check_built(root: Path, config: dict[str, Any]) -> Built:
    """The module `.rpdk-config`'s entrypoint names, built and newer than its sources; else a
    CfngenError naming the build command."""
    entrypoint = config.get("entrypoint")
    if not isinstance(entrypoint, str) or "." not in entrypoint.strip("."):
        raise CfngenError(
            f".rpdk-config: entrypoint {entrypoint!r} is not a built module and export",
            'write it as the TypeScript plugin does: "dist/handlers.entrypoint"',
        )
    module = entrypoint.rpartition(".")[0]
    build = build_command(root)
    built = root / f"{module}.js"
    if not built.is_file():
        installed = (root / "node_modules").is_dir()
        raise NotBuilt(
            f"{built.relative_to(root)} is not built (the entrypoint {entrypoint} in .rpdk-config)",
            f"build the handlers first: {build if installed else 'npm install && ' + build}",
            build,
        )
    newer = newer_source(root, built.stat().st_mtime)
    if newer is not None:
        raise NotBuilt(
            f"{built.relative_to(root)} is older than {newer}: it holds the handlers as "
            "they were at the last build",
            f"build them again: {build}",
            build,
        )
    sources = " and ".join([*(f"{folder}/" for folder in _SOURCE_FOLDERS), *_BUILD_INPUTS])
    return Built(built.relative_to(root).as_posix(), build, sources)


def build_command(root: Path) -> str:
    """What builds the project: its package.json `build` script, else the compiler."""
    try:
        scripts = json.loads((root / "package.json").read_text("utf-8")).get("scripts")
    except (OSError, ValueError, AttributeError):
        scripts = None
    return "npm run build" if isinstance(scripts, dict) and "build" in scripts else "npx tsc"


def newer_source(root: Path, built: float) -> str | None:
    """A source of the build changed after `built` (a modification time), or None."""
    candidates = [root / name for name in _BUILD_INPUTS]
    for folder in _SOURCE_FOLDERS:
        for parent, dirs, files in os.walk(root / folder):
            dirs[:] = [d for d in dirs if d != "node_modules" and not d.startswith(".")]
            candidates.extend(Path(parent) / f for f in files if f.endswith(_SOURCE_SUFFIXES))
    for path in sorted(candidates):
        try:
            if path.stat().st_mtime > built:
                return path.relative_to(root).as_posix()
        except OSError:
            continue
    return None


TYPESCRIPT_RUNTIME = NodeRuntime()
