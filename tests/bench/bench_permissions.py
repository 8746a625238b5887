"""What the permission contract (issue 24, part 1) costs `cfngen test` on the example resource,
side by side with a checkout from before it: the same project, run by both checkouts in turn.

    python tests/bench/bench_permissions.py --before /path/to/older/checkout [--runs 15]

Each checkout gets its own home (CFNGEN_HOME: the newer one keeps the reduced IAM table there,
filled by the untimed warm-up round) and its own copy of the example `cfngen init --example`
makes; every round runs `cfngen test` once with each.
"""

from __future__ import annotations

import argparse
import shutil
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", type=Path, required=True, help="a checkout before the change")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cfngen-bench-permissions-"))
    try:
        made = work / "made"
        made.mkdir()
        subprocess.run(
            [sys.executable, "-m", "cfngen", "init", "--no-input", "--no-git", "--example", "ex"],
            cwd=made,
            env=bench_env(PYTHONPATH=str(REPO), CFNGEN_HOME=str(work / "init-home")),
            check=True,
            capture_output=True,
        )
        commands = {}
        for name, checkout in (("before", args.before.resolve()), ("after", REPO)):
            project = work / name / "ex"
            shutil.copytree(made / "ex", project)
            env = bench_env(PYTHONPATH=str(checkout), CFNGEN_HOME=str(work / name / "home"), **AWS)
            commands[name] = Command([sys.executable, "-m", "cfngen", "test"], project, env)
        print(load_note())
        samples = alternate(commands, args.runs)
        for name, command in commands.items():
            print(f"{name:7} {samples[name].describe()}  {command.shell()}")
        ratio = samples["after"].median / samples["before"].median
        cpu = samples["after"].cpu_median / samples["before"].cpu_median
        print(f"after / before: wall {ratio:.3f}, CPU {cpu:.3f}")
        print(load_note())
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
