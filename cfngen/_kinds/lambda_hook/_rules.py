"""Every rule a Lambda hook's answers must keep, each a named test with a stable problem code.

The rules are those of AWS's guide, "Create Lambda functions to evaluate resources for Lambda
Hooks" (the "Response input" section): CloudFormation waits up to 30 seconds for the function;
`hookStatus` is SUCCESS, FAILED or IN_PROGRESS and IN_PROGRESS may be answered so that the
function is invoked up to 3 times in all; `errorCode` NonCompliant or InternalFailure is
required when the hook fails; the request's `clientRequestToken` is required; `message` is cut
at 4,096 characters (1,024 for Cloud Control API). A rule is checked on every answer of every
request a run sends (`Answered`); its breach is a failure where CloudFormation fails the hook,
and a warning where it accepts the answer and changes it (a message cut) or where the guide
says nothing either way (annotations).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cfngen._kinds.lambda_hook._requests import Target

#: CloudFormation waits this long for one invocation.
WAIT_SECONDS = 30.0
#: Invocations of one request in all (IN_PROGRESS twice, then a final answer).
MAX_INVOCATIONS = 3
STATUSES = frozenset({"SUCCESS", "FAILED", "IN_PROGRESS"})
ERROR_CODES = frozenset({"NonCompliant", "InternalFailure"})
ANNOTATION_STATUSES = frozenset({"PASSED", "FAILED", "SKIPPED"})
SEVERITIES = frozenset({"INFORMATIONAL", "LOW", "MEDIUM", "HIGH", "CRITICAL"})


@dataclass
class Attempt:
    """One invocation of the function and its answer."""

    request: dict[str, Any]
    #: The returned value as JSON (None: nothing usable came back; see `error`, `timed_out`).
    response: Any
    #: Seconds it ran, on the run's clock: real time, plus any time.sleep() in simulated time.
    seconds: float
    timed_out: bool = False
    #: What the function raised, or why it could not run.
    error: str | None = None
    #: Why the invocation was not made (its invocation point hung earlier in the run).
    refused: str | None = None

    @property
    def number(self) -> int:
        context = self.request.get("requestContext") or {}
        return int(context.get("invocation") or 1)

    @property
    def status(self) -> Any:
        return self.response.get("hookStatus") if isinstance(self.response, dict) else None


@dataclass
class Answered:
    """One request carried to its end: every attempt, and why the run stopped calling."""

    target: Target
    attempts: list[Attempt] = field(default_factory=list)

    @property
    def final(self) -> Attempt | None:
        return self.attempts[-1] if self.attempts else None


@dataclass(frozen=True)
class Rule:
    #: The test's name (`cfngen test -k`), and the code of its findings.
    name: str
    code: str
    #: What the test checks, for the docs and the failure message.
    says: str
    check: Callable[[Answered], tuple[list[str], list[str]]]
    #: What to do, said once under the findings.
    hint: str = ""


def _usable(attempt: Attempt) -> dict[str, Any] | None:
    """The answer, when the function answered at all (the other rules say why it did not)."""
    if attempt.timed_out or attempt.error is not None:
        return None
    return attempt.response if isinstance(attempt.response, dict) else None


def _status(attempt: Attempt) -> str | None:
    if attempt.timed_out:
        return None  # the 30-second rule's finding
    if attempt.error is not None:
        return (
            f"invocation {attempt.number} raised {attempt.error}: Lambda answers an error, "
            "not a hookStatus"
        )
    if not isinstance(attempt.response, dict):
        return (
            f"invocation {attempt.number} returned {type(attempt.response).__name__}, not a "
            "JSON object with hookStatus"
        )
    status = attempt.response.get("hookStatus")
    if status not in STATUSES:
        return (
            f"invocation {attempt.number} answered hookStatus {status!r}; it must be SUCCESS, "
            "FAILED or IN_PROGRESS"
        )
    return None


def _token(attempt: Attempt) -> str | None:
    response = _usable(attempt)
    if response is None:
        return None
    asked = attempt.request.get("clientRequestToken")
    given = response.get("clientRequestToken")
    if given is None:
        return (
            f"invocation {attempt.number} answered no clientRequestToken (the request's: {asked!r})"
        )
    if given != asked:
        return (
            f"invocation {attempt.number} answered clientRequestToken {given!r}; the "
            f"request's is {asked!r}"
        )
    return None


def _error_code_missing(attempt: Attempt) -> str | None:
    response = _usable(attempt)
    if response is None or response.get("hookStatus") != "FAILED":
        return None
    if response.get("errorCode") in (None, ""):
        return f"invocation {attempt.number} answered FAILED without an errorCode"
    return None


def _error_code_unknown(attempt: Attempt) -> str | None:
    response = _usable(attempt)
    code = None if response is None else response.get("errorCode")
    if code in (None, "") or code in ERROR_CODES:
        return None
    return f"invocation {attempt.number} answered errorCode {code!r}"


def _in_time(attempt: Attempt) -> str | None:
    if attempt.refused is not None:
        return f"invocation {attempt.number} was not made: {attempt.refused}"
    if attempt.timed_out:
        return f"invocation {attempt.number} was still running at its {attempt.seconds:g} s limit"
    if attempt.seconds > WAIT_SECONDS:
        return f"invocation {attempt.number} took {attempt.seconds:.1f} s"
    return None


def _final(answered: Answered) -> tuple[list[str], list[str]]:
    final = answered.final
    if final is None or final.status != "IN_PROGRESS":
        return [], []
    count = len(answered.attempts)
    if count >= MAX_INVOCATIONS:
        return [f"still IN_PROGRESS after invocation {count}"], []
    return [], []


def _message(answered: Answered) -> tuple[list[str], list[str]]:
    limit = answered.target.message_limit
    warnings: list[str] = []
    for attempt in answered.attempts:
        response = _usable(attempt)
        message = None if response is None else response.get("message")
        if message is None:
            continue
        if not isinstance(message, str):
            warnings.append(
                f"invocation {attempt.number} answered a message that is a "
                f"{type(message).__name__}, not a string"
            )
        elif len(message) > limit:
            where = "Cloud Control API" if limit < 4096 else "CloudFormation"
            warnings.append(
                f"invocation {attempt.number} answered a message of {len(message)} characters: "
                f"{where} cuts it at {limit:,}"
            )
    return [], warnings


def _callback(attempt: Attempt) -> str | None:
    response = _usable(attempt)
    if response is None:
        return None
    delay = response.get("callbackDelaySeconds")
    if delay is not None and (isinstance(delay, bool) or not isinstance(delay, int) or delay < 0):
        return (
            f"invocation {attempt.number} answered callbackDelaySeconds {delay!r}; it is a "
            "whole number of seconds, 0 or more"
        )
    context = response.get("callbackContext")
    if context is not None and not isinstance(context, dict):
        return (
            f"invocation {attempt.number} answered a callbackContext that is a "
            f"{type(context).__name__}; it is a JSON object, given back on the next invocation"
        )
    return None


def _annotations(answered: Answered) -> tuple[list[str], list[str]]:
    warnings: list[str] = []
    for attempt in answered.attempts:
        response = _usable(attempt)
        found = None if response is None else response.get("annotations")
        if found is None:
            continue
        if not isinstance(found, list):
            warnings.append(f"invocation {attempt.number}: annotations is not a list")
            continue
        for index, item in enumerate(found):
            warnings.extend(
                f"invocation {attempt.number}: annotations[{index}] {text}"
                for text in _annotation(item)
            )
    return [], warnings


def _annotation(item: Any) -> list[str]:
    if not isinstance(item, Mapping):
        return ["is not an object"]
    found: list[str] = []
    if not isinstance(item.get("annotationName"), str) or not item.get("annotationName"):
        found.append("has no annotationName")
    if item.get("status") is not None and item.get("status") not in ANNOTATION_STATUSES:
        found.append(f"has status {item.get('status')!r}, not PASSED, FAILED or SKIPPED")
    level = item.get("severityLevel")
    if level is not None and level not in SEVERITIES:
        found.append(f"has severityLevel {level!r}, not one of {', '.join(sorted(SEVERITIES))}")
    link = item.get("remediationLink")
    if link is not None and not (
        isinstance(link, str) and link.startswith(("http://", "https://"))
    ):
        found.append(f"has remediationLink {link!r}, not an HTTP URL")
    return found


def _per_attempt(problem: Callable[[Attempt], str | None]) -> Callable[[Answered], Any]:
    def check(answered: Answered) -> tuple[list[str], list[str]]:
        return [t for a in answered.attempts if (t := problem(a)) is not None], []

    return check


RULES: tuple[Rule, ...] = (
    Rule(
        "lh_hook_status",
        "cfngen/lambda-hook-status",
        "every answer is a JSON object whose hookStatus is SUCCESS, FAILED or IN_PROGRESS",
        _per_attempt(_status),
        "return a JSON object; catch what the check raises and answer FAILED with InternalFailure",
    ),
    Rule(
        "lh_client_request_token",
        "cfngen/lambda-hook-client-request-token",
        "every answer echoes the request's clientRequestToken",
        _per_attempt(_token),
        "copy event['clientRequestToken'] into every answer: CloudFormation requires it",
    ),
    Rule(
        "lh_failed_has_error_code",
        "cfngen/lambda-hook-error-code-missing",
        "a FAILED answer carries an errorCode",
        _per_attempt(_error_code_missing),
        "a failing hook says NonCompliant (the target breaks the rule) or InternalFailure "
        "(the hook could not evaluate it)",
    ),
    Rule(
        "lh_error_code_known",
        "cfngen/lambda-hook-error-code-unknown",
        "an errorCode is NonCompliant or InternalFailure",
        _per_attempt(_error_code_unknown),
        "a Lambda hook's error codes are NonCompliant and InternalFailure",
    ),
    Rule(
        "lh_answers_within_30_seconds",
        "cfngen/lambda-hook-timeout",
        "every invocation answers within CloudFormation's 30-second wait",
        _per_attempt(_in_time),
        f"CloudFormation waits {WAIT_SECONDS:g} s for the function, then fails the hook: "
        "answer IN_PROGRESS with a callbackContext and go on in the next invocation",
    ),
    Rule(
        "lh_final_by_third_invocation",
        "cfngen/lambda-hook-in-progress",
        "SUCCESS or FAILED by the third invocation",
        _final,
        f"CloudFormation invokes the function up to {MAX_INVOCATIONS} times in all: the "
        "third answer must be SUCCESS or FAILED, or the hook fails",
    ),
    Rule(
        "lh_callback",
        "cfngen/lambda-hook-callback",
        "callbackDelaySeconds is a whole number of seconds and callbackContext an object",
        _per_attempt(_callback),
    ),
    Rule(
        "lh_message_length",
        "cfngen/lambda-hook-message-cut",
        "the message fits what CloudFormation keeps (4,096 characters; 1,024 for Cloud "
        "Control API); longer is a warning that it will be cut",
        _message,
    ),
    Rule(
        "lh_annotations",
        "cfngen/lambda-hook-annotations",
        "annotations have the guide's shape (warnings)",
        _annotations,
    ),
)
RULE_NAMES = tuple(rule.name for rule in RULES)
