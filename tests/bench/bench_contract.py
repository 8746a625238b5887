"""Whole-process time of `cfngen test` on the example resource type (SSM parameters, moto).

    python tests/bench/bench_contract.py [--runs 5] [--before CHECKOUT]

Makes the example with `cfngen init --no-input --no-git --example` in a temporary folder, runs
`cfngen test` in it as a user would (a fresh interpreter each time: imports, moto, the 16
contract tests), and prints the wall-clock times. The same measurement with hyperfine:

    cfngen init --no-input --example demo && cd demo && hyperfine --warmup 1 'cfngen test'

With --before, the same command from an older checkout of cfngen (PYTHONPATH) runs alternately
with this one's, on the example and on tests/fixtures/contract/drift (a resource whose schema
has propertyTransforms, every value returned as sent), so the cost of a change to the contract
is a ratio measured side by side; and, for this checkout only, the fixture returning patched
versions, which only the transform puts in sync.
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", type=Path, help="an older checkout, run side by side")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "example"
        cfngen = str(Path(sys.executable).with_name("cfngen"))
        subprocess.run(
            [cfngen, "init", "--no-input", "--no-git", "--example", str(root)],
            check=True,
            capture_output=True,
        )
        if args.before is None:
            commands = {
                "cfngen test": Command([cfngen, "test", "--format", "json"], root, bench_env())
            }
        else:
            drift = Path(tmp) / "drift"
            shutil.copytree(REPO / "tests" / "fixtures" / "contract" / "drift", drift)
            judged = Path(tmp) / "drift-judged"
            shutil.copytree(drift, judged)
            handlers = judged / "src" / "acme_drift_record" / "handlers.py"
            text = handlers.read_text()
            handlers.write_text(text.replace("QUIRK = None  # QUIRK", 'QUIRK = "patch-version"'))
            runs = [
                ("before", args.before.resolve(), "example", root),
                ("after", REPO, "example", root),
                ("before", args.before.resolve(), "drift fixture", drift),
                ("after", REPO, "drift fixture", drift),
                # Only this one can pass: the returned versions are in sync by the transform.
                ("after", REPO, "drift fixture, every version judged", judged),
            ]
            commands = {
                f"{which} {name}": Command(
                    [sys.executable, "-m", "cfngen", "test", "--format", "json"],
                    project,
                    bench_env(PYTHONPATH=str(checkout), **AWS),
                )
                for which, checkout, name, project in runs
            }
        print(f"{args.runs} runs after one warm-up (bytecode caches); {load_note()}")
        # The warm-up run writes __pycache__ and warms the file cache.
        found = alternate(commands, args.runs)
        for name, command in commands.items():
            print(f"  {name}: cfngen test, whole process: {found[name].describe()}")
            print(f"    command: {command.shell()}")
        print(f"after: {load_note()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
