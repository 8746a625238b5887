"""AWS helpers for handlers: waiters, retries, error codes and boto3 clients.

cfngen writes this file into the project beside models.py; `cfngen generate` refreshes
it. A handler cannot simply loop until AWS is ready: create, update and delete must
answer within 60 seconds, so a longer wait means answering IN_PROGRESS with a callback
context and a delay, and CloudFormation calls the handler again, maybe in another
container. These helpers do that bookkeeping:

- `client(session, "ssm")`: a boto3 client with botocore's retries and timeouts pinned.
- `error_code(error)`, `aws_errors(...)`: one mapping from botocore's exceptions and AWS
  error codes to the handler contract's error codes.
- `Steps(...).run(...)`: a handler as a list of steps (`Call`, `Waiter`) that run one
  after the other, across as many invocations as they need. Their progress is kept in
  the callback context under the key "cfngen" (`STATE_KEY`), as plain JSON.
- `Waiter`: Terraform's StateChangeConf (refresh, pending and target states, not-found
  checks, consecutive target occurrences, backoff). `Retry`: which errors of a `Call`
  mean "not yet" (eventual consistency), and for how long to try again.
- `Waiter.wait_here`, `retry_here`, `Budget`: waiting inside one invocation only, for
  hooks (they have no timeoutInMinutes) and for code outside `Steps`.

A create that calls, waits, tags and waits again:

    from .cfngen_aws import Call, Steps, Waiter, client
    from .models import TIMEOUT_MINUTES

    @resource.handler(Action.CREATE)
    def create_handler(session, request, callback_context):
        model = request.desiredResourceState
        dax = client(session, "dax")

        def status():
            cluster = dax.describe_clusters(ClusterNames=[model.Name])["Clusters"][0]
            return cluster, cluster["Status"]

        return Steps(
            Call("create", lambda: dax.create_cluster(ClusterName=model.Name, ...)),
            Waiter(status, pending=["creating"], target=["available"], name="up"),
            Call("tag", lambda: dax.tag_resource(ResourceName=..., Tags=...)),
            Waiter(status, pending=["modifying"], target=["available"], name="tagged"),
        ).run(callback_context, model, timeout_minutes=TIMEOUT_MINUTES["create"])

Defaults mirror the Terraform AWS provider's where they make sense; each constant says
where it comes from. Needs only the standard library, botocore and
cloudformation-cli-python-lib; runs on Python 3.8 and newer.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, Mapping, Sequence, Tuple, Union

import botocore.config
import botocore.exceptions
import botocore.session
from cloudformation_cli_python_lib import exceptions
from cloudformation_cli_python_lib.interface import (
    HandlerErrorCode,
    OperationStatus,
    ProgressEvent,
)

__all__ = [
    "RETRIABLE",
    "STATE_KEY",
    "Budget",
    "Call",
    "Clock",
    "Retry",
    "Steps",
    "Waiter",
    "aws_error_code",
    "aws_errors",
    "client",
    "error_code",
    "handler_error",
    "is_retriable",
    "retry_here",
]

LOG = logging.getLogger(__name__)

#: The callback context key that holds the progress of `Steps` (a JSON object). The
#: CallbackContext of models.py declares it; leave it to these helpers.
STATE_KEY = "cfngen"

# --------------------------------------------------------------------------- defaults

#: The handler contract's timeout for a handler without `timeoutInMinutes`.
DEFAULT_TIMEOUT_MINUTES = 120
#: Steps give up this long before the handler's timeout (at most half of it), so that
#: CloudFormation gets their NotStabilized message rather than its own timeout.
DEADLINE_MARGIN_SECONDS = 60.0
#: In-process waiting per invocation; a longer wait is a callback (IN_PROGRESS with
#: callbackDelaySeconds). Short waits are cheaper in-process, long ones cost nothing as
#: callbacks; the contract allows 60 s a call.
LOCAL_WAIT_SECONDS = 5.0
#: With a Lambda context: time kept free at the end of the invocation to answer.
SAFETY_MARGIN_SECONDS = 10.0
#: Terraform's StateChangeConf: 100 ms, doubled after every poll that did not see the
#: target (so 0.2 s, 0.4 s, ...), at most 10 s.
FIRST_INTERVAL_SECONDS = 0.1
MAX_INTERVAL_SECONDS = 10.0
#: Terraform's StateChangeConf: polls that may find nothing before it gives up, and how
#: often in a row the target state must be seen.
NOT_FOUND_CHECKS = 20
CONTINUOUS_TARGET_OCCURRENCE = 1
#: Terraform's PropagationTimeout: how long eventual-consistency errors are retried
#: (IAM changes take about two minutes to be seen everywhere).
PROPAGATION_TIMEOUT_SECONDS = 120.0
#: botocore's "standard" retry mode: 3 attempts, jittered backoff, throttles and 5xx
#: retried. Older botocore (a Lambda runtime may bundle one) defaults to "legacy".
#: Terraform makes 25 attempts: too many for 60 seconds.
RETRY_MODE = "standard"
MAX_ATTEMPTS = 3
#: botocore waits 60 s for each by default: one hung connection would use up a call.
CONNECT_TIMEOUT_SECONDS = 10
READ_TIMEOUT_SECONDS = 30


def client(
    session: Any,
    service_name: str,
    *,
    region_name: str | None = None,
    config: botocore.config.Config | None = None,
) -> Any:
    """A boto3 client from the handler's session, with retries and timeouts pinned.

    `config` is merged over the pinned settings. No session (the handler got no
    credentials) is InvalidCredentials.

        ssm = client(session, "ssm")
        rds = client(session, "rds", config=Config(read_timeout=50))
    """
    if session is None:
        raise exceptions.InvalidCredentials("CloudFormation passed no credentials")
    pinned = botocore.config.Config(
        retries={"mode": RETRY_MODE, "total_max_attempts": MAX_ATTEMPTS},
        connect_timeout=CONNECT_TIMEOUT_SECONDS,
        read_timeout=READ_TIMEOUT_SECONDS,
    )
    if config is not None:
        pinned = pinned.merge(config)
    boto3_session = getattr(session, "session", session)  # the library's SessionProxy
    get_credentials = getattr(boto3_session, "get_credentials", None)
    credentials = get_credentials() if get_credentials is not None else None
    if credentials is None:
        return session.client(service_name, region_name=region_name, config=pinned)
    # The library makes a new boto3 session for every call, and a new session reads
    # the service's model files again (0.1 to 0.5 s a client); one botocore session
    # for the container keeps them loaded (10 ms a client).
    frozen = credentials.get_frozen_credentials()
    with _SHARED_LOCK:
        return _shared_session().create_client(
            service_name,
            region_name=region_name or boto3_session.region_name,
            aws_access_key_id=frozen.access_key,
            aws_secret_access_key=frozen.secret_key,
            aws_session_token=frozen.token,
            config=pinned,
        )


_SHARED_LOCK = threading.Lock()


@functools.lru_cache(maxsize=None)
def _shared_session() -> Any:
    return botocore.session.get_session()


# --------------------------------------------------------------------------- errors

_Code = HandlerErrorCode

#: The contract's retriable codes; every other code ends the operation.
RETRIABLE = frozenset(
    {
        _Code.NetworkFailure,
        _Code.ResourceConflict,
        _Code.ServiceInternalError,
        _Code.Throttling,
    }
)

#: (service as boto3 names it, AWS error code): where a service means something else
#: by a code than the patterns below say.
SERVICE_OVERRIDES: dict[tuple[str, str], HandlerErrorCode] = {
    # Too many requests per second, not a quota.
    ("kinesis", "LimitExceededException"): _Code.Throttling,
    ("dynamodb", "LimitExceededException"): _Code.Throttling,
    ("s3", "BucketAlreadyOwnedByYou"): _Code.AlreadyExists,
    ("s3", "OperationAborted"): _Code.ResourceConflict,
}

# Searched in the AWS error code in order; the first that matches wins. Written out:
# botocore's own lists only say retriable or not, and take every LimitExceededException
# for a throttle.
_CODE_PATTERNS: tuple[tuple[str, HandlerErrorCode], ...] = (
    (
        r"Throttl|TooManyRequests|ProvisionedThroughputExceeded|RequestLimitExceeded"
        r"|BandwidthLimitExceeded|SlowDown|PriorRequestNotComplete"
        r"|TransactionInProgress",
        _Code.Throttling,
    ),
    (
        r"UnrecognizedClient|InvalidClientTokenId|ExpiredToken|InvalidAccessKeyId"
        r"|SignatureDoesNotMatch|IncompleteSignature|MissingAuthenticationToken"
        r"|AuthFailure|RequestExpired|InvalidSignature",
        _Code.InvalidCredentials,
    ),
    (
        r"AccessDenied|Unauthorized|Forbidden|NotAuthorized|AuthorizationError"
        r"|OptInRequired",
        _Code.AccessDenied,
    ),
    (r"NotFound|NoSuch|NotExist", _Code.NotFound),
    (r"AlreadyExists|Duplicate|Exists", _Code.AlreadyExists),
    (
        r"Conflict|ConcurrentModification|ConcurrentUpdate|InUse|DependencyViolation"
        r"|TemporarilyUnmodifiable|TooManyUpdates|(?:Invalid|Incorrect)\w*State",
        _Code.ResourceConflict,
    ),
    (r"LimitExceeded|QuotaExceeded|TooMany", _Code.ServiceLimitExceeded),
    (
        r"Internal|Unavailable|RequestTimeout|ServiceFailure|ServerException",
        _Code.ServiceInternalError,
    ),
    (
        r"Validation|Invalid|MissingParameter|Malformed|BadRequest|Mismatch"
        r"|Unsupported",
        _Code.InvalidRequest,
    ),
)
_PATTERNS = tuple((re.compile(pattern), code) for pattern, code in _CODE_PATTERNS)
_STATUS_CODES = {
    401: _Code.AccessDenied,
    403: _Code.AccessDenied,
    404: _Code.NotFound,
    409: _Code.ResourceConflict,
    429: _Code.Throttling,
}
_NETWORK_ERRORS = (
    botocore.exceptions.HTTPClientError,
    botocore.exceptions.ConnectionError,
    ConnectionError,
    TimeoutError,
)
_CREDENTIAL_ERRORS = tuple(
    getattr(botocore.exceptions, name)
    for name in (
        "NoCredentialsError",
        "PartialCredentialsError",
        "CredentialRetrievalError",
        "TokenRetrievalError",
        "SSOError",
    )
    if hasattr(botocore.exceptions, name)  # older botocore lacks the last two
)


def aws_error_code(error: BaseException) -> str:
    """The AWS error code of a botocore ClientError ("ThrottlingException"), else ""."""
    if isinstance(error, botocore.exceptions.ClientError):
        return str(error.response.get("Error", {}).get("Code", ""))
    return ""


def error_code(error: BaseException, service: str | None = None) -> HandlerErrorCode:
    """The handler contract's error code for an exception.

    An AWS error by its code (`SERVICE_OVERRIDES` for `service`, then name patterns:
    throttling, credentials, access, not found, already exists, conflicts, quotas,
    5xx, validation), then by HTTP status, else GeneralServiceException. Connection
    errors are NetworkFailure, missing credentials InvalidCredentials, botocore's
    parameter checks InvalidRequest, the library's exceptions keep their code, and
    anything else is InternalFailure.

        except ClientError as error:
            return ProgressEvent.failed(error_code(error, "kinesis"), str(error))
    """
    if isinstance(error, exceptions._HandlerError):
        for cls in type(error).__mro__:
            if cls.__name__ in HandlerErrorCode.__members__:
                return HandlerErrorCode[cls.__name__]
    if isinstance(error, botocore.exceptions.ClientError):
        code = aws_error_code(error)
        override = SERVICE_OVERRIDES.get((service or "", code))
        if override is not None:
            return override
        for pattern, handler_code in _PATTERNS:
            if pattern.search(code):
                return handler_code
        status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
        if isinstance(status, int) and status >= 500:
            return _Code.ServiceInternalError
        return _STATUS_CODES.get(status, _Code.GeneralServiceException)
    if isinstance(error, _NETWORK_ERRORS):
        return _Code.NetworkFailure
    if isinstance(error, _CREDENTIAL_ERRORS):
        return _Code.InvalidCredentials
    if isinstance(error, botocore.exceptions.ParamValidationError):
        return _Code.InvalidRequest
    if isinstance(error, botocore.exceptions.WaiterError):
        return _Code.NotStabilized
    return _Code.InternalFailure


def is_retriable(code: HandlerErrorCode) -> bool:
    """Whether the contract counts `code` as retriable (`RETRIABLE`).

    CloudFormation may try a retriable operation again; any other code ends it.

        if not is_retriable(error_code(error)):
            return ProgressEvent.failed(error_code(error), str(error))
    """
    return code in RETRIABLE


def _message(error: BaseException) -> str:
    if isinstance(error, botocore.exceptions.ClientError):
        detail = error.response.get("Error", {})
        return f"{detail.get('Code', '')}: {detail.get('Message', '')}".strip(": ")
    return f"{type(error).__name__}: {error}".rstrip(": ")


def handler_error(
    error: BaseException,
    type_name: str = "",
    identifier: object = None,
    service: str | None = None,
) -> Exception:
    """The library's exception for `error` (by `error_code`), ready to raise.

    NotFound and AlreadyExists name the type and the identifier, as the library does.

        raise handler_error(error, TYPE_NAME, model.Name) from error
    """
    code = error_code(error, service)
    error_class: type[Exception] = getattr(exceptions, code.name)
    if code in (_Code.NotFound, _Code.AlreadyExists):
        return error_class(type_name, str(identifier))
    return error_class(_message(error))


@contextmanager
def aws_errors(
    type_name: str, identifier: object = None, *, service: str | None = None
) -> Iterator[None]:
    """Raise the library's exception (`handler_error`) for any error inside.

    The library answers it as FAILED with that code; its own exceptions pass through.

        with aws_errors(TYPE_NAME, model.Name):
            ssm.put_parameter(Name=model.Name, Value=model.Value, Type="String")
    """
    try:
        yield
    except exceptions._HandlerError:
        raise
    except Exception as error:
        raise handler_error(error, type_name, identifier, service) from error


# --------------------------------------------------------------------------- time


class Clock:
    """Where the helpers read the time and sleep; tests pass a fake one.

    `time()` is the wall clock (deadlines are kept in the callback context, and the
    next call may run in another container); `monotonic()` measures one invocation.
    """

    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class Budget:
    """How long this invocation may still wait in-process, counted from its creation.

    At most `seconds`; with the Lambda context, also `SAFETY_MARGIN_SECONDS` short of
    the function's own timeout. `Budget(0)` never waits: every wait is a callback.

        Steps(...).run(callback_context, model, budget=Budget(20))
    """

    def __init__(
        self,
        seconds: float = LOCAL_WAIT_SECONDS,
        *,
        lambda_context: Any = None,
        clock: Clock | None = None,
    ) -> None:
        self.clock = clock or Clock()
        self.seconds = seconds
        self.lambda_context = lambda_context
        self.started = self.clock.monotonic()

    def remaining(self) -> float:
        left = self.seconds - (self.clock.monotonic() - self.started)
        if self.lambda_context is not None:
            in_lambda = self.lambda_context.get_remaining_time_in_millis() / 1000
            left = min(left, in_lambda - SAFETY_MARGIN_SECONDS)
        return max(0.0, left)

    def allows(self, wait: float, work: float = 0.0) -> bool:
        """Whether `wait` and then twice the `work` it follows still fit (the Java
        plugin's rule for waiting in-process)."""
        return wait + 2 * work + 0.1 <= self.remaining()


# --------------------------------------------------------------------------- steps


@dataclass(frozen=True)
class Retry:
    """Which errors of a `Call` mean "not yet", and how long to try it again.

    An error is retried when its AWS code is in `codes`, its text contains one of
    `messages`, it maps to NotFound and `not_found` is set (a new resource that is not
    visible yet), or its code is `RETRIABLE` and `retriable` is set. Attempts back off
    as `Waiter` polls do and stop `timeout` seconds after the first failure: then the
    error is the answer. When the invocation's budget runs out first, `Steps` answers
    IN_PROGRESS and the next call goes on counting.

        # a new IAM role takes a while before Lambda may assume it
        Call("create", create_function,
             retry=Retry(messages=["role defined for the function cannot be assumed"]))
    """

    codes: Sequence[str] = ()
    messages: Sequence[str] = ()
    not_found: bool = False
    retriable: bool = True
    timeout: float = PROPAGATION_TIMEOUT_SECONDS

    def matches(self, error: BaseException, code: HandlerErrorCode) -> bool:
        return (
            aws_error_code(error) in self.codes
            or any(text in str(error) for text in self.messages)
            or (self.not_found and code is _Code.NotFound)
            or (self.retriable and code in RETRIABLE)
        )


@dataclass(frozen=True)
class _Done:
    result: Any = None


@dataclass(frozen=True)
class _Again:
    wait: float
    note: str
    #: A Call's error that was retried: the answer if no time is left.
    error: BaseException | None = None


_Progress = Dict[str, Any]


def _count(progress: Mapping[str, Any], key: str) -> int:
    try:
        return int(progress.get(key, 0))
    except (TypeError, ValueError):
        return 0


def _backoff(
    doublings: int,
    min_interval: float = 0.0,
    max_interval: float = MAX_INTERVAL_SECONDS,
    poll_interval: float | None = None,
) -> float:
    if poll_interval:
        return float(poll_interval)
    wait = FIRST_INTERVAL_SECONDS * 2.0 ** min(doublings, 32)
    return min(max(wait, min_interval), max(max_interval, min_interval))


class Call:
    """A step that calls `function`; the next step runs once it has returned.

    Its result is ignored, except a ProgressEvent, which ends the handler with that
    event (SUCCESS with the model you read back, say). An error ends the handler with
    its code (`error_code`), unless `retry` says to try again.

        Call("create", lambda: ssm.put_parameter(Name=name, Value=value, Type="String"))
    """

    def __init__(
        self, name: str, function: Callable[[], Any], *, retry: Retry | None = None
    ) -> None:
        self.name = name
        self.function = function
        self.retry = retry

    def attempt(self, progress: _Progress, clock: Clock, service: str | None) -> Any:
        try:
            result = self.function()
        except exceptions._HandlerError:
            raise
        except Exception as error:
            retry = self.retry
            if retry is None or not retry.matches(error, error_code(error, service)):
                raise
            first = float(progress.setdefault("since", clock.time()))
            if clock.time() - first >= retry.timeout:
                raise
            attempts = progress["attempts"] = _count(progress, "attempts") + 1
            progress["last"] = _message(error)
            note = f"{_message(error)} (attempt {attempts})"
            return _Again(_backoff(attempts), note, error)
        return result if isinstance(result, ProgressEvent) else _Done(result)


Refresh = Callable[[], Tuple[Any, str]]


@dataclass(frozen=True)
class Waiter:
    """A step that waits for a state, as Terraform's StateChangeConf does.

    `refresh()` returns `(result, state)`; a result of None, or an error that maps to
    NotFound, means "not found". The wait is over when a `target` state has been seen
    `continuous_target_occurrence` times in a row or, with no `target`, once the thing
    is gone. NotStabilized ends it: a state in neither list (when `pending` is given),
    nothing found more than `not_found_checks` times in a row, the handler's timeout.
    A retriable error (throttling, 5xx) counts as one more pending poll. Polls start
    after `delay` seconds, then come 0.2, 0.4, ... seconds apart, within
    [`min_interval`, `max_interval`], or every `poll_interval` seconds.

        def status():
            db = rds.describe_db_instances(DBInstanceIdentifier=name)["DBInstances"][0]
            return db, db["DBInstanceStatus"]

        Waiter(status, pending=["creating", "backing-up"], target=["available"],
               poll_interval=30, name="available")
    """

    refresh: Refresh
    pending: Sequence[str] = ()
    target: Sequence[str] = ()
    delay: float = 0.0
    min_interval: float = 0.0
    max_interval: float = MAX_INTERVAL_SECONDS
    poll_interval: float | None = None
    not_found_checks: int = NOT_FOUND_CHECKS
    continuous_target_occurrence: int = CONTINUOUS_TARGET_OCCURRENCE
    name: str = "wait"

    @classmethod
    def until_found(cls, describe: Callable[[], Any], **options: Any) -> Waiter:
        """Wait until `describe()` stops failing with NotFound (a new thing is seen).

        Other options are the Waiter's; not found is counted by `not_found_checks`.

            Waiter.until_found(lambda: ssm.get_parameter(Name=name), name="readable")
        """
        return cls(_presence(describe), target=("exists",), **options)

    @classmethod
    def until_gone(cls, describe: Callable[[], Any], **options: Any) -> Waiter:
        """Wait until `describe()` fails with NotFound (a deleted thing is gone).

        Other options are the Waiter's.

            Waiter.until_gone(lambda: dax.describe_clusters(ClusterNames=[name]))
        """
        return cls(_presence(describe), pending=("exists",), **options)

    def attempt(self, progress: _Progress, clock: Clock, service: str | None) -> Any:
        if self.delay > 0 and not progress.get("delayed"):
            progress["delayed"] = True
            return _Again(self.delay, f"first poll after {self.delay:g} s")
        try:
            result, state = self.refresh()
        except exceptions._HandlerError:
            raise
        except Exception as error:
            code = error_code(error, service)
            if code in RETRIABLE:
                return self._next(progress, f"refresh failed: {_message(error)}")
            if code is not _Code.NotFound:
                raise
            result, state = None, ""
        seen = progress["last"] = "not found" if result is None else f"state {state!r}"
        if (result is None and not self.target) or (
            result is not None and state in self.target
        ):
            hits = progress["hits"] = _count(progress, "hits") + 1
            progress["missing"] = 0
            if hits >= self.continuous_target_occurrence:
                return _Done(result)
            return self._next(progress, f"{seen}, {hits} time(s) in a row")
        progress["hits"] = 0
        if result is None:
            missing = progress["missing"] = _count(progress, "missing") + 1
            if missing > self.not_found_checks:
                message = f"{self.name}: not found in {missing} checks in a row"
                return ProgressEvent.failed(_Code.NotStabilized, message)
            return self._next(progress, seen)
        progress["missing"] = 0
        if self.pending and state not in self.pending:
            expected = ", ".join(repr(s) for s in [*self.target, *self.pending])
            message = f"{self.name}: unexpected {seen} (expected {expected})"
            return ProgressEvent.failed(_Code.NotStabilized, message)
        return self._next(progress, seen)

    def _next(self, progress: _Progress, note: str) -> _Again:
        doublings = _count(progress, "backoff")
        if not _count(progress, "hits"):  # as Terraform: no doubling while it recurs
            doublings = progress["backoff"] = doublings + 1
        interval = _backoff(
            doublings, self.min_interval, self.max_interval, self.poll_interval
        )
        return _Again(interval, note)

    def wait_here(
        self,
        *,
        budget: Budget | None = None,
        clock: Clock | None = None,
        service: str | None = None,
    ) -> Any:
        """Wait in this invocation only: the last refresh result, or NotStabilized.

        For hooks (they have no timeoutInMinutes) and for code outside `Steps`.

            cluster = Waiter(status, target=["available"]).wait_here(budget=Budget(20))
        """
        return _in_process(self, budget, clock, service)


def _presence(describe: Callable[[], Any]) -> Refresh:
    def refresh() -> tuple[Any, str]:
        return describe(), "exists"

    return refresh


def retry_here(
    function: Callable[[], Any],
    retry: Retry | None = None,
    *,
    budget: Budget | None = None,
    clock: Clock | None = None,
    service: str | None = None,
) -> Any:
    """Call `function` until it succeeds, retrying as `retry` says, in this invocation.

    Returns its result; raises its last error once the retry timeout or the budget is
    used up. For hooks and for code outside `Steps`.

        role = retry_here(lambda: iam.get_role(RoleName=name), Retry(not_found=True))
    """
    step = Call("call", function, retry=retry or Retry())
    return _in_process(step, budget, clock, service)


Step = Union[Call, Waiter]


def _in_process(
    step: Step, budget: Budget | None, clock: Clock | None, service: str | None
) -> Any:
    clock = clock or (budget.clock if budget else Clock())
    budget = budget or Budget(clock=clock)
    progress: _Progress = {}
    while True:
        started = clock.monotonic()
        outcome = step.attempt(progress, clock, service)
        if isinstance(outcome, _Done):
            return outcome.result
        if isinstance(outcome, ProgressEvent):
            if outcome.status != OperationStatus.FAILED:
                return outcome
            raise exceptions.NotStabilized(outcome.message)
        if not budget.allows(outcome.wait, clock.monotonic() - started):
            if outcome.error is not None:
                raise outcome.error
            message = f"{step.name} did not finish in this invocation: {outcome.note}"
            raise exceptions.NotStabilized(message)
        clock.sleep(outcome.wait)


class Steps:
    """A handler as steps that run in order, across as many invocations as they need.

    `run` goes as far as one invocation's `Budget` allows. A step that must wait longer
    makes the handler answer IN_PROGRESS with the right `callbackDelaySeconds` and its
    progress in the callback context (under `STATE_KEY`); CloudFormation's next call
    carries on where it stopped. After the last step the answer is SUCCESS with
    `model`. It never waits past the handler's `timeout_minutes` (models.py's
    TIMEOUT_MINUTES has the schema's): then the answer is FAILED NotStabilized.
    `timeout_minutes=None` never answers IN_PROGRESS. Errors end it with their code.

    `callback_context` is what the handler was given (a dict) or your CallbackContext
    from models.py; your own keys or fields are kept.

        return Steps(
            Call("create", create),
            Waiter.until_found(read, name="readable"),
            Call("tag", tag),
        ).run(callback_context, model, timeout_minutes=TIMEOUT_MINUTES["create"])
    """

    def __init__(self, *steps: Step) -> None:
        names = [step.name for step in steps]
        if len(set(names)) != len(names):
            raise ValueError(f"give every step its own name: {names}")
        self.steps = steps

    def run(
        self,
        callback_context: Any,
        model: Any = None,
        *,
        timeout_minutes: float | None = DEFAULT_TIMEOUT_MINUTES,
        budget: Budget | None = None,
        clock: Clock | None = None,
        service: str | None = None,
    ) -> ProgressEvent:
        clock = clock or (budget.clock if budget else Clock())
        budget = budget or Budget(clock=clock)
        state = _load_state(callback_context)
        if "deadline" not in state and timeout_minutes:
            seconds = float(timeout_minutes) * 60
            state["deadline"] = (
                clock.time() + seconds - min(DEADLINE_MARGIN_SECONDS, seconds / 2)
            )
        names = [step.name for step in self.steps]
        name = state.get("step", names[0] if names else None)
        if name not in names and name is not None:
            message = f"the callback context names step {name!r}, which is gone"
            return ProgressEvent.failed(_Code.InternalFailure, message)
        index = names.index(name) if name is not None else 0
        while index < len(self.steps):
            step = self.steps[index]
            state["step"] = step.name
            progress: _Progress = state.setdefault("progress", {})
            started = clock.monotonic()
            try:
                outcome = step.attempt(progress, clock, service)
            except exceptions._HandlerError as error:
                return error.to_progress_event()
            except Exception as error:
                return _failed(step, error, service)
            if isinstance(outcome, ProgressEvent):
                return outcome
            if isinstance(outcome, _Done):
                index += 1
                state.pop("progress", None)
                continue
            wait, now, deadline = outcome.wait, clock.time(), state.get("deadline")
            if isinstance(deadline, (int, float)) and now + wait > deadline:
                if now >= deadline:
                    if outcome.error is not None:
                        return _failed(step, outcome.error, service)
                    limit = f" ({timeout_minutes:g} minutes)" if timeout_minutes else ""
                    message = (
                        f"{step.name} did not finish within the handler's timeout"
                        f"{limit}: {outcome.note}"
                    )
                    return ProgressEvent.failed(_Code.NotStabilized, message)
                wait = deadline - now  # one last look at the deadline
            if budget.allows(wait, clock.monotonic() - started):
                LOG.info("%s: %s; again in %.1f s", step.name, outcome.note, wait)
                clock.sleep(wait)
                continue
            if timeout_minutes is None:
                if outcome.error is not None:
                    return _failed(step, outcome.error, service)
                message = f"{step.name} did not finish in one call: {outcome.note}"
                return ProgressEvent.failed(_Code.NotStabilized, message)
            delay = max(1, math.ceil(wait))
            LOG.info("%s: %s; calling back in %d s", step.name, outcome.note, delay)
            return ProgressEvent(
                status=OperationStatus.IN_PROGRESS,
                resourceModel=model,
                callbackContext=_save_state(callback_context, state),
                callbackDelaySeconds=delay,
            )
        return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


def _failed(step: Step, error: BaseException, service: str | None) -> ProgressEvent:
    return ProgressEvent.failed(
        error_code(error, service), f"{step.name}: {_message(error)}"
    )


def _load_state(context: Any) -> dict[str, Any]:
    if context is None:
        return {}
    if isinstance(context, Mapping):
        raw = context.get(STATE_KEY)
    elif STATE_KEY in getattr(type(context), "__dataclass_fields__", {}):
        raw = getattr(context, STATE_KEY)
    else:
        raise TypeError(
            f"{type(context).__name__} has no field {STATE_KEY!r}: run `cfngen "
            "generate` to add it, or pass the handler's callback_context dict"
        )
    # a copy, through JSON: what CloudFormation would give the next call
    return json.loads(json.dumps(raw)) if isinstance(raw, Mapping) else {}


def _save_state(context: Any, state: dict[str, Any]) -> dict[str, Any]:
    if context is None or isinstance(context, Mapping):
        saved = dict(context or {})
        saved[STATE_KEY] = state
        return saved
    setattr(context, STATE_KEY, state)
    return dict(context._serialize())
