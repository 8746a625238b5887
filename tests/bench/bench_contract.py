"""Whole-process time of `cfngen test` on the example resource type (SSM parameters, moto).

    python tests/bench/bench_contract.py [--runs 5]

Copies tests/fixtures/contract/ssm_example to a temporary folder, runs `cfngen test` in it as
a user would (a fresh interpreter each time: imports, moto, the 16 contract tests), and prints
the wall-clock times. The same measurement with hyperfine, from a copy of the example:

    hyperfine --warmup 1 'cfngen test'
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "contract" / "ssm_example"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "example"
        shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__"))
        command = [sys.executable, "-m", "cfngen", "test", "--format", "json"]
        times = []
        for run in range(args.runs + 1):
            started = time.perf_counter()
            result = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
            elapsed = time.perf_counter() - started
            if result.returncode != 0:
                print(result.stdout, result.stderr, file=sys.stderr)
                return 1
            if run:  # the first run warms the file cache and writes __pycache__
                times.append(elapsed)
        print(
            f"cfngen test on the example, whole process, {args.runs} runs: "
            f"min {min(times):.2f} s, median {statistics.median(times):.2f} s, "
            f"max {max(times):.2f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
