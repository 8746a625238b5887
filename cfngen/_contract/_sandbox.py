"""The process state handlers run in: credentials, region, moto, the network guard, output
capture, sys.path.

Everything here is process-wide (environment variables, sys.path, the logging tree), so it is
set up once for a run and put back exactly as it was afterwards.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen import _redact
from cfngen._contract._botocore_caches import (
    one_ssl_context,
    shared_botocore_loader,
    shared_client_methods,
    shared_event_aliases,
    shared_handler_checks,
)
from cfngen._contract._calls import botocore_recorded
from cfngen._contract._capture import Capture
from cfngen._contract._environ import patched_environ
from cfngen._contract._network import NetworkPolicy, guarded, network_policy
from cfngen._contract._references import Seeds
from cfngen._errors import CfngenError

if TYPE_CHECKING:
    from cfngen._contract._target import Target

#: moto's default account: ARNs the handlers build and the ones moto returns then agree.
FAKE_ACCOUNT_ID = "123456789012"
DEFAULT_REGION = "us-east-1"


@dataclass(frozen=True)
class Credentials:
    access_key_id: str
    secret_access_key: str
    session_token: str

    def as_request(self) -> dict[str, str]:
        """As CloudFormation puts them in requestData.callerCredentials."""
        return {
            "accessKeyId": self.access_key_id,
            "secretAccessKey": self.secret_access_key,
            "sessionToken": self.session_token,
        }


FAKE_CREDENTIALS = Credentials(
    "ASIACFNGENTESTKEY000", "cfngen-fake-secret-access-key", "cfngen-fake-session-token"
)

#: Removed while handlers run so that nothing reads the machine's real AWS configuration.
_AWS_ENV = (
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "AWS_ROLE_ARN",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_ENDPOINT_URL",
    "AWS_EC2_METADATA_DISABLED",
)


class Sandbox:
    """A context manager: while it is open, handlers can be imported and called.

    offline=True (the default): fake credentials, every AWS call served by moto's mock_aws,
    the machine's AWS config files hidden. With an endpoint (`--endpoint-url`, or the moto
    server of `--moto-server`, started by _setup.prepared): the same fake credentials, every
    client pointed at it. With a profile: that profile's real credentials and real AWS;
    nothing is mocked. Either way, what else may leave the machine is the network
    policy's to say (_network.py): nothing but loopback unless `allow_network`.
    """

    def __init__(
        self,
        src_dir: Path,
        *,
        region: str | None = None,
        profile: str | None = None,
        role_arn: str | None = None,
        session_module: str | None = None,
        allow_network: bool = False,
        seeds: Seeds | None = None,
        endpoint_url: str | None = None,
        moto_server: bool = False,
        reset: bool = True,
    ) -> None:
        self.src_dir = src_dir
        self.seeds = seeds or Seeds()
        self.session_module = session_module
        self.profile = profile
        #: `--role-arn`: the handlers run with this role's credentials, assumed with the
        #: profile's (or the default chain's).
        self.role_arn = role_arn
        #: The endpoint the profile's configuration names (its `endpoint_url`), if any.
        self._profile_endpoint: str | None = None
        self.region = region or DEFAULT_REGION
        #: Where every AWS client is pointed (`--endpoint-url`, or the moto server's URL);
        #: None: in-process moto, or AWS with a profile.
        self.endpoint_url = endpoint_url
        #: The endpoint is a moto server cfngen started (_target.py): simulated time, and,
        #: with `reset`, emptied between tests (not while a setup stack must outlive them).
        self.moto_server = moto_server
        self._reset = reset
        #: moto in this process (`mock_aws`): neither a profile nor an endpoint.
        self.offline = (
            profile is None and role_arn is None and endpoint_url is None and not moto_server
        )
        #: callbackDelaySeconds simulated, never slept: moto in this process or the moto
        #: server cfngen started (_target.py); real time against anything else.
        self.simulated_time = self.offline or moto_server
        self.network: NetworkPolicy = network_policy(
            allow_network=allow_network,
            profile=profile,
            role_arn=role_arn,
            endpoint_url=endpoint_url,
        )
        self.credentials = FAKE_CREDENTIALS
        self.account_id = FAKE_ACCOUNT_ID
        self._stack = contextlib.ExitStack()
        self._mock: Any = None

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> Sandbox:
        try:
            self._enter()
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def _enter(self) -> None:
        stack = self._stack
        # Masked in every output from now on (cfngen/_redact.py), whichever kind runs.
        self.seeds.register_secrets()
        # First: nothing below, the profile's own calls included, runs unguarded.
        stack.enter_context(guarded(self.network))
        if self.profile is not None or self.role_arn is not None:
            self._use_profile(self.profile)
        stack.enter_context(patched_environ(self._environment()))
        stack.enter_context(_on_sys_path(self.src_dir))
        stack.enter_context(shared_botocore_loader())
        stack.enter_context(shared_event_aliases())
        stack.enter_context(shared_handler_checks())
        stack.enter_context(shared_client_methods())
        # The calls handlers make, for the permission contract (_calls.py).
        stack.enter_context(botocore_recorded())
        if self.profile is None and self.session_module is not None:
            # The fake credentials never change, in-process moto or an endpoint alike.
            stack.enter_context(_one_session_per_credentials(self.session_module))
        if self.endpoint_url is not None:
            from cfngen._contract._target import caller_account

            # Inputs and stand-ins that hold ARNs follow the target's account; a moto server
            # cfngen started is moto's (asking it costs its STS backend's import).
            if not self.moto_server:
                self.account_id = caller_account(self.endpoint_url, self.region, self.account_id)
            self.seeds.plant(self.region)
            if not self.moto_server:  # a moto server cfngen started is discarded
                stack.callback(self.seeds.unplant, self.region)
        if self.offline:
            # Whatever the order of sessions and this import, the guard routes every botocore
            # request to the mock (_network.py).
            from cfngen._contract._moto_imports import install

            install()  # before any backend loads: EC2's models only when EC2 is called
            from moto import mock_aws

            self._mock = mock_aws()
            self._mock.start()
            stack.callback(self._stop_mock)
            stack.enter_context(one_ssl_context())
            self.seeds.plant(self.region)
        stack.enter_context(Capture())

    def _stop_mock(self) -> None:
        if self._mock is not None:
            self._mock.stop()
            self._mock = None

    def fresh_aws(self) -> None:
        """Forget every resource moto holds, so one test never sees another's leftovers.

        What `mock_aws`'s stop and start do to its data and to boto3's default session, without
        unpatching and patching again: its start registers some 20,000 URL patterns (10 ms).
        """
        if self.moto_server and self.endpoint_url is not None:
            if not self._reset:
                return
            from cfngen._contract._target import reset_moto_server

            reset_moto_server(self.endpoint_url)
            self.seeds.plant(self.region)
            return
        if self._mock is None:
            return
        from moto.core.base_backend import BackendDict
        from moto.core.model_instances import reset_model_data

        BackendDict.reset()
        reset_model_data()
        boto3 = sys.modules.get("boto3")
        if boto3 is not None:
            vars(boto3)["DEFAULT_SESSION"] = None
        self.seeds.plant(self.region)

    @property
    def target(self) -> Target:
        """Where the handlers' AWS calls go (_target.py)."""
        from cfngen._contract._target import Target

        if self.moto_server:
            kind = "moto-server"
        elif self.endpoint_url is not None:
            kind = "endpoint"
        else:
            kind = "moto" if self.offline else "aws"
        return Target(kind, self.endpoint_url, self.region, self.account_id, self.simulated_time)

    # ------------------------------------------------------------------ configuration

    def _environment(self) -> dict[str, str | None]:
        env: dict[str, str | None] = dict.fromkeys(_AWS_ENV)
        env["AWS_DEFAULT_REGION"] = self.region
        env["AWS_REGION"] = self.region
        env["AWS_ENDPOINT_URL"] = self.endpoint_url or self._profile_endpoint
        if self.profile is None or self.role_arn is not None:
            creds = self.credentials
            env["AWS_ACCESS_KEY_ID"] = creds.access_key_id
            env["AWS_SECRET_ACCESS_KEY"] = creds.secret_access_key
            env["AWS_SESSION_TOKEN"] = creds.session_token
            # Hide ~/.aws: a credential_process or SSO profile there must never run.
            env["AWS_CONFIG_FILE"] = os.devnull
            env["AWS_SHARED_CREDENTIALS_FILE"] = os.devnull
            # No credentials or region from the instance metadata service (a network call).
            env["AWS_EC2_METADATA_DISABLED"] = "true"
        else:
            env["AWS_PROFILE"] = self.profile
        return env

    def _whose(self, profile: str | None) -> str:
        who = f"AWS profile {profile!r}" if profile else "the default AWS credentials"
        return who if self.role_arn is None else f"role {self.role_arn} assumed with {who}"

    def _use_profile(self, profile: str | None) -> None:
        """The profile's credentials (None: the default chain's), or, with a role, the role's
        assumed with them; the account they are in."""
        import boto3
        import botocore.exceptions

        from cfngen._contract._credentials import assumed, secret

        try:
            session = boto3.session.Session(profile_name=profile)
            sts = session.client("sts", region_name=self.region, endpoint_url=self.endpoint_url)
            if self.role_arn is not None:
                keys, account_id = assumed(sts, self.role_arn)
                self.credentials = Credentials(*keys)
                self.account_id = account_id or self.account_id
                self._profile_endpoint = session._session.get_scoped_config().get("endpoint_url")
                return
            frozen = session.get_credentials()
            creds = frozen.get_frozen_credentials() if frozen is not None else None
            account = sts.get_caller_identity()
        except botocore.exceptions.ProfileNotFound:
            raise CfngenError(
                f"AWS profile {profile!r} not found",
                "check ~/.aws/config, or leave out --profile to run offline against moto",
            ) from None
        except botocore.exceptions.BotoCoreError as exc:
            raise CfngenError(
                f"cannot use {self._whose(profile)}: {_redact.scrub(str(exc))}",
                "refresh the credentials, or leave out --profile/--role-arn to run offline",
            ) from None
        except botocore.exceptions.ClientError as exc:
            raise CfngenError(
                f"{self._whose(profile)} refused: {_redact.scrub(str(exc))}",
                "refresh the credentials (a role must trust them), or leave out "
                "--profile/--role-arn to run offline",
            ) from None
        if creds is None:
            raise CfngenError(f"AWS profile {profile!r} has no credentials")
        secret(creds.secret_key, creds.token)
        self.credentials = Credentials(creds.access_key, creds.secret_key, creds.token or "")
        self.account_id = str(account["Account"])
        if session.region_name and self.region == DEFAULT_REGION:
            self.region = session.region_name


