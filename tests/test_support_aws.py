"""cfngen_aws.py, the waiters, retries, error mapping and client factory that every project
gets: driven as CloudFormation drives a handler (IN_PROGRESS, the callback context round-
tripped through JSON, the next call after callbackDelaySeconds) on a fake clock, against moto
resources whose state changes over calls and botocore's Stubber for throttling."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import botocore.exceptions
import pytest
from botocore.stub import Stubber
from cloudformation_cli_python_lib import exceptions
from cloudformation_cli_python_lib.interface import HandlerErrorCode, ProgressEvent
from moto import mock_aws
from moto.moto_api import state_manager

from tests._runtime_library import aws

START = 1_700_000_000.0
CLUSTER = "cache"
ROLE = "arn:aws:iam::123456789012:role/dax"


class FakeClock(aws.Clock):
    """Wall and monotonic time that move only when the code sleeps or CloudFormation waits."""

    def __init__(self) -> None:
        self.now = START
        self.mono = 0.0
        self.slept: list[float] = []

    def time(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.mono

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 3))
        self.now += seconds
        self.mono += seconds

    def pass_time(self, seconds: float) -> None:
        """CloudFormation's callback delay: another container, so no local sleep recorded."""
        self.now += seconds
        self.mono += seconds


Handler = Callable[[Any], ProgressEvent]


def drive(handler: Handler, clock: FakeClock, *, limit: int = 2000) -> list[dict[str, Any]]:
    """Call the handler as CloudFormation does until it stops answering IN_PROGRESS."""
    events: list[dict[str, Any]] = []
    context: Any = {}
    for _ in range(limit):
        event = json.loads(json.dumps(handler(context)._serialize()))
        events.append(event)
        if event["status"] != "IN_PROGRESS":
            return events
        assert isinstance(event["callbackDelaySeconds"], int), event
        assert event["callbackDelaySeconds"] >= 1, event
        clock.pass_time(event["callbackDelaySeconds"])
        context = event["callbackContext"]
    raise AssertionError(f"still IN_PROGRESS after {limit} calls")


def scripted(states: list[Any]) -> tuple[aws.Refresh, list[int]]:
    """A refresh that returns the given states in turn (None: not found), then the last."""
    calls = [0]

    def refresh() -> tuple[Any, str]:
        state = states[min(calls[0], len(states) - 1)]
        calls[0] += 1
        return (None, "") if state is None else ({"State": state}, state)

    return refresh, calls


def run_steps(*steps: Any, clock: FakeClock, **options: Any) -> Handler:
    return lambda context: aws.Steps(*steps).run(context, None, clock=clock, **options)


# --------------------------------------------------------------------------- moto resources


