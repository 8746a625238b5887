"""The runtime library's clients and steps (cfngen_aws.py before) in a handler's shoes:
the cost of a client per call, and of a long wait.

    python tests/bench/bench_waiters.py [--rounds 20]

1. A boto3 client in every handler call. The runtime library gives each call a new boto3
   session; `session.client("ssm")` then reads SSM's model files again. `cfngen_aws.client`
   builds it on one botocore session per container. Both are timed alternately, round by
   round, each on a fresh session as the library makes it.
2. A create that polls a DAX cluster 40 times (moto's state transitions) through `Steps`, as
   CloudFormation drives it: IN_PROGRESS, the callback context through JSON, the next call;
   a fake clock stands in for the callback delays. The real time of the whole loop.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import boto3  # noqa: E402
from cloudformation_cli_python_lib import SessionProxy  # noqa: E402
from moto import mock_aws  # noqa: E402
from moto.moto_api import state_manager  # noqa: E402

from tests._runtime_library import aws  # noqa: E402
from tests.bench._timing import load_note  # noqa: E402


def fresh_session() -> SessionProxy:
    """What the library makes for every handler call."""
    return SessionProxy(
        boto3.Session(aws_access_key_id="a", aws_secret_access_key="b", region_name="us-east-1")
    )


def clients(rounds: int) -> None:
    timed: dict[str, list[float]] = {"session.client": [], "cfngen_aws.client": []}
    aws.client(fresh_session(), "ssm")  # warm-up: imports, the shared session's files
    fresh_session().client("ssm")
    for _ in range(rounds):
        for name, samples in timed.items():
            session = fresh_session()
            started = time.perf_counter()
            if name == "session.client":
                session.client("ssm")
            else:
                aws.client(session, "ssm")
            samples.append(time.perf_counter() - started)
    medians = {name: statistics.median(samples) for name, samples in timed.items()}
    for name, median in medians.items():
        print(f"  {name:18} median {median * 1000:7.1f} ms per client ({rounds} rounds)")
    print(f"  ratio: {medians['cfngen_aws.client'] / medians['session.client']:.3f}")


class Clock(aws.Clock):
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def time(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def long_create() -> None:
    state_manager.set_transition("dax::cluster", {"progression": "manual", "times": 40})
    with mock_aws():
        dax = aws.client(fresh_session(), "dax")

        def status() -> tuple[object, str]:
            cluster = dax.describe_clusters(ClusterNames=["bench"])["Clusters"][0]
            return cluster, cluster["Status"]

        steps = aws.Steps(
            aws.Call(
                "create",
                lambda: dax.create_cluster(
                    ClusterName="bench",
                    NodeType="dax.t3.small",
                    ReplicationFactor=1,
                    IamRoleArn="arn:aws:iam::123456789012:role/dax",
                ),
            ),
            aws.Waiter(status, pending=["creating"], target=["available"]),
        )
        clock, context, calls = Clock(), {}, 0
        started = time.perf_counter()
        while True:
            calls += 1
            event = json.loads(json.dumps(steps.run(context, None, clock=clock)._serialize()))
            if event["status"] != "IN_PROGRESS":
                break
            clock.now += event["callbackDelaySeconds"]
            context = event["callbackContext"]
        real = time.perf_counter() - started
    state_manager.unset_transition("dax::cluster")
    simulated = clock.now - 1_700_000_000.0
    print(
        f"  {calls} handler calls, {simulated:.0f} s of simulated time: "
        f"{real * 1000:.0f} ms real ({event['status']} {event.get('message', '')})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    print(f"before: {load_note()}")
    print("1. a boto3 client per handler call")
    clients(args.rounds)
    print("2. a create that polls a cluster until its 41st describe, as CloudFormation drives it")
    long_create()
    print(f"after: {load_note()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
