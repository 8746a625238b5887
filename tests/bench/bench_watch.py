"""Save to verdict in `cfngen test --watch` on the example resource, against a cold `cfngen test`.

    python tests/bench/bench_watch.py [--saves 10] [--poll]

One watch session on a fresh copy of the example `cfngen init --example` makes; each round saves
the handlers (a comment line toggled), then the schema (its description toggled: generate runs),
each written as editors do (a new file renamed over the old), and times from the rename to the
verdict line on the session's stdout; then it runs a cold `cfngen test -q` on the same project
(wall and CPU). The rounds interleave, so the ratios compare like with like on a busy machine.
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.bench._timing import bench_env, load_note  # noqa: E402

AWS = {
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "PYTHONPATH": str(REPO),
}
VERDICT = re.compile(r"^\[\d\d:\d\d:\d\d\] ")
HANDLERS = "src/example_ssm_parameter/handlers.py"
SCHEMA = "example-ssm-parameter.json"


def cpu_of(pid: int) -> float:
    """CPU seconds of a process and the children it waited for (Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def save(path: Path, text: str) -> float:
    temporary = path.with_name(f".{path.name}.bench.tmp")
    temporary.write_text(text)
    os.replace(temporary, path)
    return time.perf_counter()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--saves", type=int, default=10)
    parser.add_argument("--poll", action="store_true", help="the session polls (--poll)")
    args = parser.parse_args()
    env = bench_env(**AWS)
    work = Path(tempfile.mkdtemp(prefix="cfngen-bench-watch-"))
    cli = [sys.executable, "-m", "cfngen"]
    try:
        subprocess.run(
            [*cli, "init", "--example", "--no-input", "--no-git", "ex"],
            cwd=work,
            env=env,
            check=True,
            capture_output=True,
        )
        root = work / "ex"
        argv = [*cli, "test", "--watch", *(["--poll"] if args.poll else []), str(root)]
        print("watch:", " ".join(argv[1:]))
        print("cold: ", " ".join([*cli[1:], "test", "-q", str(root)]))
        print(load_note())
        session = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, text=True)
        lines: queue.Queue[tuple[float, str]] = queue.Queue()

        def read() -> None:
            assert session.stdout is not None
            for line in session.stdout:
                lines.put((time.perf_counter(), line))

        threading.Thread(target=read, daemon=True).start()

        def verdict() -> tuple[float, str]:
            while True:
                when, line = lines.get(timeout=120)
                if VERDICT.match(line):
                    return when, line

        verdict()  # the first run (and the parent's warm-up after it)
        time.sleep(1.5)
        handlers, schema = root / HANDLERS, root / SCHEMA
        original_handlers, original_schema = handlers.read_text(), schema.read_text()
        edits: dict[str, list[float]] = {"handler edit": [], "schema edit": []}
        cpus: dict[str, list[float]] = {"handler edit": [], "schema edit": []}
        fresh = uuid.uuid4().hex[:8]
        cold_wall: list[float] = []
        cold_cpu: list[float] = []
        for number in range(args.saves):
            text = original_handlers + ("# saved\n" if number % 2 == 0 else "")
            cpu = cpu_of(session.pid)
            saved = save(handlers, text)
            when, line = verdict()
            assert "PASS" in line, line
            edits["handler edit"].append(when - saved)
            time.sleep(0.3)  # the parent's warm-up after the run counts too
            cpus["handler edit"].append(cpu_of(session.pid) - cpu)
            time.sleep(0.3)
            # New to the model cache every time: models.py is rendered again, as for a real edit.
            text = original_schema.replace(
                '"description": "', f'"description": "{fresh}{number} ', 1
            )
            cpu = cpu_of(session.pid)
            saved = save(schema, text)
            when, line = verdict()
            assert "PASS" in line and "(generated)" in line, line
            edits["schema edit"].append(when - saved)
            time.sleep(0.3)
            cpus["schema edit"].append(cpu_of(session.pid) - cpu)
            time.sleep(0.3)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run(
                [*cli, "test", "-q", str(root)], env=env, check=True, capture_output=True
            )
            cold_wall.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cold_cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        session.terminate()
        session.wait(timeout=30)
        cold = statistics.median(cold_wall)
        print(
            f"cold cfngen test -q: wall median {cold * 1000:.0f} ms, CPU median "
            f"{statistics.median(cold_cpu) * 1000:.0f} ms ({args.saves} runs)"
        )
        for what, samples in edits.items():
            median = statistics.median(samples)
            print(
                f"{what}, save to verdict: median {median * 1000:.0f} ms "
                f"(min {min(samples) * 1000:.0f}, max {max(samples) * 1000:.0f}; "
                f"{len(samples)} saves), {median / cold:.2f} of the cold run's wall; CPU "
                f"median {statistics.median(cpus[what]) * 1000:.0f} ms, "
                f"{statistics.median(cpus[what]) / statistics.median(cold_cpu):.2f} of the cold's"
            )
        print(load_note())
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