@pytest.fixture
def dax(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for name, value in {
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_EC2_METADATA_DISABLED": "true",
    }.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        yield aws.client(boto3.Session(region_name="us-east-1"), "dax")
    state_manager.unset_transition("dax::cluster")


def cluster_steps(dax: Any) -> list[Any]:
    """The chain the issue describes: create, wait, tag, wait again."""

    def status() -> tuple[Any, str]:
        cluster = dax.describe_clusters(ClusterNames=[CLUSTER])["Clusters"][0]
        return cluster, cluster["Status"]

    def arn() -> str:
        return str(dax.describe_clusters(ClusterNames=[CLUSTER])["Clusters"][0]["ClusterArn"])

    return [
        aws.Call(
            "create",
            lambda: dax.create_cluster(
                ClusterName=CLUSTER, NodeType="dax.t3.small", ReplicationFactor=1, IamRoleArn=ROLE
            ),
        ),
        aws.Waiter(status, pending=["creating"], target=["available"], name="available"),
        aws.Call(
            "tag", lambda: dax.tag_resource(ResourceName=arn(), Tags=[{"Key": "a", "Value": "b"}])
        ),
        aws.Waiter(status, pending=["modifying"], target=["available"], name="tagged"),
    ]


def test_a_create_that_needs_many_polls_is_called_back_until_the_cluster_is_available(dax):
    state_manager.set_transition("dax::cluster", {"progression": "manual", "times": 40})
    clock = FakeClock()
    events = drive(run_steps(*cluster_steps(dax), clock=clock), clock)

    assert events[-1]["status"] == "SUCCESS", events[-1]
    assert len(events) > 3  # it needed callbacks...
    waiting = events[:-1]
    assert all(aws.STATE_KEY in e["callbackContext"] for e in waiting)
    assert {e["callbackContext"][aws.STATE_KEY]["step"] for e in waiting} == {"available"}
    # ...and it never polled faster than Terraform's backoff, up to its 10 s ceiling
    assert [e["callbackDelaySeconds"] for e in waiting][:3] == [4, 7, 10]
    cluster = dax.describe_clusters(ClusterNames=[CLUSTER])["Clusters"][0]
    tags = dax.list_tags(ResourceName=cluster["ClusterArn"])["Tags"]
    assert (cluster["Status"], tags) == ("available", [{"Key": "a", "Value": "b"}])


def test_a_cluster_that_is_ready_at_once_needs_one_call(dax):
    clock = FakeClock()
    events = drive(run_steps(*cluster_steps(dax), clock=clock), clock)
    assert [e["status"] for e in events] == ["SUCCESS"]


def test_a_cluster_that_never_becomes_available_fails_with_not_stabilized_in_time(dax):
    state_manager.set_transition("dax::cluster", {"progression": "manual", "times": 10**9})
    clock = FakeClock()
    events = drive(run_steps(*cluster_steps(dax), clock=clock, timeout_minutes=30), clock)

    last = events[-1]
    assert (last["status"], last["errorCode"]) == ("FAILED", "NotStabilized"), last
    assert "timeout (30 minutes)" in last["message"] and "'creating'" in last["message"]
    # It gave up before CloudFormation's own timeout, and not much earlier.
    assert 28 * 60 <= clock.now - START <= 30 * 60


def test_waiting_until_a_deleted_cluster_is_gone(dax):
    dax.create_cluster(
        ClusterName=CLUSTER, NodeType="dax.t3.small", ReplicationFactor=1, IamRoleArn=ROLE
    )
    clock = FakeClock()
    gone = aws.Waiter.until_gone(lambda: dax.describe_clusters(ClusterNames=[CLUSTER]))
    events = drive(
        run_steps(
            aws.Call("delete", lambda: dax.delete_cluster(ClusterName=CLUSTER)), gone, clock=clock
        ),
        clock,
    )
    assert events[-1]["status"] == "SUCCESS"


# --------------------------------------------------------------------------- StateChangeConf


def test_polls_back_off_from_the_counts_kept_in_the_callback_context():
    clock = FakeClock()
    refresh, calls = scripted(["pending"] * 12 + ["ready"])
    events = drive(run_steps(aws.Waiter(refresh, target=["ready"]), clock=clock), clock)
    assert events[-1]["status"] == "SUCCESS"
    # in-process while the 5 s budget lasts, then callbacks that keep doubling to 10 s
    assert clock.slept[:4] == [0.2, 0.4, 0.8, 1.6]
    assert [e["callbackDelaySeconds"] for e in events[:-1]][:4] == [4, 7, 10, 10]
    assert calls[0] == 13


def test_a_fixed_poll_interval_and_a_minimum_one():
    clock = FakeClock()
    refresh, _ = scripted(["pending"] * 3 + ["ready"])
    events = drive(
        run_steps(aws.Waiter(refresh, target=["ready"], poll_interval=30), clock=clock), clock
    )
    assert [e["callbackDelaySeconds"] for e in events[:-1]] == [30, 30, 30]
    clock = FakeClock()
    refresh, _ = scripted(["pending"] * 3 + ["ready"])
    drive(run_steps(aws.Waiter(refresh, target=["ready"], min_interval=1.0), clock=clock), clock)
    assert clock.slept[:2] == [1.0, 1.0]


def test_the_first_poll_waits_for_the_delay():
    clock = FakeClock()
    refresh, calls = scripted(["ready"])
    first = run_steps(aws.Waiter(refresh, target=["ready"], delay=30), clock=clock)({})
    assert (first.status.name, first.callbackDelaySeconds, calls[0]) == ("IN_PROGRESS", 30, 0)


def test_an_unexpected_state_is_not_stabilized():
    clock = FakeClock()
    refresh, _ = scripted(["creating", "creating", "failed"])
    waiter = aws.Waiter(refresh, pending=["creating"], target=["available"], name="up")
    events = drive(run_steps(waiter, clock=clock), clock)
    assert events[-1]["errorCode"] == "NotStabilized"
    assert (
        events[-1]["message"] == "up: unexpected state 'failed' (expected 'available', 'creating')"
    )


def test_unknown_states_are_waited_through_without_a_pending_list():
    clock = FakeClock()
    refresh, _ = scripted(["creating", "whatever", "available"])
    events = drive(run_steps(aws.Waiter(refresh, target=["available"]), clock=clock), clock)
    assert events[-1]["status"] == "SUCCESS"


def test_not_found_checks():
    clock = FakeClock()
    refresh, calls = scripted([None])
    events = drive(run_steps(aws.Waiter(refresh, target=["ready"], name="up"), clock=clock), clock)
    assert events[-1]["errorCode"] == "NotStabilized"
    assert events[-1]["message"] == "up: not found in 21 checks in a row"
    assert calls[0] == aws.NOT_FOUND_CHECKS + 1
    clock = FakeClock()
    refresh, _ = scripted([None] * 20 + ["ready"])  # 20 misses are allowed, then found
    events = drive(run_steps(aws.Waiter(refresh, target=["ready"]), clock=clock), clock)
    assert events[-1]["status"] == "SUCCESS"


def test_an_empty_target_waits_for_absence():
    clock = FakeClock()
    refresh, calls = scripted(["deleting", "deleting", None])
    events = drive(run_steps(aws.Waiter(refresh, pending=["deleting"]), clock=clock), clock)
    assert (events[-1]["status"], calls[0]) == ("SUCCESS", 3)


def test_the_target_must_recur_continuously():
    clock = FakeClock()
    refresh, calls = scripted(["ready", "pending", "ready", "ready", "ready", "pending"])
    waiter = aws.Waiter(
        refresh, pending=["pending"], target=["ready"], continuous_target_occurrence=3
    )
    events = drive(run_steps(waiter, clock=clock), clock)
    assert (events[-1]["status"], calls[0]) == ("SUCCESS", 5)


def test_polls_keep_their_pace_while_the_target_recurs():
    clock = FakeClock()
    refresh, _ = scripted(["pending", "ready", "ready", "ready"])
    waiter = aws.Waiter(refresh, target=["ready"], continuous_target_occurrence=3)
    assert drive(run_steps(waiter, clock=clock), clock)[-1]["status"] == "SUCCESS"
    assert clock.slept == [0.2, 0.2, 0.2]


def test_a_not_found_error_from_refresh_counts_as_not_found(dax):
    clock = FakeClock()
    waiter = aws.Waiter.until_found(
        lambda: dax.describe_clusters(ClusterNames=[CLUSTER]), not_found_checks=2, name="seen"
    )
    events = drive(run_steps(waiter, clock=clock), clock)
    assert events[-1]["message"] == "seen: not found in 3 checks in a row"


def test_the_deadline_is_never_passed():
    clock = FakeClock()
    refresh, _ = scripted(["pending"])
    waiter = aws.Waiter(refresh, target=["ready"], poll_interval=50)
    events = drive(run_steps(waiter, clock=clock, timeout_minutes=2), clock)
    # timeoutInMinutes 2: give up a minute early at most half of it, at 60 s
    assert [e["callbackDelaySeconds"] for e in events[:-1]] == [50, 10]
    assert events[-1]["errorCode"] == "NotStabilized"
    assert "timeout (2 minutes)" in events[-1]["message"]
    assert clock.now - START == 60


def test_without_a_timeout_waits_stay_in_one_call():
    clock = FakeClock()
    refresh, _ = scripted(["pending"] * 4 + ["ready"])
    events = drive(
        run_steps(aws.Waiter(refresh, target=["ready"]), clock=clock, timeout_minutes=None), clock
    )
    assert [e["status"] for e in events] == ["SUCCESS"]
    refresh, _ = scripted(["pending"])
    events = drive(
        run_steps(aws.Waiter(refresh, target=["ready"]), clock=clock, timeout_minutes=None), clock
    )
    assert [e["errorCode"] for e in events] == ["NotStabilized"]
    assert "did not finish in one call" in events[0]["message"]


def test_a_budget_of_zero_hands_every_wait_to_cloudformation():
    clock = FakeClock()
    refresh, _ = scripted(["pending", "pending", "ready"])
    handler = run_steps(
        aws.Waiter(refresh, target=["ready"]), clock=clock, budget=aws.Budget(0, clock=clock)
    )
    events = drive(handler, clock)
    assert [e["status"] for e in events] == ["IN_PROGRESS", "IN_PROGRESS", "SUCCESS"]
    assert clock.slept == []


class LambdaContext:
    def __init__(self, clock: FakeClock, millis: int) -> None:
        self.clock, self.end = clock, clock.mono * 1000 + millis

    def get_remaining_time_in_millis(self) -> int:
        return int(self.end - self.clock.mono * 1000)


def test_the_lambda_contexts_remaining_time_limits_local_waits():
    clock = FakeClock()
    refresh, _ = scripted(["pending", "ready"])
    budget = aws.Budget(60, lambda_context=LambdaContext(clock, 10_100), clock=clock)
    event = aws.Steps(aws.Waiter(refresh, target=["ready"])).run(
        {}, None, budget=budget, clock=clock
    )
    assert event.status.name == "IN_PROGRESS"  # 10.1 s left, 10 s kept free: no 0.2 s wait
    budget = aws.Budget(60, lambda_context=LambdaContext(clock, 30_000), clock=clock)
    event = aws.Steps(aws.Waiter(refresh, target=["ready"])).run(
        {}, None, budget=budget, clock=clock
    )
    assert event.status.name == "SUCCESS"


# --------------------------------------------------------------------------- throttling


def throttle(stubber: Stubber, method: str, times: int) -> None:
    for _ in range(times):
        stubber.add_client_error(method, "ThrottlingException", "Rate exceeded", 400)


def stubbed_dax() -> tuple[Any, Stubber]:
    client = aws.client(
        boto3.Session(aws_access_key_id="a", aws_secret_access_key="b", region_name="us-east-1"),
        "dax",
    )
    return client, Stubber(client)


def test_a_throttled_refresh_is_one_more_poll():
    client, stubber = stubbed_dax()
    throttle(stubber, "describe_clusters", 3)
    stubber.add_response(
        "describe_clusters", {"Clusters": [{"ClusterName": CLUSTER, "Status": "available"}]}
    )

    def status() -> tuple[Any, str]:
        cluster = client.describe_clusters(ClusterNames=[CLUSTER])["Clusters"][0]
        return cluster, cluster["Status"]

    clock = FakeClock()
    with stubber:
        events = drive(
            run_steps(aws.Waiter(status, pending=["creating"], target=["available"]), clock=clock),
            clock,
        )
    assert events[-1]["status"] == "SUCCESS"
    assert clock.slept == [0.2, 0.4, 0.8]


def test_a_throttled_call_is_retried_across_callbacks_with_its_attempt_count():
    client, stubber = stubbed_dax()
    throttle(stubber, "create_cluster", 8)
    stubber.add_response("create_cluster", {"Cluster": {"ClusterName": CLUSTER}})
    clock = FakeClock()
    create = aws.Call(
        "create",
        lambda: client.create_cluster(
            ClusterName=CLUSTER, NodeType="n", ReplicationFactor=1, IamRoleArn=ROLE
        ),
        retry=aws.Retry(),
    )
    with stubber:
        events = drive(run_steps(create, clock=clock), clock)
    assert events[-1]["status"] == "SUCCESS"
    progress = [e["callbackContext"][aws.STATE_KEY]["progress"] for e in events[:-1]]
    assert [p["attempts"] for p in progress] == [5, 6, 7, 8]
    assert progress[0]["last"] == "ThrottlingException: Rate exceeded"


def test_a_call_throttled_past_the_retry_timeout_answers_throttling():
    client, stubber = stubbed_dax()
    throttle(stubber, "create_cluster", 100)
    clock = FakeClock()
    create = aws.Call(
        "create",
        lambda: client.create_cluster(
            ClusterName=CLUSTER, NodeType="n", ReplicationFactor=1, IamRoleArn=ROLE
        ),
        retry=aws.Retry(timeout=60),
    )
    with stubber:
        events = drive(run_steps(create, clock=clock), clock)
    assert (events[-1]["errorCode"], events[-1]["message"]) == (
        "Throttling",
        "create: ThrottlingException: Rate exceeded",
    )
    assert 60 <= clock.now - START < 75


def test_without_retry_a_call_error_ends_the_handler_with_its_code():
    client, stubber = stubbed_dax()
    throttle(stubber, "create_cluster", 1)
    clock = FakeClock()
    create = aws.Call(
        "create",
        lambda: client.create_cluster(
            ClusterName=CLUSTER, NodeType="n", ReplicationFactor=1, IamRoleArn=ROLE
        ),
    )
    with stubber:
        events = drive(run_steps(create, clock=clock), clock)
    assert [e["errorCode"] for e in events] == ["Throttling"]


# --------------------------------------------------------------------------- retries


def failing(
    errors: list[BaseException], result: Any = "done"
) -> tuple[Callable[[], Any], list[int]]:
    calls = [0]

    def function() -> Any:
        calls[0] += 1
        if calls[0] <= len(errors):
            raise errors[calls[0] - 1]
        return result

    return function, calls


def client_error(
    code: str, message: str = "", status: int = 400
) -> botocore.exceptions.ClientError:
    return botocore.exceptions.ClientError(
        {
            "Error": {"Code": code, "Message": message},
            "ResponseMetadata": {"HTTPStatusCode": status},
        },
        "Operation",
    )


IAM_NOT_READY = client_error(
    "InvalidParameterValueException",
    "The role defined for the function cannot be assumed by Lambda.",
)


@pytest.mark.parametrize(
    ("retry", "error", "retried"),
    [
        (aws.Retry(codes=["InvalidParameterValueException"]), IAM_NOT_READY, True),
        (aws.Retry(messages=["cannot be assumed"]), IAM_NOT_READY, True),
        (aws.Retry(messages=["something else"]), IAM_NOT_READY, False),
        (aws.Retry(not_found=True), client_error("ResourceNotFoundException"), True),
        (aws.Retry(), client_error("ResourceNotFoundException"), False),
        (aws.Retry(), client_error("ConcurrentModificationException"), True),
        (aws.Retry(retriable=False), client_error("ConcurrentModificationException"), False),
        (aws.Retry(), botocore.exceptions.EndpointConnectionError(endpoint_url="https://x"), True),
    ],
)
def test_which_errors_a_retry_retries(retry, error, retried):
    function, calls = failing([error, error])
    clock = FakeClock()
    if retried:
        assert aws.retry_here(function, retry, clock=clock) == "done"
        assert (calls[0], clock.slept) == (3, [0.2, 0.4])
    else:
        with pytest.raises(type(error)):
            aws.retry_here(function, retry, clock=clock)
        assert calls[0] == 1


def test_retry_here_gives_up_with_the_last_error_when_the_budget_runs_out():
    function, calls = failing([IAM_NOT_READY] * 100)
    clock = FakeClock()
    with pytest.raises(botocore.exceptions.ClientError) as raised:
        aws.retry_here(function, aws.Retry(messages=["cannot be assumed"]), clock=clock)
    assert raised.value is IAM_NOT_READY
    assert sum(clock.slept) <= aws.LOCAL_WAIT_SECONDS
    assert calls[0] == len(clock.slept) + 1


def test_an_eventual_consistency_error_past_the_retry_timeout_answers_its_own_code():
    function, _ = failing([IAM_NOT_READY] * 1000)
    clock = FakeClock()
    step = aws.Call("create", function, retry=aws.Retry(messages=["cannot be assumed"]))
    events = drive(run_steps(step, clock=clock), clock)
    assert events[-1]["errorCode"] == "InvalidRequest"
    assert (
        aws.PROPAGATION_TIMEOUT_SECONDS <= clock.now - START < aws.PROPAGATION_TIMEOUT_SECONDS + 11
    )


def test_wait_here_returns_the_result_or_raises_not_stabilized():
    clock = FakeClock()
    refresh, _ = scripted(["pending", "ready"])
    assert aws.Waiter(refresh, target=["ready"]).wait_here(clock=clock) == {"State": "ready"}
    refresh, _ = scripted(["pending"])
    with pytest.raises(exceptions.NotStabilized, match="did not finish in this invocation"):
        aws.Waiter(refresh, target=["ready"]).wait_here(clock=clock)
    refresh, _ = scripted(["failed"])
    with pytest.raises(exceptions.NotStabilized, match="unexpected state 'failed'"):
        aws.Waiter(refresh, pending=["pending"], target=["ready"]).wait_here(clock=clock)


# --------------------------------------------------------------------------- steps


def test_steps_run_in_order_and_each_once():
    clock = FakeClock()
    log: list[str] = []
    refresh, _ = scripted(["pending"] * 6 + ["ready"])
    steps = [
        aws.Call("one", lambda: log.append("one")),
        aws.Waiter(refresh, target=["ready"], name="wait"),
        aws.Call("two", lambda: log.append("two")),
    ]
    events = drive(run_steps(*steps, clock=clock), clock)
    assert len(events) > 1 and events[-1]["status"] == "SUCCESS"
    assert log == ["one", "two"]


def test_a_step_that_returns_an_event_ends_the_handler():
    clock = FakeClock()
    done = ProgressEvent.failed(HandlerErrorCode.InvalidRequest, "no")
    log: list[str] = []
    events = drive(
        run_steps(aws.Call("a", lambda: done), aws.Call("b", lambda: log.append("b")), clock=clock),
        clock,
    )
    assert ([e["errorCode"] for e in events], log) == (["InvalidRequest"], [])


def test_errors_in_steps_are_failed_events_with_their_codes():
    clock = FakeClock()

    def raise_(error: BaseException) -> Any:
        raise error

    for error, code in [
        (exceptions.NotUpdatable("Name cannot change"), "NotUpdatable"),
        (client_error("ParameterAlreadyExists", "exists"), "AlreadyExists"),
        (ValueError("bug"), "InternalFailure"),
    ]:
        events = drive(run_steps(aws.Call("make", lambda e=error: raise_(e)), clock=clock), clock)
        assert [e["errorCode"] for e in events] == [code]
    assert events[0]["message"] == "make: ValueError: bug"


def test_step_names_are_unique_and_a_vanished_step_is_reported():
    with pytest.raises(ValueError, match="own name"):
        aws.Steps(aws.Call("a", print), aws.Call("a", print))
    event = aws.Steps(aws.Call("a", print)).run({aws.STATE_KEY: {"step": "renamed"}})
    assert event.errorCode == HandlerErrorCode.InternalFailure
    assert "'renamed'" in event.message


def test_the_users_own_context_keys_are_kept():
    clock = FakeClock()
    refresh, _ = scripted(["pending"] * 6 + ["ready"])
    event = aws.Steps(aws.Waiter(refresh, target=["ready"])).run({"Mine": 1}, None, clock=clock)
    assert event.callbackContext is not None and event.callbackContext["Mine"] == 1


def test_a_typed_context_without_the_field_asks_for_generate():
    @dataclasses.dataclass
    class Old:
        Attempts: int | None = None

    with pytest.raises(TypeError, match="cfngen generate"):
        aws.Steps().run(Old())


# --------------------------------------------------------------------------- error mapping

# (AWS error code, service, HTTP status) -> the handler contract's code
CODES = [
    ("ThrottlingException", None, 400, "Throttling"),
    ("Throttling", None, 400, "Throttling"),
    ("RequestLimitExceeded", "ec2", 503, "Throttling"),
    ("TooManyRequestsException", "lambda", 429, "Throttling"),
    ("ProvisionedThroughputExceededException", "dynamodb", 400, "Throttling"),
    ("SlowDown", "s3", 503, "Throttling"),
    ("LimitExceededException", "kinesis", 400, "Throttling"),
    ("LimitExceededException", "dynamodb", 400, "Throttling"),
    ("LimitExceededException", "iam", 409, "ServiceLimitExceeded"),
    ("ServiceQuotaExceededException", "ecs", 402, "ServiceLimitExceeded"),
    ("TooManyBuckets", "s3", 400, "ServiceLimitExceeded"),
    ("ConcurrentModificationException", None, 400, "ResourceConflict"),
    ("ConflictException", None, 409, "ResourceConflict"),
    ("ResourceInUseException", "kinesis", 400, "ResourceConflict"),
    ("DependencyViolation", "ec2", 400, "ResourceConflict"),
    ("InvalidDBInstanceStateFault", "rds", 400, "ResourceConflict"),
    ("TooManyUpdates", "ssm", 400, "ResourceConflict"),
    ("OperationAborted", "s3", 409, "ResourceConflict"),
    ("InternalError", None, 500, "ServiceInternalError"),
    ("InternalFailure", None, 500, "ServiceInternalError"),
    ("ServiceUnavailable", None, 503, "ServiceInternalError"),
    ("SomethingOdd", None, 502, "ServiceInternalError"),
    ("AccessDenied", "s3", 403, "AccessDenied"),
    ("AccessDeniedException", None, 400, "AccessDenied"),
    ("UnauthorizedOperation", "ec2", 403, "AccessDenied"),
    ("SomethingOdd", None, 403, "AccessDenied"),
    ("UnrecognizedClientException", None, 400, "InvalidCredentials"),
    ("InvalidClientTokenId", "sts", 403, "InvalidCredentials"),
    ("ExpiredToken", None, 400, "InvalidCredentials"),
    ("ResourceNotFoundException", None, 400, "NotFound"),
    ("ParameterNotFound", "ssm", 400, "NotFound"),
    ("NoSuchEntity", "iam", 404, "NotFound"),
    ("NoSuchConfigurationRecorderException", "config", 400, "NotFound"),
    ("InvalidVpcID.NotFound", "ec2", 400, "NotFound"),
    ("ClusterNotFoundFault", "dax", 400, "NotFound"),
    ("SomethingOdd", None, 404, "NotFound"),
    ("EntityAlreadyExists", "iam", 409, "AlreadyExists"),
    ("ParameterAlreadyExists", "ssm", 400, "AlreadyExists"),
    ("InvalidGroup.Duplicate", "ec2", 400, "AlreadyExists"),
    ("ResourceExistsException", "secretsmanager", 400, "AlreadyExists"),
    ("BucketAlreadyOwnedByYou", "s3", 409, "AlreadyExists"),
    ("ResourceConflictException", "lambda", 409, "ResourceConflict"),
    ("ValidationException", None, 400, "InvalidRequest"),
    ("ValidationError", "cloudformation", 400, "InvalidRequest"),
    ("InvalidParameterValue", "ec2", 400, "InvalidRequest"),
    ("MissingParameter", "ec2", 400, "InvalidRequest"),
    ("MalformedPolicyDocument", "iam", 400, "InvalidRequest"),
    ("ParameterPatternMismatchException", "ssm", 400, "InvalidRequest"),
    ("UnsupportedParameterType", "ssm", 400, "InvalidRequest"),
    ("SomethingOdd", None, 400, "GeneralServiceException"),
]


@pytest.mark.parametrize(("code", "service", "status", "expected"), CODES)
def test_aws_error_codes(code, service, status, expected):
    assert aws.error_code(client_error(code, "m", status), service).name == expected


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (botocore.exceptions.EndpointConnectionError(endpoint_url="https://x"), "NetworkFailure"),
        (botocore.exceptions.ReadTimeoutError(endpoint_url="https://x"), "NetworkFailure"),
        (botocore.exceptions.ConnectTimeoutError(endpoint_url="https://x"), "NetworkFailure"),
        (ConnectionResetError(), "NetworkFailure"),
        (botocore.exceptions.NoCredentialsError(), "InvalidCredentials"),
        (botocore.exceptions.ParamValidationError(report="Name is missing"), "InvalidRequest"),
        (
            botocore.exceptions.WaiterError(name="w", reason="r", last_response={}),
            "NotStabilized",
        ),
        (exceptions.NotFound("T::T::T", "x"), "NotFound"),
        (exceptions.ResourceConflict("busy"), "ResourceConflict"),
        (botocore.exceptions.NoRegionError(), "InternalFailure"),
        (KeyError("x"), "InternalFailure"),
    ],
)
def test_other_exceptions(error, expected):
    assert aws.error_code(error).name == expected


