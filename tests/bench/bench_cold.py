"""Cold `cfngen test -q` on the example resource: this checkout's CPU against older checkouts'.

    python tests/bench/bench_cold.py --before ../4e971c4 [--before ../86b4cf2] [--runs 10]

Makes the example (`cfngen init --example --no-input --no-git`, by this checkout) in a
temporary folder and runs `python -m cfngen test -q` on it with each checkout first on
`PYTHONPATH`, alternating, one untimed round first (it writes each checkout's bytecode caches),
then `--runs` rounds. Prints each one's median CPU (user + system, the worker processes
included) and wall time, and the ratio of this checkout's median CPU to each older one's: the
figure issue 30 sets a target for (at most 0.60 of 4e971c4's). CPU, not wall: on a machine
others load, wall times mostly measure them.

An older checkout is a git worktree: `git worktree add ../4e971c4 4e971c4`.
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

AWS = {
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--before", type=Path, action="append", default=[], help="an older checkout (repeatable)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cfngen-bench-cold-") as tmp:
        root = Path(tmp) / "ex"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "cfngen",
                "init",
                "--example",
                "--no-input",
                "--no-git",
                str(root),
            ],
            check=True,
            capture_output=True,
            env=bench_env(PYTHONPATH=str(REPO)),
        )
        checkouts = {path.resolve().name: path.resolve() for path in args.before}
        checkouts["this checkout"] = REPO
        commands = {
            name: Command(
                [sys.executable, "-m", "cfngen", "test", "-q"],
                root,
                bench_env(PYTHONPATH=str(path), **AWS),
            )
            for name, path in checkouts.items()
        }
        print(f"cold cfngen test -q on the example, {args.runs} alternating rounds; {load_note()}")
        found = alternate(commands, args.runs)
        mine = found["this checkout"].cpu_median
        for name, command in commands.items():
            samples = found[name]
            ratio = (
                ""
                if name == "this checkout"
                else f"; this checkout's CPU / its: {mine / samples.cpu_median:.2f}"
            )
            print(
                f"  {name}: CPU median {samples.cpu_median * 1000:.0f} ms "
                f"(min {min(samples.cpu) * 1000:.0f}), wall median "
                f"{samples.median * 1000:.0f} ms{ratio}"
            )
            print(f"    {command.shell()}")
        print(f"after: {load_note()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
