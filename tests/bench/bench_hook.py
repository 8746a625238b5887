"""Whole-process `cfngen generate` on a hook against the official `cfn generate --local-only`,
side by side, and `cfngen test` on the example hook.

    python tests/bench/bench_hook.py [--runs N] [--keep DIR]

The project is the official tool's: `cfn init -a HOOK` (which stops at its own generate step
without AWS credentials, after writing the project), the official example schema (one target,
AWS::S3::Bucket) and the target's schema in `target-schemas/aws-s3-bucket.json` (the bundled
one, as cfngen writes it), so that `cfn generate --local-only` runs offline. Alternating in
every round:

- `cfn generate --local-only` in its own copy of the project;
- `cfngen generate --force`: every derived file rendered and compared again; the typed model
  of AWS::S3::Bucket comes from cfngen's model cache, filled by an earlier run;
- the same with CFNGEN_NO_CACHE=1 (the models rendered by datamodel-code-generator: what the
  first generate of a target type on a machine costs);
- `cfngen generate` with nothing changed.

Then `cfngen test` on `cfngen init --artifact-type hook --example`. Each command is printed
so that it can be rerun with hyperfine, e.g. from DIR/Bench-S3-BucketHook-official:

    hyperfine -N --warmup 2 'cfn generate --local-only' \\
        'cfngen generate --force ../Bench-S3-BucketHook'

    python tests/bench/bench_hook.py --violations [--keep DIR]

instead times how quickly `cfngen test` (whole process, default options) catches each contract
violation planted in a correct hook (the table of tests/test_hook_contract.py; the slow
handler sleeps 90 s, over the default limit of 60 s), and checks that the right test failed.
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
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.bench._timing import Command, alternate, bench_env, load_note  # noqa: E402

BIN = Path(sys.executable).parent
TYPE_NAME = "Bench::S3::BucketHook"
OFFLINE = {
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def make_project(parent: Path) -> Path:
    from cfngen._kinds._shared import _targets

    root = parent / TYPE_NAME.replace("::", "-")
    root.mkdir()
    # Its last step (generate without --local-only) needs AWS: the project is there before.
    subprocess.run(
        [str(BIN / "cfn"), "init", "-t", TYPE_NAME, "-a", "HOOK", "python312", "--no-docker"],
        cwd=root,
        capture_output=True,
        check=False,
        env=bench_env(**OFFLINE),
    )
    (root / "rpdk.log").unlink(missing_ok=True)
    schemas = root / "target-schemas"
    schemas.mkdir()
    text = _targets.bundled_schema_text("AWS::S3::Bucket")
    assert text is not None
    (schemas / "aws-s3-bucket.json").write_text(text)
    schema = json.loads((root / "bench-s3-buckethook.json").read_text())
    assert schema["handlers"]["preCreate"]["targetNames"] == ["AWS::S3::Bucket"]
    return root


def violations(work: Path) -> int:
    """Each planted violation: the test that caught it, and the whole process's wall time."""
    import time

    from tests._hook_projects import guard_project
    from tests.test_hook_contract import VIOLATIONS

    env = bench_env(CFNGEN_HOME=str(work / "cfngen-home"), **OFFLINE)
    cfngen = str(BIN / "cfngen")
    bodies: dict[str, tuple[str | None, str | None]] = {"(correct hook)": (None, None)}
    for name, (body, test) in VIOLATIONS.items():
        slow = name == "a slow handler"
        bodies[name] = ("    time.sleep(90)\n" if slow else body, test)
    print(f"cfngen test, whole process, default options; {load_note()}")
    wrong = 0
    for number, (name, (body, test)) in enumerate(bodies.items()):
        root = guard_project(work / f"planted-{number}", body)
        subprocess.run([cfngen, "generate"], cwd=root, env=env, check=True, capture_output=True)
        started = time.perf_counter()
        done = subprocess.run(
            [cfngen, "test", "--format", "json"],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.perf_counter() - started
        outcomes = {t["name"]: t["outcome"] for t in json.loads(done.stdout)["tests"]}
        failed = sorted(n for n, o in outcomes.items() if o == "failed")
        right = not failed if test is None else test in failed
        wrong += not right
        print(
            f"  {name:<36} exit {done.returncode}  {seconds:6.2f} s  "
            f"{'ok' if right else 'WRONG'}: failed {', '.join(failed) or 'nothing'}"
        )
    print(f"  $ cd {work}/planted-N && cfngen test")
    return 1 if wrong else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--keep", type=Path, help="make the projects here and keep them")
    parser.add_argument(
        "--violations", action="store_true", help="time how quickly each planted bug is caught"
    )
    args = parser.parse_args()

    if args.violations:
        with tempfile.TemporaryDirectory(prefix="cfngen-bench-hook-") as tmp:
            work = args.keep or Path(tmp)
            work.mkdir(parents=True, exist_ok=True)
            return violations(work)

    with tempfile.TemporaryDirectory(prefix="cfngen-bench-hook-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        home = work / "cfngen-home"
        env = bench_env(CFNGEN_HOME=str(home), **OFFLINE)
        root = make_project(work)
        official = root.with_name(root.name + "-official")
        shutil.copytree(root, official)
        cfngen = str(BIN / "cfngen")
        subprocess.run([cfngen, "generate"], cwd=root, env=env, check=True, capture_output=True)
        commands = {
            "cfn generate --local-only": Command(
                [str(BIN / "cfn"), "generate", "--local-only"], official, env
            ),
            "cfngen generate --force": Command([cfngen, "generate", "--force"], root, env),
            "  (same, CFNGEN_NO_CACHE=1)": Command(
                [cfngen, "generate", "--force"], root, {**env, "CFNGEN_NO_CACHE": "1"}
            ),
            "cfngen generate (no-op)": Command([cfngen, "generate"], root, env),
        }
        print(f"{args.runs} rounds, commands alternating, medians; {load_note()}")
        for command in commands.values():
            print(f"  $ {command.shell()}")
        samples = alternate(commands, args.runs)
        for name, value in samples.items():
            print(f"  {name:<28} {value.describe()}")
        reference = samples["cfn generate --local-only"]
        for name in ("cfngen generate --force", "  (same, CFNGEN_NO_CACHE=1)"):
            mine = samples[name]
            rounds = [m / o for m, o in zip(mine.wall, reference.wall, strict=True)]
            print(
                f"  {name.strip()} / official = {mine.median / reference.median:.2f} "
                f"(median of per-round ratios {statistics.median(rounds):.2f}; target <= 0.60)"
            )

        example = work / "example"
        subprocess.run(
            [cfngen, "init", "--no-input", "--artifact-type", "hook", "--example", str(example)],
            env=env,
            check=True,
            capture_output=True,
        )
        test = {"cfngen test (example hook)": Command([cfngen, "test"], example, env)}
        print(f"  $ {test['cfngen test (example hook)'].shell()}")
        timed = alternate(test, args.runs)["cfngen test (example hook)"]
        print(f"  cfngen test (example hook)   {timed.describe()} (target < 3 s)")
        if args.keep:
            print(f"projects kept in {work}")
    return 0


if __name__ == "__main__":
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    raise SystemExit(main())
