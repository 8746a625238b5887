"""Whole-process time of `cfngen init --no-input` (render, generate, git commit) against the
official `cfn init` followed by `cfn generate`, measured side by side in one run.

    python tests/bench/bench_init.py [--runs 10]

Each run starts in a fresh empty folder; the two tools alternate so that machine load hits both
alike. cfngen's template cache is built once before timing (as it is after a user's first
`cfngen init` on a machine); the first, cold init is reported on its own. While
`cfngen generate` is a stub in a branch, cfngen runs with the test suite's interface fake of it,
which the report says.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.test_init_support import cfngen_argv, generate_is_stub  # noqa: E402

TYPE_NAME = "Acme::Svc::Widget"
BIN = Path(sys.executable).parent


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()

    fake = generate_is_stub()
    cfngen = cfngen_argv() if fake else [str(BIN / "cfngen")]
    with tempfile.TemporaryDirectory(prefix="bench-init-") as tmp:
        base = Path(tmp)
        home = base / "home"
        home.mkdir()
        env = {k: v for k, v in os.environ.items() if k != "CFNGEN_HOME"}
        env.update(HOME=str(home), PYTHONPATH=str(REPO), GIT_CONFIG_NOSYSTEM="1")
        env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"

        def ours(i: int) -> float:
            folder = base / f"ours-{i}"
            return timed(
                [*cfngen, "init", "--no-input", "--type-name", TYPE_NAME, str(folder)], base, env
            )

        def theirs(i: int) -> float:
            folder = base / f"theirs-{i}"
            folder.mkdir()
            init = [str(BIN / "cfn"), "init", "-t", TYPE_NAME, "-a", "RESOURCE", "python312"]
            first = timed([*init, "--no-docker"], folder, env)
            return first + timed([str(BIN / "cfn"), "generate"], folder, env)

        cold = ours(-1)
        ours_times, theirs_times = [], []
        for i in range(args.runs):
            if i % 2:
                theirs_times.append(theirs(i))
                ours_times.append(ours(i))
            else:
                ours_times.append(ours(i))
                theirs_times.append(theirs(i))

    def describe(times: list[float]) -> str:
        return f"median {statistics.median(times):.2f} s, min {min(times):.2f} s"

    ratio = statistics.median(ours_times) / statistics.median(theirs_times)
    note = " (generate: the test suite's interface fake)" if fake else ""
    print(f"runs: {args.runs}, {os.cpu_count()} CPUs")
    print(f"cfngen init --no-input{note}: {describe(ours_times)}; first, cold cache: {cold:.2f} s")
    print(f"cfn init + cfn generate: {describe(theirs_times)}")
    print(f"ratio (cfngen / cfn, medians): {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
