"""Save to verdict in `cfngen test --watch` on the example resource, against a cold `cfngen test`
and, with --before, against an older checkout's watch session side by side.

    python tests/bench/bench_watch.py [--saves 10] [--poll] [--before ../86b4cf2]

One watch session per checkout (this one, and --before's), each on its own fresh copy of the
example `cfngen init --example` makes. Each round, in every session in turn, saves the handlers
(a comment line toggled), then the schema (its description changed to text no model cache has
seen: generate renders models.py again), each written as editors do (a new file renamed over
the old), and times from the rename to the verdict line on the session's stdout, with the
session's CPU for that save (its own and its children's, from /proc); then a cold
`cfngen test -q` of this checkout on the same project (wall and CPU). The rounds interleave, so
the ratios compare like with like on a busy machine. Prints each session's medians, the ratio
of this checkout's to --before's, and to the cold run.
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
}
VERDICT = re.compile(r"^\[\d\d:\d\d:\d\d\] ")
HANDLERS = "src/example_ssm_parameter/handlers.py"
SCHEMA = "example-ssm-parameter.json"
EDITS = ("handler edit", "schema edit")


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


class Watch:
    """One `cfngen test --watch` session of one checkout, on its own copy of the example."""

    def __init__(self, name: str, checkout: Path, root: Path, poll: bool) -> None:
        self.name = name
        self.root = root
        self.env = bench_env(PYTHONPATH=str(checkout), **AWS)
        self.argv = [sys.executable, "-m", "cfngen", "test", "--watch"]
        self.argv += [*(["--poll"] if poll else []), str(root)]
        # In the project, not here: `python -m` puts the working folder first on sys.path, and
        # from this repository that would be this checkout's cfngen whatever PYTHONPATH says.
        self.process = subprocess.Popen(
            self.argv, cwd=root, env=self.env, stdout=subprocess.PIPE, text=True
        )
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.seconds: dict[str, list[float]] = {edit: [] for edit in EDITS}
        self.cpu: dict[str, list[float]] = {edit: [] for edit in EDITS}
        self.handlers = (root / HANDLERS).read_text()
        self.schema = (root / SCHEMA).read_text()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put((time.perf_counter(), line))

    def verdict(self) -> tuple[float, str]:
        while True:
            when, line = self.lines.get(timeout=120)
            if VERDICT.match(line):
                return when, line

    def edit(self, what: str, number: int, fresh: str) -> None:
        if what == "handler edit":
            path = self.root / HANDLERS
            text = self.handlers + ("# saved\n" if number % 2 == 0 else "")
        else:  # new to the model cache every time: models.py is rendered again
            path = self.root / SCHEMA
            text = self.schema.replace('"description": "', f'"description": "{fresh}{number} ', 1)
        cpu = cpu_of(self.process.pid)
        saved = save(path, text)
        when, line = self.verdict()
        assert "PASS" in line, line
        assert what == "handler edit" or "(generated)" in line, line
        self.seconds[what].append(when - saved)
        time.sleep(0.3)  # the session's warm-up after the run counts too
        self.cpu[what].append(cpu_of(self.process.pid) - cpu)
        time.sleep(0.3)

    def median(self, what: str) -> float:
        return statistics.median(self.seconds[what])

    def end(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=10)
    parser.add_argument("--poll", action="store_true", help="the sessions poll (--poll)")
    parser.add_argument("--before", type=Path, help="an older checkout, watched side by side")
    parser.add_argument(
        "--edits", choices=["both", *EDITS], default="both", help="which saves each round makes"
    )
    parser.add_argument("--no-cold", action="store_true", help="no cold run in the rounds")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cfngen-bench-watch-"))
    cli = [sys.executable, "-m", "cfngen"]
    sessions: list[Watch] = []
    try:
        subprocess.run(
            [*cli, "init", "--example", "--no-input", "--no-git", "made"],
            cwd=work,
            env=bench_env(PYTHONPATH=str(REPO), **AWS),
            check=True,
            capture_output=True,
        )
        checkouts = {"this checkout": REPO}
        if args.before is not None:
            checkouts[args.before.resolve().name] = args.before.resolve()
        for number, (name, checkout) in enumerate(checkouts.items()):
            root = work / f"ex{number}"
            shutil.copytree(work / "made", root)
            sessions.append(Watch(name, checkout, root, args.poll))
        mine = sessions[0]
        cold_argv = [*cli, "test", "-q", str(mine.root)]
        for session in sessions:
            where = session.env["PYTHONPATH"]
            print(f"{session.name}: {' '.join(session.argv[1:])} (PYTHONPATH={where})")
        print(f"cold:  {' '.join(cold_argv[1:])}")
        print(load_note())
        for session in sessions:
            session.verdict()  # the first run (and the session's warm-up after it)
        time.sleep(1.5)
        fresh = uuid.uuid4().hex[:8]
        edits = EDITS if args.edits == "both" else (args.edits,)
        cold_wall: list[float] = []
        cold_cpu: list[float] = []
        for number in range(args.saves):
            # Rotate which session goes first, as _timing.alternate does.
            shift = number % len(sessions)
            for session in sessions[shift:] + sessions[:shift]:
                for what in edits:
                    session.edit(what, number, fresh)
            if args.no_cold:
                continue
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run(cold_argv, cwd=mine.root, env=mine.env, check=True, capture_output=True)
            cold_wall.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cold_cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        for session in sessions:
            session.end()
        cold = statistics.median(cold_wall) if cold_wall else float("nan")
        cold_c = statistics.median(cold_cpu) if cold_cpu else float("nan")
        print(
            f"cold cfngen test -q (this checkout): wall median {cold * 1000:.0f} ms, CPU median "
            f"{cold_c * 1000:.0f} ms ({len(cold_wall)} runs)"
        )
        for session in sessions:
            for what in edits:
                samples, cpu = session.seconds[what], statistics.median(session.cpu[what])
                median = statistics.median(samples)
                print(
                    f"{session.name}, {what}, save to verdict: median {median * 1000:.0f} ms "
                    f"(min {min(samples) * 1000:.0f}, max {max(samples) * 1000:.0f}; "
                    f"{len(samples)} saves), {median / cold:.2f} of the cold run's wall; "
                    f"CPU median {cpu * 1000:.0f} ms, {cpu / cold_c:.2f} of the cold's"
                )
        if len(sessions) > 1:
            for what in edits:
                ratio = mine.median(what) / sessions[1].median(what)
                cpu = statistics.median(mine.cpu[what]) / statistics.median(sessions[1].cpu[what])
                print(
                    f"{what}: this checkout / {sessions[1].name}: wall {ratio:.2f}, CPU {cpu:.2f}"
                )
        print(load_note())
    finally:
        for session in sessions:
            if session.process.poll() is None:
                session.process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
