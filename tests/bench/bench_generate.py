"""Whole-process `cfngen generate` against the official `cfn generate`, side by side.

    python tests/bench/bench_generate.py [--runs N] [--schemas A::B::C ...] [--fakes] [--corpus]

For each schema (default: AWS::Logs::LogGroup and a large one the official tool accepts), a
project is made with `cfn init` and given the corpus schema; then, alternating in one run:
`cfn generate`, `cfngen generate --force` (a full generate) and `cfngen generate` with nothing
changed (the no-op path). Prints medians and the two ratios the issue targets: full/official
(at most 0.5) and no-op/full (at most 0.2). Uses hyperfine when it is on PATH, else a timing loop.

--fakes swaps the model and example-input renderers for trivial stand-ins, which measures what
generate itself costs (validation, role, SAM template, docs, writing) before those exist.
--corpus also times rendering every corpus schema's derived files in one process.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests._corpus import corpus  # noqa: E402

BIN = Path(sys.executable).parent
DEFAULT_SCHEMAS = ["AWS::Logs::LogGroup"]
#: Large schemas under the official tool's 60 KiB limit, tried in order.
LARGE_CANDIDATES = ["AWS::AppFlow::Flow", "AWS::DynamoDB::Table", "AWS::SageMaker::Domain"]
FAKES = """\
import sys
import cfngen._instances, cfngen._models
cfngen._models.render_models = lambda s, c=None: {"models.py": "", "cfngen_runtime.py": ""}
cfngen._instances.example_inputs = lambda s: {"create": {}, "update": {}, "invalid": {}}
from cfngen._cli import main
sys.exit(main(sys.argv[1:]))
"""


def make_project(parent: Path, type_name: str) -> Path:
    """A `cfn init` project whose schema is the corpus schema, renamed to a private type."""
    _, service, resource = type_name.split("::")
    private = f"Bench::{service}::{resource}"
    root = parent / private.replace("::", "-")
    root.mkdir()
    subprocess.run(
        [str(BIN / "cfn"), "init", "-t", private, "-a", "RESOURCE", "python312", "--no-docker"],
        cwd=root,
        check=True,
        capture_output=True,
    )
    schema = dict(corpus()[type_name], typeName=private)
    schema_file = root / ("-".join(private.split("::")).lower() + ".json")
    schema_file.write_text(json.dumps(schema, indent=4) + "\n")
    return root


def official_accepts(root: Path) -> bool:
    result = subprocess.run(
        [str(BIN / "cfn"), "generate"], cwd=root, capture_output=True, check=False
    )
    return result.returncode == 0


def commands(root: Path, fakes: Path | None) -> dict[str, list[str]]:
    cfngen = [sys.executable, str(fakes)] if fakes else [sys.executable, "-m", "cfngen"]
    return {
        "cfn generate": [str(BIN / "cfn"), "generate"],  # run in the official copy
        "cfngen generate --force": [*cfngen, "generate", "--force", str(root)],
        "cfngen generate (no-op)": [*cfngen, "generate", str(root)],
    }


def time_loop(cmds: dict[str, list[str]], cwd: Path, runs: int) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in cmds}
    for cmd in cmds.values():  # warm-up: caches, .pyc files, the manifest
        subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)
    for _ in range(runs):
        for name, cmd in cmds.items():
            start = time.perf_counter()
            subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in samples.items()}


def hyperfine(cmds: dict[str, list[str]], cwd: Path, runs: int) -> dict[str, float]:
    export = cwd / ".hyperfine.json"
    names = list(cmds)
    subprocess.run(
        [
            "hyperfine",
            "--warmup",
            "1",
            "--runs",
            str(runs),
            "--export-json",
            str(export),
            *[arg for name in names for arg in ("-n", name)],
            *[" ".join(f"'{a}'" for a in cmds[name]) for name in names],
        ],
        cwd=cwd,
        check=True,
    )
    results = json.loads(export.read_text())["results"]
    export.unlink()
    return {r["command"]: r["median"] for r in results}


def bench_corpus() -> None:
    from cfngen._generate import render_project
    from cfngen._project import Project
    from cfngen._typename import TypeName

    start = time.perf_counter()
    failures = 0
    for name, schema in corpus().items():
        private = "Bench::" + "::".join(name.split("::")[1:])
        project = Project(Path("."), TypeName(private), "RESOURCE", {"runtime": "python3.12"})
        try:
            render_project(project, dict(schema, typeName=private), None)
        except Exception:
            failures += 1
    elapsed = time.perf_counter() - start
    print(
        f"corpus: {len(corpus())} schemas rendered in one process in {elapsed:.1f} s "
        f"({failures} failed)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--schemas", nargs="*", help="corpus type names")
    parser.add_argument("--fakes", action="store_true", help="trivial model/input renderers")
    parser.add_argument("--corpus", action="store_true", help="also time the whole corpus")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="cfngen-bench-") as tmp:
        work = Path(tmp)
        fakes = None
        if args.fakes:
            fakes = work / "cfngen_with_fakes.py"
            fakes.write_text(FAKES)
        projects = [make_project(work, name) for name in (args.schemas or DEFAULT_SCHEMAS)]
        if not args.schemas:
            for name in LARGE_CANDIDATES:
                root = make_project(work, name)
                if official_accepts(root):
                    projects.append(root)
                    break
                shutil.rmtree(root)
        measure = hyperfine if shutil.which("hyperfine") else time_loop
        env_note = "hyperfine" if measure is hyperfine else "a subprocess timing loop"
        print(
            f"{args.runs} runs each, medians, measured with {env_note}"
            f"{' (fake model/input renderers)' if fakes else ''}"
        )
        for root in projects:
            # `cfn generate` rewrites the derived files its own way: it gets its own copy.
            official_copy = root.with_name(root.name + "-official")
            shutil.copytree(root, official_copy)
            medians = measure(commands(root, fakes), official_copy, args.runs)
            official = medians["cfn generate"]
            full = medians["cfngen generate --force"]
            noop = medians["cfngen generate (no-op)"]
            schema = next(p for p in root.glob("*.json"))
            print(f"\n{root.name} ({schema.stat().st_size // 1024} KiB schema)")
            for name, value in medians.items():
                print(f"  {name:<26} {value * 1000:8.0f} ms")
            print(f"  full / official = {full / official:.2f} (target <= 0.50)")
            print(f"  no-op / full    = {noop / full:.2f} (target <= 0.20)")
    if args.corpus:
        bench_corpus()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    sys.exit(main())
