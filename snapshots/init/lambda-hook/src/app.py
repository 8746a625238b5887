"""MyCompany::Lambda::Hook: a CloudFormation Lambda hook.

CloudFormation invokes handler() before it creates or updates an S3 bucket (template.yaml's
TargetFilters) with the bucket's proposed properties. Answer within 30 s with the request's
clientRequestToken: SUCCESS, or FAILED with errorCode NonCompliant (the resource breaks your
rule) or InternalFailure (the hook could not check it). A check that takes longer answers
IN_PROGRESS with a callbackContext; CloudFormation invokes the function up to 3 times in all.
"""


def handler(event: dict, context: object) -> dict:
    data = event.get("requestData") or {}
    properties = (data.get("targetModel") or {}).get("resourceProperties") or {}
    answer = {"clientRequestToken": event.get("clientRequestToken")}
    # Your rule: here, every bucket says who owns it.
    tags = {tag.get("Key"): tag.get("Value") for tag in properties.get("Tags") or []}
    if tags.get("owner"):
        answer.update(hookStatus="SUCCESS", message="the bucket has an owner tag")
    else:
        answer.update(
            hookStatus="FAILED",
            errorCode="NonCompliant",
            message=f"{data.get('targetLogicalId')}: add a Tag with Key owner",
        )
    return answer
