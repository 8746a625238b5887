"""Clients and errors: boto3 clients with retries and timeouts pinned, and one mapping from
botocore's exceptions and AWS error codes to the handler contract's error codes.

- `client(session, "ssm")`: a boto3 client with botocore's retries and timeouts pinned.
- `error_code(error)`, `aws_errors(...)`, `handler_error(...)`: the contract's code of an error.

Defaults mirror the Terraform AWS provider's where they make sense; each constant says where it
comes from. Needs only the standard library, botocore and cloudformation-cli-python-lib; runs on
Python 3.8 and newer.
"""

from __future__ import annotations

import functools
import re
import threading
from contextlib import contextmanager
from typing import Any, Iterator

import botocore.config
import botocore.exceptions
import botocore.session
from cloudformation_cli_python_lib import exceptions
from cloudformation_cli_python_lib.interface import HandlerErrorCode

__all__ = [
    "RETRIABLE",
    "SERVICE_OVERRIDES",
    "aws_error_code",
    "aws_errors",
    "client",
    "error_code",
    "handler_error",
    "is_retriable",
]

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