@contextlib.contextmanager
def _on_sys_path(directory: Path) -> Any:
    entry = str(directory)
    sys.path.insert(0, entry)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(entry)


@contextlib.contextmanager
def _one_session_per_credentials(module_name: str) -> Any:
    """Give the runtime library's entrypoint one boto3 session per set of credentials.

    `module_name` is the library module whose `_get_boto_session` the entrypoint calls
    (cloudformation_cli_python_lib.resource for Resource, .hook for Hook).

    It builds a new session for every call, ~25 ms each (botocore registers and inspects
    ~130 event handlers per session): a third of a contract run. Offline, the credentials never
    change, and a handler only ever makes clients from the session, so one per credentials is
    indistinguishable to it. With --profile (real AWS) the library's behaviour is kept.
    """
    import importlib

    namespace = vars(importlib.import_module(module_name))
    original = namespace["_get_boto_session"]
    sessions: dict[tuple[Any, ...], Any] = {}

    def get_session(credentials: Any, region: str | None = None) -> Any:
        if credentials is None:
            return None
        key = (
            credentials.accessKeyId,
            credentials.secretAccessKey,
            credentials.sessionToken,
            region,
        )
        if key not in sessions:
            sessions[key] = original(credentials, region)
        return sessions[key]

    namespace["_get_boto_session"] = get_session
    try:
        # Made here, before the handlers run in a worker process, so that a new worker (after
        # a handler ended the last one) inherits it instead of making its own.
        from cloudformation_cli_python_lib.utils import Credentials as LibCredentials

        fake = FAKE_CREDENTIALS
        get_session(LibCredentials(fake.access_key_id, fake.secret_access_key, fake.session_token))
        yield
    finally:
        namespace["_get_boto_session"] = original
