"""Benchmark: `cfngen validate` on the whole corpus vs the official validator, side by side.

    python tests/bench/bench_validate.py [--runs N] [--keep DIR]

Writes the 1898 cleaned corpus schemas (tests/_corpus.py) to a folder, then times whole
processes, alternating the two tools so a drifting machine affects both alike:

  (a) cfngen validate <every file>                    one call, all files
  (b) python -c '<load_resource_spec in a loop>'      the official validator, one process
  (c) cfngen --help

Each command is printed so it can be rerun by hand, e.g. with
`/usr/bin/time -v <command>` or `hyperfine '<a>' '<b>'`.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

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


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the corpus here and keep it")
    args = parser.parse_args()

    folder = args.keep or Path(tempfile.mkdtemp(prefix="cfngen-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    paths = write_corpus(folder)
    exe = Path(sys.executable)
    ours = [str(exe.with_name("cfngen")), "validate", *map(str, paths)]
    theirs = [str(exe), "-c", OFFICIAL_LOOP, str(folder)]
    help_cmd = [str(exe.with_name("cfngen")), "--help"]
    print(f"corpus: {len(paths)} schemas in {folder}")
    print(f"(a) {shlex.quote(ours[0])} validate {folder}/*.json")
    print(f"(b) {shlex.quote(str(exe))} -c '<official loop, see OFFICIAL_LOOP>' {folder}")
    print(f"(c) {shlex.join(help_cmd)}")

    a, b, c = [], [], []
    for _ in range(args.runs):
        a.append(timed(ours))
        b.append(timed(theirs))
        c.append(timed(help_cmd))
    ratios = [x / y for x, y in zip(a, b, strict=True)]
    result = {
        "cfngen_validate_s": statistics.median(a),
        "official_loop_s": statistics.median(b),
        "ratio_cfngen_over_official": statistics.median(ratios),
        "cfngen_help_ms": statistics.median(c) * 1000,
        "runs": args.runs,
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
