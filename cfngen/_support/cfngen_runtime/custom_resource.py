"""A Lambda-backed custom resource that answers CloudFormation correctly (shipped by cfngen).

Write the three operations and let this module speak the protocol::

    from cfngen_custom_resource import CustomResource, Result

    resource = CustomResource()

    @resource.create
    def create(request):
        name = request.physical_id  # deterministic: the same for a duplicate delivery
        ...                          # make it (idempotently: a duplicate may arrive)
        return Result(name, data={"Arn": arn})

    @resource.update
    def update(request):
        ...                          # change it in place: the id stays request.physical_id
        return Result(request.physical_id, data={"Arn": arn})

    @resource.delete
    def delete(request):
        ...                          # raise NotFound (or return) for an id it never made

    handler = resource               # the Lambda handler: module.handler

What it guarantees, whatever the operations do:

- exactly one response per request: an exception becomes FAILED with the exception as Reason;
  shortly before the Lambda deadline (2 s; a tenth of the time for short functions) a FAILED
  "timed out" answer goes out, and whatever the operation answers later is dropped (never two
  answers);
- the response fits CloudFormation's 4,096 bytes: a long Reason is cut keeping its head, oversize
  Data is refused with FAILED naming the size; Data is a flat map of strings;
- PhysicalResourceId: never empty, at most 1 KB; Create's default is derived from the request
  (StackId, LogicalResourceId, RequestId), so a duplicate delivery gets the same id; Update
  keeps the request's id unless the operation returns `Result(new_id, replace=True)`
  (CloudFormation then deletes the old one); a Create that fails before it sets
  `request.physical_id` answers with an id marked as never made, and the rollback Delete of
  that id succeeds without calling `delete`; a FAILED Update echoes the request's id;
- Delete: `NotFound` raised by `delete` counts as deleted;
- the answer is one PUT with an empty Content-Type, retried on 5xx and network errors a bounded
  number of times within the deadline; any other non-2xx (403: the URL expired) is logged and
  never counted as delivered;
- requests that arrive through SNS are unwrapped.

Standard library only; runs on Python 3.8 and later (no requests, no botocore).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
import traceback
import urllib.error
import urllib.request
from typing import Any, Callable, Mapping

__all__ = [
    "FAILED",
    "MAX_RESPONSE_BYTES",
    "SUCCESS",
    "CustomResource",
    "NotFound",
    "Request",
    "Result",
    "unwrap_sns",
]

SUCCESS = "SUCCESS"
FAILED = "FAILED"
#: CloudFormation refuses larger response bodies.
MAX_RESPONSE_BYTES = 4096
MAX_PHYSICAL_ID_BYTES = 1024
#: Ids given to a Create that failed before it named what it made: Delete knows them.
NEVER_MADE_PREFIX = "cfngen-not-created-"
#: The timeout answer goes out this long before the Lambda deadline (a tenth of the time, at
#: least half a second, for shorter functions).
DEADLINE_MARGIN_SECONDS = 2.0
#: Attempts of the response PUT (on 5xx and network errors) and the wait between them.
PUT_ATTEMPTS = 4
PUT_BACKOFF_SECONDS = 0.5

LOG = logging.getLogger("cfngen_custom_resource")


class NotFound(Exception):
    """Raise it from `delete`: the resource is already gone (Delete then succeeds)."""


class Result:
    """What an operation returns: the physical id, GetAtt values, and NoEcho."""

    def __init__(
        self,
        physical_id: str | None = None,
        data: Mapping[str, Any] | None = None,
        *,
        no_echo: bool = False,
        replace: bool = False,
    ) -> None:
        self.physical_id = physical_id
        self.data = dict(data or {})
        self.no_echo = no_echo
        #: On Update: the new id means replacement (CloudFormation deletes the old resource).
        self.replace = replace


class Request:
    """One CloudFormation request, with the id rules applied."""

    def __init__(self, event: Mapping[str, Any], context: Any) -> None:
        self.event = dict(event)
        self.context = context
        self.request_type = str(event.get("RequestType", ""))
        self.request_id = str(event.get("RequestId", ""))
        self.stack_id = str(event.get("StackId", ""))
        self.logical_id = str(event.get("LogicalResourceId", ""))
        self.resource_type = str(event.get("ResourceType", ""))
        self.response_url = str(event.get("ResponseURL", ""))
        #: Every scalar arrives as a string, as CloudFormation sends it.
        self.properties: dict[str, Any] = dict(event.get("ResourceProperties") or {})
        self.old_properties: dict[str, Any] = dict(
            event.get("OldResourceProperties") or {}
        )
        given = event.get("PhysicalResourceId")
        self.made_physical_id = not (isinstance(given, str) and given)
        self._physical_id = (
            given if not self.made_physical_id else self.default_physical_id()
        )
        self.claimed = not self.made_physical_id

    @property
    def physical_id(self) -> str:
        """Create: a deterministic default; Update and Delete: the id CloudFormation holds.

        On Create, set it (even to its default) before making anything: a failure after that
        answers with this id, so the rollback Delete cleans up what was made."""
        return str(self._physical_id)

    @physical_id.setter
    def physical_id(self, value: str) -> None:
        self._physical_id = value
        self.claimed = True

    def default_physical_id(self) -> str:
        """`<LogicalId>-<hash>`: the same for every delivery of one request."""
        digest = hashlib.sha256(
            "\n".join((self.stack_id, self.logical_id, self.request_id)).encode("utf-8")
        ).hexdigest()[:16]
        return "{}-{}".format(self.logical_id[:200] or "Resource", digest)

    def remaining_seconds(self) -> float | None:
        getter = getattr(self.context, "get_remaining_time_in_millis", None)
        if getter is None:
            return None
        return float(getter()) / 1000.0


Operation = Callable[[Request], Any]


def unwrap_sns(event: Mapping[str, Any]) -> Mapping[str, Any]:
    """The request inside an SNS notification (a ServiceToken naming a topic), else `event`."""
    records = event.get("Records")
    if isinstance(records, list) and records and isinstance(records[0], dict):
        sns = records[0].get("Sns")
        if isinstance(sns, dict) and isinstance(sns.get("Message"), str):
            message = json.loads(sns["Message"])
            if isinstance(message, dict):
                return message
    return event


class CustomResource:
    """The Lambda handler: `resource(event, context)` answers CloudFormation exactly once."""

    def __init__(self, *, deadline_margin: float = DEADLINE_MARGIN_SECONDS) -> None:
        self._operations: dict[str, Operation] = {}
        self.deadline_margin = deadline_margin

    def create(self, function: Operation) -> Operation:
        self._operations["Create"] = function
        return function

    def update(self, function: Operation) -> Operation:
        self._operations["Update"] = function
        return function

    def delete(self, function: Operation) -> Operation:
        self._operations["Delete"] = function
        return function

    def __call__(self, event: Mapping[str, Any], context: Any) -> None:
        request = Request(unwrap_sns(event), context)
        answer = _Answer(request)
        timer = None
        remaining = request.remaining_seconds()
        if remaining is not None:
            # Short functions (Lambda's default is 3 s) keep most of their time: a tenth of
            # it, at least half a second, is enough for the PUT.
            margin = min(self.deadline_margin, max(0.5, remaining / 10))
            timer = threading.Timer(
                max(remaining - margin, 0.0),
                answer.timed_out,
                args=(min(margin, remaining),),
            )
            timer.daemon = True
            timer.start()
        try:
            body = self._run(request)
        except BaseException as exc:
            LOG.error("%s failed:\n%s", request.request_type, traceback.format_exc())
            body = _failed(request, _describe(exc), _failed_id(request))
            answer.send(body)
            if not isinstance(exc, Exception):
                raise
        else:
            answer.send(body)
        finally:
            if timer is not None:
                timer.cancel()

    def _run(self, request: Request) -> dict[str, Any]:
        kind = request.request_type
        if kind not in ("Create", "Update", "Delete"):
            return _failed(
                request, f"unknown RequestType {kind!r}", _failed_id(request)
            )
        if kind == "Delete" and request.physical_id.startswith(NEVER_MADE_PREFIX):
            return _response(request, SUCCESS, request.physical_id)
        operation = self._operations.get(kind)
        returned: Any = None
        if operation is not None:
            try:
                returned = operation(request)
            except NotFound:
                if kind != "Delete":
                    raise
                LOG.info("%s was already gone", request.physical_id)
                returned = None
        result = returned if isinstance(returned, Result) else Result(returned)
        if returned is not None and not isinstance(returned, (Result, str)):
            return _failed(
                request,
                f"{kind.lower()} returned {type(returned).__name__}: "
                "return a Result, a physical id (str) or None",
                _failed_id(request),
            )
        if kind == "Delete":
            return _response(request, SUCCESS, request.physical_id)
        physical_id = result.physical_id or request.physical_id
        old_id = request.event.get("PhysicalResourceId")
        if kind == "Update" and physical_id != old_id and not result.replace:
            return _failed(
                request,
                f"update returned a new physical id {physical_id!r} without replace=True: "
                f"CloudFormation would replace the resource and delete {old_id!r}",
                _failed_id(request),
            )
        problem = _id_problem(physical_id)
        if problem:
            return _failed(request, problem, _failed_id(request))
        data, problem = _flat_data(result.data)
        if problem:
            return _failed(request, problem, _failed_id(request, physical_id))
        return _response(
            request, SUCCESS, physical_id, data=data, no_echo=result.no_echo
        )


# --------------------------------------------------------------------------- the response


def _id_problem(physical_id: Any) -> str | None:
    if not isinstance(physical_id, str) or not physical_id:
        return "the physical id is empty"
    size = len(physical_id.encode("utf-8"))
    if size > MAX_PHYSICAL_ID_BYTES:
        limit = MAX_PHYSICAL_ID_BYTES
        return f"the physical id is {size} bytes; CloudFormation takes at most {limit}"
    return None


def _flat_data(data: Mapping[str, Any]) -> Any:
    """(Data as strings, None) or (None, why it cannot be sent)."""
    flat: dict[str, str] = {}
    for key, value in data.items():
        if isinstance(value, bool):
            flat[str(key)] = "true" if value else "false"
        elif isinstance(value, (str, int, float)):
            flat[str(key)] = str(value)
        else:
            return None, (
                f"Data[{key!r}] is a {type(value).__name__}: "
                "Fn::GetAtt reads a flat map of strings "
                "(serialise it with json.dumps, or flatten it)"
            )
    return flat, None


def _failed_id(request: Request, fallback: str | None = None) -> str:
    """The id of a FAILED answer: the request's on Update/Delete; on Create the id the
    operation named, else one Delete recognises as never made."""
    if not request.made_physical_id:
        return str(request.event["PhysicalResourceId"])
    if fallback:
        return fallback
    if request.claimed and not _id_problem(request.physical_id):
        return request.physical_id
    return NEVER_MADE_PREFIX + request.default_physical_id()


def _response(
    request: Request,
    status: str,
    physical_id: str,
    *,
    reason: str = "",
    data: dict[str, str] | None = None,
    no_echo: bool = False,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "Status": status,
        "PhysicalResourceId": physical_id,
        "StackId": request.stack_id,
        "RequestId": request.request_id,
        "LogicalResourceId": request.logical_id,
    }
    if reason:
        body["Reason"] = reason
    if no_echo:
        body["NoEcho"] = True
    if data and request.request_type != "Delete":
        body["Data"] = data
    return body


def _failed(request: Request, reason: str, physical_id: str) -> dict[str, Any]:
    return _response(request, FAILED, physical_id, reason=reason or "failed")


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def encode(body: dict[str, Any]) -> bytes:
    """The body as sent: within MAX_RESPONSE_BYTES, cutting Reason's tail, else FAILED
    without Data."""
    raw = json.dumps(body).encode("utf-8")
    if len(raw) <= MAX_RESPONSE_BYTES:
        return raw
    if "Data" in body:
        size = len(raw)
        body = {
            key: value for key, value in body.items() if key not in ("Data", "NoEcho")
        }
        body["Status"] = FAILED
        body["Reason"] = (
            f"the response is {size} bytes with its Data; CloudFormation takes at most "
            f"{MAX_RESPONSE_BYTES}: return less Data"
        )
        raw = json.dumps(body).encode("utf-8")
        if len(raw) <= MAX_RESPONSE_BYTES:
            return raw
    reason = str(body.get("Reason", ""))
    mark = " [truncated]"
    over = len(raw) - MAX_RESPONSE_BYTES
    # Cut by characters until it fits: JSON escapes make bytes and characters differ.
    keep = max(len(reason) - over - len(mark), 0)
    while True:
        body["Reason"] = reason[:keep] + mark
        raw = json.dumps(body).encode("utf-8")
        if len(raw) <= MAX_RESPONSE_BYTES or keep == 0:
            return raw
        keep = max(keep - max((len(raw) - MAX_RESPONSE_BYTES) // 6, 1), 0)


class _Answer:
    """The one response of a request: the first `send` wins, later ones are dropped."""

    def __init__(self, request: Request) -> None:
        self.request = request
        self._lock = threading.Lock()
        self._sent = False
        self._started = time.monotonic()

    def timed_out(self, margin: float) -> None:
        LOG.error(
            "%s is about to run out of time: answering FAILED",
            self.request.request_type,
        )
        self.send(
            _failed(
                self.request,
                f"timed out: no answer {margin:.1f} s before the function's deadline",
                _failed_id(self.request),
            )
        )

    def send(self, body: dict[str, Any]) -> bool:
        with self._lock:
            if self._sent:
                LOG.warning("already answered; dropping %s", body.get("Status"))
                return False
            self._sent = True
        return put(
            self.request.response_url, encode(body), self.request.remaining_seconds
        )


def put(
    url: str, raw: bytes, remaining: Callable[[], float | None] = lambda: None
) -> bool:
    """PUT the body to the presigned URL; True only when S3 answered 2xx."""
    for attempt in range(1, PUT_ATTEMPTS + 1):
        request = urllib.request.Request(url, data=raw, method="PUT")
        # A presigned S3 URL is signed without a Content-Type: it must go out empty.
        request.add_header("Content-Type", "")
        request.add_header("Content-Length", str(len(raw)))
        left = remaining()
        timeout = 10.0 if left is None else max(min(10.0, left - 0.2), 0.5)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                status = response.status
        except urllib.error.HTTPError as exc:
            status = exc.code
            detail = exc.read(500).decode("utf-8", "replace")
        except (OSError, ValueError) as exc:
            status, detail = 0, str(exc)
        else:
            detail = ""
        if 200 <= status < 300:
            LOG.info("response delivered (HTTP %s)", status)
            return True
        LOG.error(
            "response not delivered (attempt %s): HTTP %s %s", attempt, status, detail
        )
        if status and status < 500:
            return False  # 403: the URL expired or was changed; retrying cannot help
        left = remaining()
        wait = PUT_BACKOFF_SECONDS * 2 ** (attempt - 1)
        if attempt == PUT_ATTEMPTS or (left is not None and left < wait + 0.5):
            return False
        time.sleep(wait)
    return False
