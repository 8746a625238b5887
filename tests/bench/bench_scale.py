"""Benchmark: how `cfngen validate` and `cfngen generate --force` grow with the schema.

    python tests/bench/bench_scale.py [--sizes 2500,5000,10000,20000] [--shape flat|wide]
                                      [--runs 1] [--keep DIR] [--source DIR]

For each size it writes a project with a synthetic schema (tests/_big_schemas.py: `flat` puts
every property at the top level, `wide` spreads them over definitions of 50) and times whole
processes, one size after another in every round:

  cfngen validate <schema>        and        cfngen generate --force <project>

Each sample is wall-clock time, CPU time (user + system, children included) and the peak
resident memory of the process and its children (`ru_maxrss`, what `/usr/bin/time -v` calls
"Maximum resident set size"). Growth is linear when doubling the size doubles the time: the
`x` columns give the ratio to the previous size. Every command is printed so it can be rerun
by hand, e.g. `/usr/bin/time -v cfngen generate --force DIR`. `--source DIR` times another
checkout of cfngen instead (`python -m cfngen` with PYTHONPATH=DIR), e.g. an older commit
unpacked with `git archive COMMIT | tar -x -C DIR`.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests._big_schemas import flat, wide  # noqa: E402
from tests._generate_helpers import make_project  # noqa: E402
from tests.bench._timing import bench_env  # noqa: E402


def measure(argv: list[str], cwd: Path, source: Path | None) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of one process, measured with wait4's rusage."""
    # Growth of the generator's work is the point: no models from cfngen's cache.
    env = bench_env(CFNGEN_NO_CACHE="1", **({"PYTHONPATH": str(source)} if source else {}))
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{shlex.join(argv)} exited {code}: {proc.stderr.read().decode()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="2500,5000,10000,20000")
    parser.add_argument("--shape", choices=("flat", "wide"), default="flat")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument("--source", type=Path, default=None)
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="cfngen-scale-"))
    cfngen = (
        [sys.executable, "-m", "cfngen"]
        if args.source
        else [str(Path(sys.executable).with_name("cfngen"))]
    )
    make = flat if args.shape == "flat" else wide
    sizes = [int(s) for s in args.sizes.split(",")]
    projects = {}
    for n in sizes:
        root = make_project(folder / f"{args.shape}-{n}", make(n))
        projects[n] = root
        schema = next(root.glob("acme-scale-thing.json"))
        print(f"# n={n}: {schema} ({schema.stat().st_size / 1e6:.1f} MB)")
        print(f"#   {shlex.join([*cfngen, 'validate', str(schema)])}")
        print(f"#   CFNGEN_NO_CACHE=1 {shlex.join([*cfngen, 'generate', '--force', str(root)])}")
    rows: dict[int, dict[str, list[tuple[float, float, float]]]] = {n: {} for n in sizes}
    for _ in range(args.runs):
        for n, root in projects.items():
            schema = root / "acme-scale-thing.json"
            rows[n].setdefault("validate", []).append(
                measure([*cfngen, "validate", str(schema)], root, args.source)
            )
            rows[n].setdefault("generate", []).append(
                measure([*cfngen, "generate", "--force", str(root)], root, args.source)
            )
    load = os.getloadavg()[0]
    print(f"\nload average {load:.1f}; medians of {args.runs} run(s)")
    print("| properties | schema | validate wall / CPU / RSS | x | generate wall / CPU / RSS | x |")
    print("|---|---|---|---|---|---|")
    previous: dict[str, float] = {}
    for n in sizes:
        size = (projects[n] / "acme-scale-thing.json").stat().st_size / 1e6
        cells = []
        for command in ("validate", "generate"):
            samples = sorted(rows[n][command])
            wall, cpu, rss = samples[len(samples) // 2]
            growth = f"{cpu / previous[command]:.1f}" if command in previous else ""
            previous[command] = cpu
            cells += [f"{wall:.1f} s / {cpu:.1f} s / {rss:.0f} MiB", growth]
        print(f"| {n} | {size:.1f} MB | " + " | ".join(cells) + " |")
    print(json.dumps({"folder": str(folder)}))


if __name__ == "__main__":
    main()