def test_the_retriable_split_is_the_contracts():
    retriable = {code.name for code in HandlerErrorCode if aws.is_retriable(code)}
    assert retriable == {"NetworkFailure", "ResourceConflict", "ServiceInternalError", "Throttling"}


def test_aws_errors_raises_the_librarys_exceptions():
    not_found = r"'Acme::S::P' with identifier '/x' was not"
    with pytest.raises(exceptions.NotFound, match=not_found), aws.aws_errors("Acme::S::P", "/x"):
        raise client_error("ParameterNotFound")
    throttled = r"^LimitExceededException: slow down$"
    with (
        pytest.raises(exceptions.Throttling, match=throttled),
        aws.aws_errors("Acme::S::P", service="kinesis"),
    ):
        raise client_error("LimitExceededException", "slow down")
    with pytest.raises(exceptions.NotUpdatable), aws.aws_errors("Acme::S::P"):
        raise exceptions.NotUpdatable("no")


# --------------------------------------------------------------------------- clients


def test_clients_pin_the_retry_mode_and_timeouts():
    session = boto3.Session(
        aws_access_key_id="a", aws_secret_access_key="b", region_name="eu-west-1"
    )
    config = aws.client(session, "ssm").meta.config
    assert config.retries == {"mode": "standard", "total_max_attempts": 3}
    assert (config.connect_timeout, config.read_timeout) == (10, 30)
    merged = aws.client(session, "ssm", config=botocore.config.Config(read_timeout=50))
    assert (merged.meta.config.read_timeout, merged.meta.config.retries["mode"]) == (50, "standard")
    assert aws.client(session, "ssm", region_name="us-west-2").meta.region_name == "us-west-2"
    with pytest.raises(exceptions.InvalidCredentials):
        aws.client(None, "ssm")


