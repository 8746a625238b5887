"""Example inputs over the whole corpus: success rates and time per schema, in one process.

    python tests/bench/bench_instances.py            # every schema
    python tests/bench/bench_instances.py --step 10  # every tenth, for a quick look
    python tests/bench/bench_instances.py --strings  # pattern strings alone, per (pattern, lengths)

Validity is judged by the corpus test's independent oracle (tests/test_instances_corpus.py).
Times are wall-clock per schema for example_inputs (create, update, invalid) in a warm process,
and for create_inputs(schema, 3) separately; the first schema also pays for imports.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cfngen._instances import create_inputs, example_inputs
from tests._corpus import corpus
from tests.test_instances_corpus import _outcome, oracle_errors


def _figures(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[int(len(ordered) * 0.95)]
    return (
        f"median {statistics.median(ordered) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, "
        f"max {ordered[-1] * 1000:.0f} ms, total {sum(ordered):.1f} s"
    )


def bench_schemas(step: int) -> None:
    schemas = corpus()
    names = list(schemas)[::step]
    outcomes: dict[str, list[str]] = {}
    example_times, create_times, distinct = [], [], {1: 0, 2: 0, 3: 0}
    for name in names:
        start = time.perf_counter()
        example_inputs(schemas[name])
        example_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        creates = create_inputs(schemas[name], 3)
        create_times.append(time.perf_counter() - start)
        valid = [c for c in creates if not oracle_errors(schemas[name], c)]
        distinct[min(len(valid), 3)] = distinct.get(min(len(valid), 3), 0) + 1
        what, why = _outcome(schemas[name])
        outcomes.setdefault(what, []).append(f"{name}: {why}")
    total = len(names)
    ok_create = total - len(outcomes.get("create", []))
    print(f"schemas: {total}")
    print(f"valid create input: {ok_create}/{total} ({100 * ok_create / total:.2f} %)")
    for what in ("update", "invalid", "lint"):
        bad = outcomes.get(what, [])
        print(f"{what} meets its rules: {total - len(bad)}/{total}")
    print(f"distinct valid creates (of 3 asked): {json.dumps(distinct)}")
    print(f"example_inputs per schema: {_figures(example_times)}")
    print(f"create_inputs(schema, 3) per schema: {_figures(create_times)}")
    for what, lines in sorted(outcomes.items()):
        if what != "ok":
            for line in lines:
                print(f"  {what}: {line}")


def bench_strings() -> None:
    from cfngen._instances._strings import matching_string
    from cfngen._patterns import PatternError, compile_pattern

    triples: dict[tuple[str, int, int | None], None] = {}

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                triples[(node["pattern"], node.get("minLength", 0), node.get("maxLength"))] = None
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for schema in corpus().values():
        walk(schema)
    times, failed = [], []
    for pattern, lo, hi in triples:
        try:
            compile_pattern(pattern)
        except PatternError:
            continue
        start = time.perf_counter()
        text = matching_string(pattern, lo, hi)
        times.append(time.perf_counter() - start)
        if text is None:
            failed.append((pattern, lo, hi))
    print(
        f"(pattern, minLength, maxLength) triples: {len(times)}, strings made: "
        f"{len(times) - len(failed)} ({100 * (1 - len(failed) / len(times)):.2f} %)"
    )
    print(f"per string: {_figures(times)}")
    for item in failed:
        print(f"  no string: {item}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--step", type=int, default=1)
    parser.add_argument("--strings", action="store_true")
    args = parser.parse_args()
    if args.strings:
        bench_strings()
    else:
        bench_schemas(args.step)


if __name__ == "__main__":
    main()
