"""How fast models are rendered.

    python tests/bench/bench_models.py warm [--limit N]   # every corpus schema in one process
    python tests/bench/bench_models.py cold [--runs N] [--type AWS::Logs::LogGroup] [--cfn]

warm: render_models() for each schema of the corpus in one process (after one warm-up call),
      with the median, p95 and max per schema and the slowest five; steps split as normalise,
      datamodel-code-generator, format, check.
cold: a fresh interpreter that imports cfngen and renders the models of one schema, N times:
      the whole-process wall time (what `cfngen generate` pays for models), the same
      interpreter doing nothing as the floor, and with --cfn the official `cfn generate` in a
      project `cfn init` made for the same schema, runs interleaved.
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
    from cfngen._models._generate import generate_raw
    from cfngen._models._normalise import normalise
    from cfngen._models._verify import check_models
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


def cold(runs: int, type_name: str, with_cfn: bool) -> None:
    from tests._corpus import corpus_text

    with tempfile.TemporaryDirectory() as folder:
        schema = Path(folder) / "schema.json"
        schema.write_text(corpus_text(type_name))
        render = (
            "import json, sys; from cfngen._models import render_models; "
            "render_models(json.loads(open(sys.argv[1]).read()))"
        )
        commands = {
            "python -c pass": ([sys.executable, "-c", "pass"], ROOT),
            "render_models": ([sys.executable, "-c", render, str(schema)], ROOT),
        }
        if with_cfn:
            project = Path(folder) / "cfn"
            project.mkdir()
            hyphenated = "-".join(type_name.split("::")).lower()
            (project / f"{hyphenated}.json").write_text(corpus_text(type_name))
            cfn = str(Path(sys.executable).with_name("cfn"))
            subprocess.run(
                [cfn, "init", "-t", type_name, "-a", "RESOURCE", "python312", "--no-docker"],
                cwd=project,
                check=True,
                capture_output=True,
            )
            done = subprocess.run([cfn, "generate"], cwd=project, capture_output=True, check=False)
            if done.returncode:
                print(f"cfn generate fails on {type_name} (the 60 KiB limit?): not compared")
                with_cfn = False
            else:
                commands["cfn generate"] = ([cfn, "generate"], project)
        walls: dict[str, list[float]] = {label: [] for label in commands}
        for _ in range(runs):  # interleaved, so that load on the machine hits every command alike
            for label, (command, cwd) in commands.items():
                t0 = time.perf_counter()
                subprocess.run(command, check=True, cwd=cwd, capture_output=True)
                walls[label].append(time.perf_counter() - t0)
        for label, values in walls.items():
            print(
                f"{label} ({type_name}): median {statistics.median(values):.3f} s,"
                f" min {min(values):.3f} s over {runs} runs"
            )
        if with_cfn:
            ratio = statistics.median(walls["render_models"]) / statistics.median(
                walls["cfn generate"]
            )
            print(f"render_models / cfn generate: {ratio:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    w = sub.add_parser("warm")
    w.add_argument("--limit", type=int)
    c = sub.add_parser("cold")
    c.add_argument("--runs", type=int, default=10)
    c.add_argument("--type", default="AWS::Logs::LogGroup")
    c.add_argument("--cfn", action="store_true", help="also time `cfn generate` side by side")
    args = parser.parse_args()
    if args.mode == "warm":
        warm(args.limit)
    else:
        cold(args.runs, args.type, args.cfn)


if __name__ == "__main__":
    main()