def test_clients_sign_with_the_sessions_credentials_in_its_region(dax):
    """Clients share one botocore session for speed, never its credentials or region."""
    seen: list[str] = []
    for key, region in [("AKIDFIRST", "eu-west-1"), ("AKIDSECOND", "us-west-2")]:
        session = boto3.Session(
            aws_access_key_id=key,
            aws_secret_access_key="s",
            aws_session_token="t",
            region_name=region,
        )
        ssm = aws.client(session, "ssm")
        ssm.meta.events.register(
            "before-send",
            lambda request, **_: seen.append(request.headers["Authorization"].decode()),
        )
        ssm.describe_parameters()
        assert ssm.meta.region_name == region
    assert "Credential=AKIDFIRST/" in seen[0] and "/eu-west-1/ssm/" in seen[0]
    assert "Credential=AKIDSECOND/" in seen[1] and "/us-west-2/ssm/" in seen[1]


def test_a_deadline_from_an_earlier_call_holds_without_a_timeout():
    clock = FakeClock()
    refresh, _ = scripted(["pending"])
    context = {aws.STATE_KEY: {"deadline": START - 1, "step": "wait"}}
    event = aws.Steps(aws.Waiter(refresh, target=["ready"])).run(
        context, None, clock=clock, timeout_minutes=None
    )
    assert event.errorCode == HandlerErrorCode.NotStabilized
    assert event.message == "wait did not finish within the handler's timeout: state 'pending'"
