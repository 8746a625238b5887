"""Whole-process `cfngen generate` against the official `cfn generate`, side by side.

    python tests/bench/bench_generate.py [--runs N] [--schemas A::B::C ...] [--keep DIR] [--corpus]

For each schema (default: AWS::Logs::LogGroup and AWS::AppFlow::Flow, a large schema the official
tool accepts), a project is made with `cfn init` and given the corpus schema; then, alternating
in every round: `cfn generate` (in its own copy of the project), `cfngen generate --force` with
CFNGEN_NO_CACHE=1 (a full generate, models rendered), the same with CFNGEN_NO_FORK=1 as well
(models rendered in the same process, for comparison), the same with the model cache (models
read from ~/.cfngen/cache/models/, as on every generate of a schema seen before), and `cfngen
generate` with nothing changed (the no-op path). Prints medians, CPU times, and the two ratios
the issue targets: full/official (at most 0.5) and no-op/full (at most 0.2). Each command is
printed so that it can be rerun with hyperfine.

--keep DIR leaves the projects there (DIR/Bench-Logs-LogGroup and its `-official` copy, ...) to
rerun the commands by hand, e.g. from DIR/Bench-Logs-LogGroup-official:

    hyperfine -N --warmup 2 'cfn generate' \
        'env CFNGEN_NO_CACHE=1 cfngen generate --force ../Bench-Logs-LogGroup'

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
from tests.bench._timing import Command, alternate, bench_env, load_note  # noqa: E402

BIN = Path(sys.executable).parent
DEFAULT_SCHEMAS = ["AWS::Logs::LogGroup", "AWS::AppFlow::Flow"]


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


def commands(root: Path, official_copy: Path) -> dict[str, Command]:
    env = bench_env()
    cfngen = str(BIN / "cfngen")
    return {
        "cfn generate": Command([str(BIN / "cfn"), "generate"], official_copy, env),
        # The official tool renders every time: so does this figure (no model cache).
        "cfngen generate --force": Command(
            [cfngen, "generate", "--force"], root, bench_env(CFNGEN_NO_CACHE="1")
        ),
        "  (same, CFNGEN_NO_FORK=1)": Command(
            [cfngen, "generate", "--force"],
            root,
            bench_env(CFNGEN_NO_FORK="1", CFNGEN_NO_CACHE="1"),
        ),
        "  (same, models from the cache)": Command([cfngen, "generate", "--force"], root, env),
        "cfngen generate (no-op)": Command([cfngen, "generate"], root, env),
    }


def bench_corpus() -> None:
    from cfngen._kind import named
    from cfngen._kinds.resource._derive import render_project
    from cfngen._project import Project

    start = time.perf_counter()
    failures = 0
    for name, schema in corpus().items():
        private = "Bench::" + "::".join(name.split("::")[1:])
        config = {"typeName": private, "runtime": "python3.12"}
        project = Project(Path("."), named("resource"), config)
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
    parser.add_argument("--corpus", action="store_true", help="also time the whole corpus")
    parser.add_argument("--keep", type=Path, help="make the projects here and keep them")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="cfngen-bench-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        projects = [make_project(work, name) for name in args.schemas or DEFAULT_SCHEMAS]
        print(f"{args.runs} rounds, commands alternating, medians; {load_note()}")
        for root in projects:
            # `cfn generate` rewrites the derived files its own way: it gets its own copy.
            official_copy = root.with_name(root.name + "-official")
            shutil.copytree(root, official_copy)
            cmds = commands(root, official_copy)
            accepted = official_accepts(official_copy)
            if not accepted:  # e.g. its 60 KiB limit: time cfngen alone
                del cmds["cfn generate"]
            samples = alternate(cmds, args.runs)
            full = samples["cfngen generate --force"]
            noop = samples["cfngen generate (no-op)"]
            schema = next(p for p in root.glob("*.json"))
            print(f"\n{root.name} ({schema.stat().st_size // 1024} KiB schema)")
            if not accepted:
                print("  cfn generate                 rejects this schema: not compared")
            for name, value in samples.items():
                print(f"  {name:<28} {value.describe()}")
            if accepted:
                official = samples["cfn generate"]
                round_ratios = [f / o for f, o in zip(full.wall, official.wall, strict=True)]
                print(
                    f"  full / official = {full.median / official.median:.2f} "
                    f"(median of per-round ratios {statistics.median(round_ratios):.2f}; "
                    "target <= 0.50)"
                )
            print(f"  no-op / full    = {noop.median / full.median:.2f} (target <= 0.20)")
            print("  commands:")
            for name, command in cmds.items():
                print(f"    {name.strip()}: {command.shell()}")
        print(f"\nafter: {load_note()}")
    if args.corpus:
        bench_corpus()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    sys.exit(main())
