"""The stacks `submit` deploys, as the official tool does: the managed upload infrastructure
(artifact bucket, log-delivery role) and the handlers' execution role.

Same stack names and the same infrastructure template as `cfn submit`
(cloudformation-cli 0.2.41, rpdk/core/upload.py and data/managed-upload-infrastructure.yaml,
Apache-2.0, copied unchanged so that either tool finds the other's stack up to date).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.resources import files
from typing import Any

from cfngen._errors import CfngenError, ExitCode
from cfngen._package._aws import Clock, aws_call, aws_error, duration

INFRA_STACK = "CloudFormationManagedUploadInfrastructure"
BUCKET_OUTPUT = "CloudFormationManagedUploadBucketName"
LOG_ROLE_OUTPUT = "LogAndMetricsDeliveryRoleArn"
ROLE_OUTPUT = "ExecutionRoleArn"
#: The official tool waits 5 s x 200 for a stack.
STACK_POLL = 5.0

Say = Callable[[str], None]


def infrastructure_template() -> str:
    return files("cfngen._package").joinpath("managed-upload-infrastructure.yaml").read_text()


def role_stack_name(hyphenated: str) -> str:
    return f"{hyphenated}-role-stack"


def deploy(
    cfn: Any, name: str, template: str, *, say: Say, clock: Clock, timeout: float
) -> dict[str, str]:
    """Create the stack, or update it when it exists; wait; return its outputs."""
    import botocore.exceptions

    args = {"StackName": name, "TemplateBody": template, "Capabilities": ["CAPABILITY_IAM"]}
    failures = (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError)
    try:
        cfn.create_stack(**args, EnableTerminationProtection=True)
    except cfn.exceptions.AlreadyExistsException:
        try:
            cfn.update_stack(**args)
        except botocore.exceptions.ClientError as exc:
            message = str(exc.response.get("Error", {}).get("Message", ""))
            if "No updates are to be performed" not in message:
                raise _update_refused(exc, name) from None
            say(f"stack {name} is up to date")
        except botocore.exceptions.BotoCoreError as exc:
            raise aws_error(exc, f"updating stack {name}") from None
        else:
            say(f"updating stack {name}")
            _wait(cfn, name, "UPDATE", say=say, clock=clock, timeout=timeout)
    except failures as exc:
        raise aws_error(exc, f"creating stack {name}") from None
    else:
        say(f"creating stack {name}")
        _wait(cfn, name, "CREATE", say=say, clock=clock, timeout=timeout)
    stack = _describe(cfn, name)
    return {o["OutputKey"]: o["OutputValue"] for o in stack.get("Outputs", [])}


def output(outputs: dict[str, str], key: str, stack: str) -> str:
    try:
        return outputs[key]
    except KeyError:
        raise CfngenError(
            f"stack {stack} has no output {key}",
            "the stack was changed by hand; delete it and submit again",
            exit_code=ExitCode.FAILED,
        ) from None


def _wait(cfn: Any, name: str, action: str, *, say: Say, clock: Clock, timeout: float) -> None:
    start = clock.now()
    last = ""
    while True:
        stack = _describe(cfn, name)
        status = str(stack.get("StackStatus", ""))
        if status == f"{action}_COMPLETE":
            say(f"stack {name}: {status} after {duration(clock.now() - start)}")
            return
        if not status.endswith("_IN_PROGRESS"):  # a rollback is waited for, then reported
            raise CfngenError(
                f"stack {name} ended in {status}: {_failure(cfn, name, stack)}",
                "see its events in the CloudFormation console; a stack in ROLLBACK_COMPLETE "
                "must be deleted before submitting again",
                exit_code=ExitCode.FAILED,
            )
        if status != last:
            say(f"stack {name}: {status}")
            last = status
        if clock.now() - start >= timeout:
            raise CfngenError(
                f"stack {name} is still {status} after {duration(timeout)}",
                "look at it in the CloudFormation console, or wait longer with --timeout",
                exit_code=ExitCode.FAILED,
            )
        clock.sleep(min(STACK_POLL, max(timeout - (clock.now() - start), 0.0)))


def _describe(cfn: Any, name: str) -> dict[str, Any]:
    stacks = aws_call(f"reading stack {name}", cfn.describe_stacks, StackName=name)["Stacks"]
    return dict(stacks[0])


def _failure(cfn: Any, name: str, stack: dict[str, Any]) -> str:
    """The first resource that failed, else the stack's own reason."""
    events = aws_call(f"reading stack {name}'s events", cfn.describe_stack_events, StackName=name)
    failed = [
        e
        for e in events.get("StackEvents", [])
        if str(e.get("ResourceStatus", "")).endswith("_FAILED") and e.get("ResourceStatusReason")
    ]
    if failed:
        first = failed[-1]  # events come newest first
        return f"{first.get('LogicalResourceId')}: {first['ResourceStatusReason']}"
    return str(stack.get("StackStatusReason") or "no reason given")


def _update_refused(exc: Any, name: str) -> CfngenError:
    message = str(exc.response.get("Error", {}).get("Message", ""))
    if "ROLLBACK_COMPLETE" in message:
        return CfngenError(
            f"stack {name} is in ROLLBACK_COMPLETE: it was never created, and cannot be updated",
            f"delete it (`aws cloudformation delete-stack --stack-name {name}`), then submit again",
        )
    return aws_error(exc, f"updating stack {name}")
