"""Benchmark: `cfngen validate` on the whole corpus vs the official validator, side by side.

    python tests/bench/bench_validate.py [--runs N] [--keep DIR]

Writes the 1898 cleaned corpus schemas (tests/_corpus.py) to a folder, then times whole
processes, alternating in every round so a drifting machine affects all alike:

  (a) cfngen validate <every file>                    one call, all files
  (b) python -c '<load_resource_spec in a loop>'      the official validator, one process
  (c) cfngen --help

Each command is printed so it can be rerun by hand, e.g. with `/usr/bin/time -v <command>`
or `hyperfine '<a>' '<b>'` (with --keep DIR, the corpus stays in DIR).
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench._timing import Command, alternate, bench_env, load_note  # noqa: E402

OFFICIAL_LOOP = """
import logging, sys
from pathlib import Path
from rpdk.core.data_loaders import load_resource_spec
logging.disable(logging.CRITICAL)
rejected = 0
for path in sorted(Path(sys.argv[1]).glob("*.json")):
    with path.open(encoding="utf-8") as stream:
        try:
            load_resource_spec(stream)
        except Exception:
            rejected += 1
print(rejected, "rejected")
"""


def write_corpus(folder: Path) -> list[Path]:
    from tests._corpus import corpus, corpus_text

    paths = []
    for name in corpus():
        path = folder / (name.replace("::", "-").lower() + ".json")
        path.write_text(corpus_text(name), encoding="utf-8")
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="write the corpus here and keep it")
    args = parser.parse_args()

    folder = args.keep or Path(tempfile.mkdtemp(prefix="cfngen-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    paths = write_corpus(folder)
    exe = Path(sys.executable)
    env = bench_env()
    # `sh -c` so that the command line stays short to print and `; true` keeps exit 1 (invalid
    # schemas found) from counting as a failed run.
    cfngen = shlex.quote(str(exe.with_name("cfngen")))
    commands = {
        "cfngen validate (corpus)": Command(
            ["sh", "-c", f"{cfngen} validate *.json > /dev/null; true"], folder, env
        ),
        "official loop (corpus)": Command(
            [str(exe), "-c", OFFICIAL_LOOP, str(folder)], folder, env
        ),
        "cfngen --help": Command([str(exe.with_name("cfngen")), "--help"], folder, env),
    }
    print(f"corpus: {len(paths)} schemas in {folder}")
    print(f"{args.runs} rounds, alternating; {load_note()}")
    samples = alternate(commands, args.runs)
    for name, value in samples.items():
        print(f"  {name:<26} {value.describe()}")
    ours, theirs = samples["cfngen validate (corpus)"], samples["official loop (corpus)"]
    ratios = [a / b for a, b in zip(ours.wall, theirs.wall, strict=True)]
    print(
        f"  ratio cfngen / official = {ours.median / theirs.median:.2f} "
        f"(median of per-round ratios {statistics.median(ratios):.2f}; target < 1)"
    )
    print("  commands (the official loop is OFFICIAL_LOOP in this file):")
    for name, command in commands.items():
        print(f"    {name}: {command.shell() if 'official' not in name else '...'}")
    print(f"after: {load_note()}")


if __name__ == "__main__":
    main()
