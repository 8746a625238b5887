"""Go handlers (cloudformation-cli-go-plugin): the `bootstrap` the plugin's Makefile builds,
run as it is.

`.rpdk-config` records `"entrypoint": "bootstrap"` (`"handler"` in older go1.x projects) and
the Makefile builds it into `bin/`. The binary is a Lambda runtime by itself: aws-lambda-go
speaks the Lambda Runtime API when `AWS_LAMBDA_RUNTIME_API` is set, so cfngen starts it under
its emulation (cfngen/_contract/_runtime_api.py) with nothing of its own in the process. What
that means for its AWS calls and its network (docs/languages.md): the AWS SDK for Go v2 reads
`AWS_ENDPOINT_URL`; v1, which the plugin's library uses, does not, and its calls meet the proxy
variables cfngen sets (a closed loopback port) and fail; there is no preload to refuse a
handler's own connections by name, only those proxy variables.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError
from cfngen._files._contain import readable, repository_root
from cfngen._languages._runtime import Built, Launch, NotBuilt

_SOURCE_SUFFIXES = (".go",)
_BUILD_INPUTS = ("go.mod", "go.sum")
BUILD = "make"


class BootstrapRuntime:
    program = "bootstrap"

    def launch(self, root: Path, config: dict[str, Any]) -> Launch:
        built = check_built(root, config)
        path = readable(
            root / built.artefact, repository_root(root), what=".rpdk-config entrypoint"
        )
        return Launch(
            argv=(str(path),),
            cwd=root,
            handler=built.artefact,
            # The plugin's library publishes metrics to CloudWatch (twice per invocation,
            # before and after the handler, waiting for each) and looks up a CloudWatch Logs
            # group once, through the AWS SDK for Go v1: against the closed proxy each call
            # is retried with backoff, about a second per invocation. It skips both when
            # AWS_SAM_LOCAL is set, as under `sam local`, which the official `cfn test` runs
            # handlers with: the metrics go nowhere and its log goes to stderr.
            env={"AWS_SAM_LOCAL": "true"},
            endpoint_note=(
                "the AWS SDK for Go v2 reads AWS_ENDPOINT_URL; v1 (the plugin's library) does "
                "not, and its calls fail against a closed loopback proxy"
            ),
            clock_note=(
                "callbackDelaySeconds are waited for real (a Go clock cannot be simulated), "
                "each at most --max-delay seconds"
            ),
        )


def check_built(root: Path, config: dict[str, Any]) -> Built:
    """The executable `.rpdk-config`'s entrypoint names, built (bin/ or the project folder) and
    newer than the Go sources; else a CfngenError naming the build command."""
    name = config.get("entrypoint")
    if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
        raise CfngenError(
            f".rpdk-config: entrypoint {name!r} is not the name of a built executable",
            'write it as the Go plugin does: "bootstrap"',
        )
    candidates = [root / "bin" / name, root / name]
    built = next((path for path in candidates if path.is_file()), None)
    if built is None:
        raise NotBuilt(
            f"bin/{name} is not built (the entrypoint in .rpdk-config)",
            f"build the handlers first: {BUILD} (the plugin's Makefile: go build into bin/)",
            BUILD,
        )
    if not os.access(built, os.X_OK):
        raise NotBuilt(
            f"{built.relative_to(root)} is not executable", f"build it again: {BUILD}", BUILD
        )
    newer = newer_source(root, built.stat().st_mtime)
    if newer is not None:
        raise NotBuilt(
            f"{built.relative_to(root)} is older than {newer}: it holds the handlers as "
            "they were at the last build",
            f"build them again: {BUILD}",
            BUILD,
        )
    sources = "the .go files, " + " and ".join(_BUILD_INPUTS)
    return Built(built.relative_to(root).as_posix(), BUILD, sources)


def newer_source(root: Path, built: float) -> str | None:
    """A Go source or module file changed after `built` (a modification time), or None."""
    candidates = [root / name for name in _BUILD_INPUTS]
    for parent, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ("bin", "vendor", "node_modules") and d[0] != "."]
        candidates.extend(Path(parent) / f for f in files if f.endswith(_SOURCE_SUFFIXES))
    for path in sorted(candidates):
        try:
            if path.stat().st_mtime > built:
                return path.relative_to(root).as_posix()
        except OSError:
            continue
    return None


GO_RUNTIME = BootstrapRuntime()
