"""`--setup TEMPLATE` and the target's exports: what `{{Name}}` placeholders in inputs resolve to
when the handlers run against an endpoint (`--endpoint-url`, `--moto-server`).

`cfn test` resolves them with ListExports in the account; teams keep a setup stack whose
exports the inputs name. Here, in order of precedence: the values the user gives (`--export`,
`--exports`), then the exports of the stack `--setup` deploys before the tests (and deletes
after them), then ListExports of the target. Offline nothing is looked up (stand-ins made from
the schema, _exports.py).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from cfngen._contract._settings import Settings
from cfngen._errors import CfngenError

#: Stacks cfngen deploys are named so, and so are found and told apart from the user's.
STACK_PREFIX = "cfngen-setup-"


def client(service: str, endpoint_url: str | None, region: str, credentials: Any) -> Any:
    """A client of the target, made as the runner's own (not the handlers')."""
    import boto3
    import botocore.config

    chosen = {key: value for key, value in credentials.items() if key != "region_name"}
    session = boto3.session.Session(**chosen)
    return session.client(
        service,
        region_name=credentials.get("region_name") or region,
        endpoint_url=endpoint_url,
        config=botocore.config.Config(retries={"mode": "standard"}),
    )


def listed_exports(cloudformation: Any) -> dict[str, str]:
    """Every export of the target's account and region (ListExports, every page)."""
    import botocore.exceptions

    found: dict[str, str] = {}
    try:
        for page in cloudformation.get_paginator("list_exports").paginate():
            for export in page.get("Exports", []):
                found[str(export["Name"])] = str(export["Value"])
    except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError):
        # Not every target answers it (a proxy, credentials without cloudformation:ListExports):
        # placeholders it would have filled get stand-ins, each named in a note.
        return {}
    return found


@contextlib.contextmanager
def setup_stack(cloudformation: Any, template: Path, *, delay: int) -> Iterator[dict[str, str]]:
    """The stack of `template` deployed for the block; its exports (name -> value). Deleted
    afterwards, whatever happened in the block."""
    import botocore.exceptions

    try:
        body = template.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CfngenError(
            f"--setup {template}: cannot read it ({exc})", "name a CloudFormation template"
        ) from None
    name = f"{STACK_PREFIX}{uuid.uuid4().hex[:12]}"
    try:
        stack_id = cloudformation.create_stack(
            StackName=name,
            TemplateBody=body,
            Capabilities=["CAPABILITY_IAM", "CAPABILITY_NAMED_IAM", "CAPABILITY_AUTO_EXPAND"],
        )["StackId"]
    except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError) as exc:
        raise CfngenError(
            f"--setup {template}: the stack was refused: {exc}", "fix the template"
        ) from None
    try:
        _wait(cloudformation, "stack_create_complete", stack_id, delay, template)
        yield _exports_of(cloudformation, stack_id)
    finally:
        with contextlib.suppress(botocore.exceptions.BotoCoreError):
            cloudformation.delete_stack(StackName=stack_id)
            _wait(cloudformation, "stack_delete_complete", stack_id, delay, template)


def _wait(cloudformation: Any, waiter: str, stack_id: str, delay: int, template: Path) -> None:
    import botocore.exceptions

    try:
        cloudformation.get_waiter(waiter).wait(
            StackName=stack_id, WaiterConfig={"Delay": delay, "MaxAttempts": 3600 // delay}
        )
    except botocore.exceptions.WaiterError as exc:
        raise CfngenError(
            f"--setup {template}: stack {stack_id} did not reach "
            f"{waiter.removeprefix('stack_').upper()}: {_reason(cloudformation, stack_id) or exc}",
            "fix the template; the stack is deleted",
        ) from None


def _reason(cloudformation: Any, stack_id: str) -> str | None:
    """The first failure the stack's events give, if they say one."""
    import botocore.exceptions

    try:
        events = cloudformation.describe_stack_events(StackName=stack_id)["StackEvents"]
    except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError):
        return None
    for event in reversed(events):
        if str(event.get("ResourceStatus", "")).endswith("FAILED"):
            return f"{event.get('LogicalResourceId')}: {event.get('ResourceStatusReason')}"
    return None


