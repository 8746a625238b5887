"""Example::S3::Versioning: S3 buckets must keep versions (VersioningConfiguration Status Enabled).

CloudFormation invokes handler() before it creates or updates a bucket (RESOURCE, and through
Cloud Control API), and before a stack operation or a change set (STACK, CHANGE_SET: their
templates are behind the request's presigned `payload` URL). The answer echoes the request's
clientRequestToken; a failure says NonCompliant (the bucket breaks the rule) or InternalFailure
(the hook could not check). CloudFormation waits 30 s and invokes the function up to 3 times.
"""

import json
import urllib.request

BUCKET = "AWS::S3::Bucket"


def _versioned(properties: dict) -> bool:
    versioning = properties.get("VersioningConfiguration") or {}
    return versioning.get("Status") == "Enabled"


def _answer(event: dict, failures: list) -> dict:
    answer = {"clientRequestToken": event.get("clientRequestToken")}
    if failures:
        names = ", ".join(sorted(failures))
        answer.update(
            hookStatus="FAILED",
            errorCode="NonCompliant",
            message=f"versioning must be Enabled on {names}"[:4096],
        )
    else:
        answer.update(hookStatus="SUCCESS", message="every bucket keeps versions")
    return answer


def _payload(url: str) -> dict:
    # A presigned S3 URL: no credentials needed; the standard library is enough.
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310
        return json.loads(response.read().decode("utf-8"))


def _template_buckets(text: str) -> dict:
    """The buckets of a JSON template (a YAML one is checked resource by resource instead)."""
    try:
        template = json.loads(text) if text else {}
    except ValueError:
        return {}
    resources = template.get("Resources") or {}
    return {
        name: body.get("Properties") or {}
        for name, body in resources.items()
        if isinstance(body, dict) and body.get("Type") == BUCKET
    }


def _changed_buckets(payload: dict) -> dict:
    """The buckets a change set creates or updates, with their properties after it."""
    found = {}
    for change in payload.get("changedResources") or []:
        if change.get("resourceType") == BUCKET and change.get("afterContext"):
            after = json.loads(change["afterContext"])
            found[change["logicalResourceId"]] = after.get("Properties", {})
    return found


def _buckets(event: dict) -> dict:
    """Logical id -> properties of every bucket the request is about."""
    data = event.get("requestData") or {}
    target = data.get("targetType")
    if target == "STACK":
        return _template_buckets(_payload(data["payload"]).get("template") or "")
    if target == "CHANGE_SET":
        return _changed_buckets(_payload(data["payload"]))
    point = event.get("actionInvocationPoint") or ""
    if data.get("targetName") != BUCKET or point.startswith("DELETE"):
        return {}
    model = data.get("targetModel") or {}
    return {data.get("targetLogicalId"): model.get("resourceProperties") or {}}


def handler(event: dict, context: object) -> dict:
    try:
        buckets = _buckets(event)
    except Exception as error:  # the hook could not evaluate: say so, never crash
        return {
            "hookStatus": "FAILED",
            "errorCode": "InternalFailure",
            "message": f"could not read the request: {error}"[:1024],
            "clientRequestToken": event.get("clientRequestToken"),
        }
    unversioned = [name for name, props in buckets.items() if not _versioned(props)]
    return _answer(event, unversioned)
