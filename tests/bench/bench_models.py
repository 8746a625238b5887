"""How fast models are rendered.

    python tests/bench/bench_models.py warm [--limit N]   # every corpus schema in one process
    python tests/bench/bench_models.py cold [--runs N] [--type AWS::Logs::LogGroup]

warm: render_models() for each schema of the corpus in one process (after one warm-up call),
      with the median, p95 and max per schema and the slowest five; steps split as normalise,
      datamodel-code-generator, format, check.
cold: a fresh interpreter that imports cfngen and renders the models of one schema, N times:
      the whole-process wall time (what `cfngen generate` pays for models), and the same
      interpreter doing nothing as the floor.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def warm(limit: int | None) -> None:
    from cfngen._models import render_models
    from cfngen._models._assemble import assemble, format_source
    from cfngen._models._check import check_models
    from cfngen._models._generate import generate_raw
    from cfngen._models._normalise import normalise
    from tests._corpus import corpus

    schemas = corpus()
    names = list(schemas)[:limit] if limit else list(schemas)
    render_models(schemas["AWS::Logs::LogGroup"])
    totals: dict[str, float] = dict.fromkeys(("normalise", "generate", "format", "check"), 0.0)
    per_schema: list[tuple[float, str]] = []
    for name in names:
        schema = schemas[name]
        t0 = time.perf_counter()
        normalised = normalise(schema)
        t1 = time.perf_counter()
        raw = generate_raw(normalised.schema)
        t2 = time.perf_counter()
        text = format_source(assemble(raw, schema))
        t3 = time.perf_counter()
        check_models(text, normalised)
        t4 = time.perf_counter()
        for key, spent in zip(totals, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
            totals[key] += spent
        per_schema.append((t4 - t0, name))
    times = [t for t, _ in per_schema]
    print(f"schemas: {len(times)}")
    print(
        f"per schema: median {statistics.median(times) * 1000:.0f} ms, "
        f"p95 {quantile(times, 0.95) * 1000:.0f} ms, max {max(times):.2f} s, "
        f"total {sum(times):.0f} s"
    )
    print("split (total s): " + ", ".join(f"{k} {v:.1f}" for k, v in totals.items()))
    print("slowest: " + ", ".join(f"{n} {t:.2f} s" for t, n in sorted(per_schema)[-5:]))


def cold(runs: int, type_name: str) -> None:
    from tests._corpus import corpus_text

    with tempfile.TemporaryDirectory() as folder:
        schema = Path(folder) / "schema.json"
        schema.write_text(corpus_text(type_name))
        render = (
            "import json, sys; from cfngen._models import render_models; "
            "render_models(json.loads(open(sys.argv[1]).read()))"
        )
        for label, code in (("python -c pass", "pass"), ("render_models", render)):
            walls = []
            for _ in range(runs):
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-c", code, str(schema)], check=True, cwd=ROOT)
                walls.append(time.perf_counter() - t0)
            print(
                f"{label} ({type_name}): median {statistics.median(walls):.3f} s, "
                f"min {min(walls):.3f} s over {runs} runs"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    w = sub.add_parser("warm")
    w.add_argument("--limit", type=int)
    c = sub.add_parser("cold")
    c.add_argument("--runs", type=int, default=10)
    c.add_argument("--type", default="AWS::Logs::LogGroup")
    args = parser.parse_args()
    if args.mode == "warm":
        warm(args.limit)
    else:
        cold(args.runs, args.type)


if __name__ == "__main__":
    main()
