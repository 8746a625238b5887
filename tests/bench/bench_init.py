"""Whole-process time of `cfngen init --no-input` (render, generate, git commit) against the
official `cfn init` followed by `cfn generate`, measured side by side in one run.

    python tests/bench/bench_init.py [--runs 10]

Every sample starts from an empty folder; the two alternate in every round so that machine load
hits both alike. cfngen's template cache (~/.cfngen, here in a temporary HOME) is built once
before timing, as it is after a user's first `cfngen init` on a machine; that first, cold init
is reported on its own. The commands are printed so that they can be rerun with hyperfine
(`--prepare 'rm -rf DIR'`).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.bench._timing import Command, alternate, bench_env, load_note, run_once  # noqa: E402

TYPE_NAME = "Acme::Svc::Widget"
BIN = Path(sys.executable).parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-init-") as tmp:
        base = Path(tmp)
        home = base / "home"
        home.mkdir()
        # A user's init names a new type, whose models no cache holds: render them every time.
        env = bench_env(HOME=str(home), GIT_CONFIG_NOSYSTEM="1", CFNGEN_NO_CACHE="1")
        env.pop("CFNGEN_HOME", None)
        env["PATH"] = f"{BIN}:{env.get('PATH', '')}"
        ours_dir, theirs_dir = base / "ours", base / "theirs"

        def fresh(folder: Path, create: bool) -> None:
            shutil.rmtree(folder, ignore_errors=True)
            if create:
                folder.mkdir()

        cfn = BIN / "cfn"
        commands = {
            "cfngen init --no-input": Command(
                [str(BIN / "cfngen"), "init", "--no-input", "--type-name", TYPE_NAME, "ours"],
                base,
                env,
                setup=lambda: fresh(ours_dir, create=False),
            ),
            "cfn init + cfn generate": Command(
                [
                    "sh",
                    "-c",
                    f"{cfn} init -t {TYPE_NAME} -a RESOURCE python312 --no-docker"
                    f" && {cfn} generate",
                ],
                theirs_dir,
                env,
                setup=lambda: fresh(theirs_dir, create=True),
            ),
        }
        cold, _ = run_once(commands["cfngen init --no-input"])
        print(f"{args.runs} rounds, alternating; {load_note()}")
        samples = alternate(commands, args.runs, warmup=1)
        ours, theirs = samples["cfngen init --no-input"], samples["cfn init + cfn generate"]
        for name, value in samples.items():
            print(f"  {name:<26} {value.describe()}")
        print(f"  first cfngen init on the machine (builds ~/.cfngen): {cold * 1000:.0f} ms")
        ratios = [o / t for o, t in zip(ours.wall, theirs.wall, strict=True)]
        print(
            f"  ratio cfngen / official = {ours.median / theirs.median:.2f} "
            f"(median of per-round ratios {statistics.median(ratios):.2f}; target < 1)"
        )
        print("  commands:")
        for name, command in commands.items():
            print(f"    {name}: {command.shell()}")
        print(f"after: {load_note()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
