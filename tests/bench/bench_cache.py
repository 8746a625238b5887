"""What reading from cfngen's caches costs, before and after a change to the cache layer, side by
side: every command whose fast path is a cache hit, run by two checkouts alternately.

    python tests/bench/bench_cache.py --before /path/to/older/checkout [--runs 7]

Each checkout gets its own home (CFNGEN_HOME) and its own copy of every project, filled by an
untimed first run; then every round runs, for both: `cfngen generate --force` (models from the
model cache), `cfngen init --no-input --no-git` (models from the cache, the template cache
synced), `cfngen validate` of a module (the report from the cache), `cfngen build` with nothing
changed (the handler zip from the cache), `cfngen build` after an edit to handlers.py (the
installed dependencies from the cache, the zip made again), and `cfngen invoke` of a handler
that imports a 3 MB distribution from requirements.txt (installed for the run once, read from
the cache after). The build's dependencies come from this machine's pip index on the first
run only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests._wheelhouse import write_wheel  # noqa: E402
from tests.bench._timing import Command, alternate, bench_env, load_note  # noqa: E402

AWS = {
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}
HANDLERS = """\
from cloudformation_cli_python_lib import Action, OperationStatus, ProgressEvent, Resource

import acme_bulk

from .models import ResourceHandlerRequest, ResourceModel

resource = Resource("Acme::Svc::Widget", ResourceModel)
test_entrypoint = resource.test_entrypoint


@resource.handler(Action.READ)
def read_handler(session, request: ResourceHandlerRequest, callback_context):
    model = ResourceModel(Id="w", Name=str(acme_bulk.ANSWER))
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)
"""


def cfngen(checkout: Path, home: Path, cwd: Path, *args: str, **env: str) -> Command:
    return Command(
        [sys.executable, "-m", "cfngen", *args],
        cwd,
        bench_env(PYTHONPATH=str(checkout), CFNGEN_HOME=str(home), **AWS, **env),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the older checkout")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="work here and keep it (default: a temp dir)")
    options = parser.parse_args()
    work = options.keep or Path(tempfile.mkdtemp(prefix="bench-cache-"))
    work.mkdir(parents=True, exist_ok=True)
    house = work / "wheelhouse"
    bulk = {f"acme_bulk/m{i:03}.py": (f"# {i}\n" + "X = 1\n" * 2700).encode() for i in range(200)}
    bulk["acme_bulk/__init__.py"] = b"ANSWER = 42\n"
    write_wheel(house, "acme-bulk", "1.0", bulk)
    pip = {"PIP_FIND_LINKS": str(house), "PIP_NO_INDEX": "1"}

    commands: dict[str, Command] = {}
    for name, checkout in (("before", options.before.resolve()), ("after", REPO)):
        base = work / name
        shutil.rmtree(base, ignore_errors=True)
        base.mkdir()
        home = base / "home"
        init = ("init", "--no-input", "--no-git")
        widget_type = ("-t", "Acme::Svc::Widget")
        for command in (
            cfngen(checkout, home, base, *init, *widget_type, "widget"),
            cfngen(
                checkout,
                home,
                base,
                *init,
                "--artifact-type",
                "module",
                "-t",
                "Acme::Svc::Vpc::MODULE",
                "vpc",
            ),
            cfngen(checkout, home, base, *init, *widget_type, "runs"),
        ):
            subprocess.run(command.argv, cwd=command.cwd, env=command.env, check=True)
        runs = base / "runs"
        (runs / "requirements.txt").write_text("acme-bulk==1.0\n")
        (runs / "src" / "acme_svc_widget" / "handlers.py").write_text(HANDLERS)
        (runs / "request.json").write_text(json.dumps({"desiredResourceState": {"Id": "w"}}))
        widget = base / "widget"
        handlers = widget / "src" / "acme_svc_widget" / "handlers.py"
        edits = iter(range(10**6))

        def edit(handlers: Path = handlers, edits=edits) -> None:
            handlers.write_text(handlers.read_text() + f"# edit {next(edits)}\n")

        timed = {
            "generate --force": cfngen(checkout, home, widget, "generate", "--force"),
            "init": cfngen(checkout, home, base, *init, *widget_type, "fresh"),
            "validate (module)": cfngen(checkout, home, base / "vpc", "validate"),
            "build, nothing changed": cfngen(checkout, home, widget, "build"),
            "build, handlers.py edited": cfngen(checkout, home, widget, "build"),
            "invoke, requirements installed": cfngen(
                checkout, home, runs, "invoke", "READ", "request.json", **pip
            ),
        }
        timed["init"].setup = lambda base=base: shutil.rmtree(base / "fresh", ignore_errors=True)
        timed["build, handlers.py edited"].setup = edit
        for command in timed.values():  # untimed: fills every cache
            if command.setup:
                command.setup()
            subprocess.run(command.argv, cwd=command.cwd, env=command.env, check=True,
                           capture_output=True)  # fmt: skip
        for what, command in timed.items():
            commands[f"{what} [{name}]"] = command

    print(load_note())
    samples = alternate(commands, options.runs)
    print(load_note())
    for what, result in samples.items():
        print(f"{what:45} {result.describe()}")
    if not options.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    os.environ.pop("CFNGEN_NO_CACHE", None)
    raise SystemExit(main())
