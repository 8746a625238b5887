"""Whole-process timing for the benchmark scripts: commands run alternately, one round at a time.

On a shared, noisy machine load drifts over seconds; alternating the commands inside every
round makes a drift hit all of them alike, so their medians and ratios stay comparable. Each
sample is the wall-clock time and the CPU time (user + system of the process and its children)
of one fresh process.
"""

from __future__ import annotations

import os
import resource
import shlex
import statistics
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path


def bench_env(**extra: str) -> dict[str, str]:
    """The environment of a user's shell: Python writes its bytecode caches as it normally does.

    (Some CI and sandbox environments set PYTHONDONTWRITEBYTECODE; then every run of an editable
    install compiles cfngen's modules again, which no installed cfngen does.)
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(extra)
    return env


@dataclass
class Samples:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.wall)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)

    def describe(self) -> str:
        return (
            f"median {self.median * 1000:6.0f} ms (min {min(self.wall) * 1000:.0f}, "
            f"max {max(self.wall) * 1000:.0f}), CPU {self.cpu_median * 1000:.0f} ms"
        )


@dataclass
class Command:
    argv: Sequence[str]
    cwd: Path
    env: Mapping[str, str] | None = None
    #: Run before every timed sample, untimed (e.g. make a fresh folder).
    setup: Callable[[], None] | None = None

    def shell(self) -> str:
        extra = {
            k: v for k, v in (self.env or {}).items() if os.environ.get(k) != v and k != "PATH"
        }
        prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(extra.items()))
        return f"cd {shlex.quote(str(self.cwd))} && {prefix + ' ' if prefix else ''}" + (
            shlex.join(self.argv)
        )


def run_once(command: Command) -> tuple[float, float]:
    if command.setup:
        command.setup()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        list(command.argv),
        cwd=command.cwd,
        env=dict(command.env) if command.env is not None else None,
        capture_output=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(
            f"failed ({done.returncode}): {command.shell()}\n{done.stdout.decode()}"
            f"{done.stderr.decode()}"
        )
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def alternate(commands: Mapping[str, Command], runs: int, warmup: int = 1) -> dict[str, Samples]:
    """`runs` rounds, each running every command once in turn (after `warmup` untimed rounds)."""
    samples = {name: Samples() for name in commands}
    for round_ in range(warmup + runs):
        # Rotate the order too: no command always runs right after the same other one.
        names = list(commands)
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            wall, cpu = run_once(commands[name])
            if round_ >= warmup:
                samples[name].wall.append(wall)
                samples[name].cpu.append(cpu)
    return samples


def load_note() -> str:
    one, five, _ = os.getloadavg()
    return f"{os.cpu_count()} CPUs, load average {one:.1f} (1 min), {five:.1f} (5 min)"
