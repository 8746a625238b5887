"""cfngen/_simulated_time.py: the wall clock of a re-invocation loop and when the loop stops."""

from __future__ import annotations

import datetime
import threading
import time

import boto3
import pytest
from moto import mock_aws
from moto.moto_api import state_manager

from cfngen._simulated_time import CallbackClock, LambdaContext, LoopGuard


def test_simulated_waits_move_the_wall_clock_not_the_monotonic_one():
    started, monotonic = time.time(), time.monotonic()
    with CallbackClock(simulated=True) as clock:
        assert clock.wait(3600) == 0.0
        assert 3600 <= time.time() - started < 3660
        assert 3600 <= datetime.datetime.now().timestamp() - started < 3660
        seen: list[float] = []
        worker = threading.Thread(target=lambda: seen.append(time.time()))
        worker.start()
        worker.join()
        assert seen[0] - started >= 3600  # every thread, the handlers' too
        assert time.monotonic() - monotonic < 60
    assert time.time() - started < 60  # and back to real time afterwards


def test_real_waits_are_slept_up_to_max_delay():
    slept: list[float] = []
    with CallbackClock(simulated=False, max_delay=0.5, sleep=slept.append) as clock:
        assert (clock.wait(30), clock.wait(0.2), clock.wait(0)) == (0.5, 0.2, 0.0)
    assert slept == [0.5, 0.2]


def test_mots_time_based_transitions_follow_the_simulated_clock(monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    state_manager.set_transition("dax::cluster", {"progression": "time", "seconds": 600})
    try:
        with mock_aws(), CallbackClock(simulated=True) as clock:
            dax = boto3.client("dax", aws_access_key_id="a", aws_secret_access_key="b")
            dax.create_cluster(
                ClusterName="slow",
                NodeType="dax.t3.small",
                ReplicationFactor=1,
                IamRoleArn="arn:aws:iam::123456789012:role/dax",
            )

            def status() -> str:
                return str(dax.describe_clusters(ClusterNames=["slow"])["Clusters"][0]["Status"])

            assert status() == "creating"
            clock.wait(601)
            assert status() == "available"
    finally:
        state_manager.unset_transition("dax::cluster")


def test_the_lambda_contexts_remaining_time_follows_the_clock():
    with CallbackClock(simulated=True) as clock:
        context = LambdaContext(60)
        assert 59_000 <= context.get_remaining_time_in_millis() <= 60_000
        clock.wait(45)
        assert 14_000 <= context.get_remaining_time_in_millis() <= 15_000
        clock.wait(3600)
        assert context.get_remaining_time_in_millis() == 0


def answers(guard: LoopGuard, delays: list[int | None], start: float = 0.0) -> list[str | None]:
    """Feed IN_PROGRESS answers with these delays, moving time as CloudFormation would."""
    now, verdicts = start, []
    for delay in delays:
        verdict = guard.after({"status": "IN_PROGRESS", "callbackDelaySeconds": delay}, now)
        verdicts.append(verdict)
        if verdict:
            break
        now += delay or 0
    return verdicts


# A slow legal create, and planted loops the guard must stop, each with the rule it must name.
CASES = [
    ("rds-like: 80 callbacks 30 s apart in 60 minutes", 60, [30] * 80, None),
    ("asks for a callback past its timeout", 60, [30] * 119 + [60], "timeoutInMinutes (60)"),
    ("never stabilises with delays", 120, [20] * 10_000, "timeoutInMinutes (120)"),
    ("IN_PROGRESS forever without a delay", 120, [0] * 1000, "--max-reinvoke"),
    ("delay missing is no delay", 120, [None] * 1000, "--max-reinvoke"),
    ("36 hours, 1 s apart", 2160, [1] * 5000, "--max-invocations"),
    ("undelayed answers not in a row", 120, [0, 0, 5] * 60, None),
]


@pytest.mark.parametrize(
    ("timeout", "delays", "rule"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_the_loop_guard_names_the_rule(timeout, delays, rule):
    guard = LoopGuard("CREATE", timeout, started=0.0, max_reinvoke=100, max_invocations=1000)
    verdicts = answers(guard, delays)
    if rule is None:
        assert verdicts == [None] * len(delays)
    else:
        assert verdicts[-1] is not None and rule in verdicts[-1], verdicts[-1]
        assert verdicts[:-1] == [None] * (len(verdicts) - 1)


def test_the_timeout_message_says_what_the_handler_must_do():
    guard = LoopGuard("CREATE", 2, started=1000.0)
    verdict = answers(guard, [30, 30, 30, 40], start=1000.0)[-1]
    assert verdict == (
        "CREATE was still IN_PROGRESS 1 min 30 s after it started and asked to be called again "
        "after 40 s, past its timeoutInMinutes (2): by then a handler must answer FAILED with "
        "NotStabilized"
    )


def test_actions_without_a_timeout_are_limited_by_the_counts_only():
    guard = LoopGuard("DELETE", None, started=0.0, max_invocations=50)
    assert "--max-invocations" in str(answers(guard, [3600] * 100)[-1])
