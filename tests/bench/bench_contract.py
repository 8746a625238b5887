"""Whole-process time of `cfngen test` on the example resource type (SSM parameters, moto).

    python tests/bench/bench_contract.py [--runs 5]

Makes the example with `cfngen init --no-input --no-git --example` in a temporary folder, runs
`cfngen test` in it as a user would (a fresh interpreter each time: imports, moto, the 16
contract tests), and prints the wall-clock times. The same measurement with hyperfine:

    cfngen init --no-input --example demo && cd demo && hyperfine --warmup 1 'cfngen test'
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.bench._timing import Command, alternate, bench_env, load_note  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "example"
        cfngen = str(Path(sys.executable).with_name("cfngen"))
        subprocess.run(
            [cfngen, "init", "--no-input", "--no-git", "--example", str(root)],
            check=True,
            capture_output=True,
        )
        command = Command(
            [cfngen, "test", "--format", "json"],
            root,
            bench_env(),
        )
        print(f"{args.runs} runs after one warm-up (bytecode caches); {load_note()}")
        # The warm-up run writes __pycache__ and warms the file cache.
        samples = alternate({"cfngen test": command}, args.runs)["cfngen test"]
        print(f"  cfngen test on the example, whole process: {samples.describe()}")
        print(f"  command: {command.shell()}")
        print(f"after: {load_note()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