def _exports_of(cloudformation: Any, stack_id: str) -> dict[str, str]:
    stacks = cloudformation.describe_stacks(StackName=stack_id)["Stacks"]
    names = {
        str(output["ExportName"]): str(output["OutputValue"])
        for stack in stacks
        for output in stack.get("Outputs", [])
        if output.get("ExportName")
    }
    return names


def merged(
    given: Mapping[str, Any], setup: Mapping[str, str], listed: Mapping[str, str]
) -> dict[str, Any]:
    """Flags win, then the setup stack's exports, then the target's ListExports."""
    return {**listed, **setup, **given}


@contextlib.contextmanager
def prepared(
    settings: Settings,
    *,
    setup: Path | None = None,
    given: Mapping[str, Any] | None = None,
    takes_exports: bool = False,
) -> Iterator[Mapping[str, Any] | None]:
    """The target made ready for a run, for the block: the moto server started
    (`settings.endpoint_url` set to it), the setup stack deployed; the exports the inputs'
    placeholders resolve to (`given` unchanged offline, or when the kind takes none)."""
    from cfngen._contract._sandbox import DEFAULT_REGION
    from cfngen._contract._target import is_loopback_url, moto_server

    with contextlib.ExitStack() as stack:
        started = settings.moto_server and settings.endpoint_url is None
        if started:
            settings.endpoint_url = stack.enter_context(moto_server())
        url = settings.endpoint_url
        real = settings.profile is not None or settings.role_arn is not None
        if started and setup is None:
            # A server started just now holds no exports: asking it costs its CloudFormation
            # backend's import (about 2.7 s), for nothing.
            yield given
            return
        if url is None and not real:
            if setup is not None:
                raise CfngenError(
                    "--setup deploys a stack to the target: it needs --endpoint-url or "
                    "--moto-server",
                    "offline, give the exports' values with --export or --exports",
                )
            yield given
            return
        if setup is None and not takes_exports:
            yield given
            return
        credentials = _credentials(settings, url) if real else _fake()
        cloudformation = client(
            "cloudformation", url, settings.region or DEFAULT_REGION, credentials
        )
        outputs: dict[str, str] = {}
        if setup is not None:
            delay = 1 if url is not None and is_loopback_url(url) else 5
            outputs = stack.enter_context(setup_stack(cloudformation, setup, delay=delay))
        if not takes_exports:
            yield given
            return
        yield merged(given or {}, outputs, listed_exports(cloudformation))


def _fake() -> dict[str, str]:
    from cfngen._contract._sandbox import FAKE_CREDENTIALS as fake

    return {
        "aws_access_key_id": fake.access_key_id,
        "aws_secret_access_key": fake.secret_access_key,
        "aws_session_token": fake.session_token,
    }


def _credentials(settings: Settings, url: str | None) -> dict[str, str | None]:
    """The profile's credentials, or the role's assumed with them (as the sandbox does)."""
    import boto3
    import botocore.exceptions

    from cfngen._contract._credentials import assumed, secret

    try:
        session = boto3.session.Session(profile_name=settings.profile)
        if settings.role_arn is not None:
            sts = session.client("sts", region_name=settings.region, endpoint_url=url)
            (key, secret_key, token), _account = assumed(sts, settings.role_arn)
            return {
                "aws_access_key_id": key,
                "aws_secret_access_key": secret_key,
                "aws_session_token": token,
                "region_name": settings.region,
            }
        frozen = session.get_credentials()
    except botocore.exceptions.ProfileNotFound:
        raise CfngenError(
            f"AWS profile {settings.profile!r} not found",
            "check ~/.aws/config, or leave out --profile to run offline against moto",
        ) from None
    except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError) as exc:
        from cfngen import _redact

        raise CfngenError(
            f"cannot use the credentials: {_redact.scrub(str(exc))}",
            "refresh them, or leave out --profile/--role-arn to run offline",
        ) from None
    if frozen is None:
        raise CfngenError(f"AWS profile {settings.profile!r} has no credentials")
    creds = frozen.get_frozen_credentials()
    secret(creds.secret_key, creds.token)
    return {"profile_name": settings.profile, "region_name": settings.region}
