"""Dynamic references (`{{resolve:ssm:...}}`, `{{resolve:ssm-secure:...}}`,
`{{resolve:secretsmanager:...}}`) in what handlers are given, resolved offline.

CloudFormation resolves them in the registry; offline there is no account to resolve them in.
The values come from what the user seeds (`--ssm NAME=VALUE`, `--secret ID=VALUE`, or files of
them): the same values are put into the moto account the handlers call (`Seeds.plant`), so a
handler that reads the parameter or the secret itself finds what the reference resolved to.
A reference nothing was seeded for gets a stand-in value and a warning naming it.

The grammar is the user guide's ("Get values stored in other services using dynamic
references"); no library parses it (botocore and cfn-lint have no parser for it), so it is
written here, small: one pattern per service.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from cfngen import _redact
from cfngen._errors import CfngenError
from cfngen._schema import join_pointer

#: A `{{Name}}` placeholder of a CloudFormation export in inputs and request files (what `cfn
#: test` looks up with ListExports), never a dynamic reference, which also has two braces.
EXPORT = re.compile(r"{{(?!\s*resolve:)([-A-Za-z0-9:\s]+?)}}")
#: Any reference, well-formed or not: what a malformed one is found by.
_ANY = re.compile(r"\{\{resolve:([^{}]*)\}\}")
_OPEN = "{{resolve:"
_SSM = re.compile(r"(?P<name>[A-Za-z0-9_.\-/]+)(?::(?P<version>\d+))?")
_SECRET_ARN = re.compile(r"arn:[^:]+:secretsmanager:[^:]*:[^:]*:secret:[^:]+")
GRAMMAR = (
    "{{resolve:ssm:NAME[:VERSION]}}, {{resolve:ssm-secure:NAME[:VERSION]}} or "
    "{{resolve:secretsmanager:ID[:SecretString[:json-key[:version-stage[:version-id]]]]}}"
)


#: Looks a reference up in a real account (`--profile`): its value, or CfngenError.
Fetch = Callable[["Reference"], str]


@dataclass(frozen=True)
class Reference:
    text: str
    service: str  # ssm, ssm-secure, secretsmanager
    name: str
    json_key: str = ""
    #: An SSM parameter's version; a secret's version stage and version id.
    version: str = ""
    stage: str = ""
    version_id: str = ""

    @property
    def secret(self) -> bool:
        return self.service != "ssm"


def parse(text: str) -> Reference | str:
    """The reference `text` (the whole `{{resolve:...}}`) is, or why it is malformed."""
    body = text[len(_OPEN) : -2]
    service, _, rest = body.partition(":")
    if service in ("ssm", "ssm-secure"):
        found = _SSM.fullmatch(rest)
        if found is None:
            return f"{text}: a parameter name is letters, digits and _.-/, then :VERSION"
        return Reference(text, service, found["name"], version=found["version"] or "")
    if service == "secretsmanager":
        arn = _SECRET_ARN.match(rest)
        secret_id = arn.group() if arn else rest.partition(":")[0]
        tail = rest[len(secret_id) :]
        parts = tail[1:].split(":") if tail else []
        if not secret_id or (not tail.startswith(":") and tail):
            return f"{text}: no secret id"
        if parts and parts[0] != "SecretString":
            return f"{text}: after the secret id comes SecretString, not {parts[0]!r}"
        if len(parts) > 4:
            return f"{text}: too many parts"
        parts += [""] * (4 - len(parts))
        return Reference(text, service, secret_id, parts[1], stage=parts[2], version_id=parts[3])
    return f"{text}: unknown service {service!r}"


def references(value: Any, pointer: str = "") -> Iterator[tuple[str, Reference | str]]:
    """(pointer, reference or why malformed) for every reference in a JSON value's strings."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from references(item, join_pointer(pointer, str(key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from references(item, f"{pointer}/{index}")
    elif isinstance(value, str) and _OPEN in value:
        ends = 0
        for found in _ANY.finditer(value):
            ends += 1
            yield pointer or "/", parse(found.group())
        if value.count(_OPEN) > ends:
            yield pointer or "/", f"{value!r}: a reference without its closing }}}}"


@dataclass
class Seeds:
    """What the user put into the test's AWS: SSM parameters and Secrets Manager secrets."""

    ssm: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)
    #: Parameters a configuration reads with ssm-secure: planted as SecureString.
    secure: set[str] = field(default_factory=set)
    #: The clients that plant them, made once: moto answers them after every reset of its
    #: account, and a client costs ~10 ms, planted before each of a run's tests.
    _clients: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def _client(self, service: str, region: str) -> Any:
        key = f"{service}@{region}"
        if key not in self._clients:
            import boto3

            self._clients[key] = boto3.client(service, region_name=region)
        return self._clients[key]

    def __bool__(self) -> bool:
        return bool(self.ssm or self.secrets)

    def register_secrets(self) -> None:
        for value in self.secrets.values():
            _redact.register(value)
            for leaf in _json_strings(value):
                _redact.register(leaf)
        for name in self.secure:
            if name in self.ssm:
                _redact.register(self.ssm[name])

    def plant(self, region: str) -> None:
        """Put the seeds into the moto account that is open (the sandbox's). A secret named by
        its ARN is not planted (Secrets Manager makes ARNs itself); its references still
        resolve to the seeded value."""
        if not self:
            return
        import botocore.exceptions

        try:
            if self.ssm:
                ssm = self._client("ssm", region)
                for name, value in self.ssm.items():
                    kind = "SecureString" if name in self.secure else "String"
                    ssm.put_parameter(Name=name, Value=value, Type=kind, Overwrite=True)
            secrets = {k: v for k, v in self.secrets.items() if not k.startswith("arn:")}
            if secrets:
                client = self._client("secretsmanager", region)
                for name, value in secrets.items():
                    try:
                        client.create_secret(Name=name, SecretString=value)
                    except client.exceptions.ResourceExistsException:
                        # An endpoint that outlives runs (LocalStack) may hold it still.
                        client.put_secret_value(SecretId=name, SecretString=value)
        except (botocore.exceptions.ClientError, botocore.exceptions.ParamValidationError) as exc:
            raise CfngenError(
                f"a seeded --ssm or --secret value could not be put into the offline AWS "
                f"account: {_redact.scrub(str(exc))}",
                "use the parameter names and secret ids AWS accepts (an SSM name may not "
                "start with aws or ssm; a secret id is letters, digits and /_+=.@-)",
            ) from None

    def unplant(self, region: str) -> None:
        """Take the seeds out of an account that outlives the run (an endpoint's); what is
        already gone is no matter."""
        import botocore.exceptions

        gone = (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError)
        for name in self.ssm:
            with contextlib.suppress(*gone):
                self._client("ssm", region).delete_parameter(Name=name)
        for name in self.secrets:
            if not name.startswith("arn:"):
                with contextlib.suppress(*gone):
                    self._client("secretsmanager", region).delete_secret(
                        SecretId=name, ForceDeleteWithoutRecovery=True
                    )


def _json_strings(value: str) -> list[str]:
    try:
        data = json.loads(value)
    except ValueError:
        return []
    return [str(v) for v in data.values() if v is not None] if isinstance(data, dict) else []


def check(value: Any, where: str) -> list[Reference]:
    """Every reference in `value`; a malformed one stops the run (exit 2) at its pointer."""
    found: list[Reference] = []
    bad: list[str] = []
    for pointer, reference in references(value):
        if isinstance(reference, str):
            bad.append(f"{pointer}: {reference}")
        else:
            found.append(reference)
    if bad:
        raise CfngenError(
            f"{where}: malformed dynamic reference: " + "; ".join(bad),
            f"write {GRAMMAR}",
        )
    return found


def resolve(
    value: Any,
    seeds: Seeds,
    where: str,
    *,
    stand_ins_quietly: bool = False,
    keep: tuple[str, ...] = (),
    fetch: Fetch | None = None,
) -> tuple[Any, list[str]]:
    """`value` with each reference replaced by its seeded value (or a stand-in), and warnings;
    references to the services in `keep` are left as they are; with `fetch` (real AWS), each
    is looked up there instead. Resolved ssm-secure and Secrets Manager values are registered
    as secrets."""
    notes: list[str] = []
    missing: list[str] = []
    kept: list[str] = []

    def one(reference: Reference) -> str:
        if reference.service in keep:
            kept.append(reference.text)
            return reference.text
        if fetch is not None:
            resolved = fetch(reference)
            if reference.json_key:
                resolved = _json_key(reference, resolved, where)
        elif reference.service == "secretsmanager":
            if reference.name not in seeds.secrets:
                missing.append(reference.text)
                return f"cfngen-stand-in-secret-{_slug(reference.name)}"
            resolved = seeds.secrets[reference.name]
            if reference.json_key:
                resolved = _json_key(reference, resolved, where)
        else:
            if reference.name not in seeds.ssm:
                missing.append(reference.text)
                return f"cfngen-stand-in-{_slug(reference.name)}"
            resolved = seeds.ssm[reference.name]
        if reference.secret:
            _redact.register(resolved)
        return resolved

    def walk(item: Any) -> Any:
        if isinstance(item, dict):
            return {k: walk(v) for k, v in item.items()}
        if isinstance(item, list):
            return [walk(v) for v in item]
        if isinstance(item, str) and _OPEN in item:
            return _ANY.sub(lambda m: one(_parsed(m.group())), item)
        return item

    resolved = walk(value)
    if kept:
        notes.append(
            f"{where}: {', '.join(sorted(set(kept)))} is sent to the handler unresolved: "
            "CloudFormation resolves ssm-secure only in the properties of the AWS resource "
            "types that support it"
        )
    if missing and not stand_ins_quietly:
        flags = "--ssm NAME=VALUE or --secret ID=VALUE"
        notes.append(
            f"{where}: nothing seeded for {', '.join(sorted(set(missing)))}: the handlers get "
            f"stand-in values (seed the real ones with {flags})"
        )
    return resolved, notes


def _parsed(text: str) -> Reference:
    reference = parse(text)
    assert not isinstance(reference, str)  # check() refused malformed ones first
    return reference


def _json_key(reference: Reference, secret: str, where: str) -> str:
    try:
        data = json.loads(secret)
    except ValueError:
        data = None
    if not isinstance(data, dict) or reference.json_key not in data:
        raise CfngenError(
            f"{where}: {reference.text} names the key {reference.json_key!r}, which the secret "
            f"{reference.name!r} does not have (it must be a JSON object holding it)",
            'seed it as --secret ID=\'{"KEY": "value"}\'',
        )
    return str(data[reference.json_key])


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-") or "value"


def seeds_from(
    ssm: Mapping[str, str] | None = None, secrets: Mapping[str, str] | None = None
) -> Seeds:
    return Seeds(dict(ssm or {}), dict(secrets or {}))


def account_fetch(profile: str, region: str | None) -> Fetch:
    """References looked up in the account of an AWS profile (`cfngen invoke --profile`), as
    CloudFormation resolves them there: SSM GetParameter (WithDecryption for ssm-secure),
    Secrets Manager GetSecretValue with the stage or version the reference names."""
    import boto3
    import botocore.exceptions

    clients: dict[str, Any] = {}

    def client(service: str) -> Any:
        # Made at the first reference: a run without one never touches the profile.
        if service not in clients:
            session = boto3.session.Session(profile_name=profile, region_name=region)
            clients[service] = session.client(service)
        return clients[service]

    def fetch(reference: Reference) -> str:
        try:
            if reference.service == "secretsmanager":
                arguments = {"SecretId": reference.name}
                if reference.stage:
                    arguments["VersionStage"] = reference.stage
                if reference.version_id:
                    arguments["VersionId"] = reference.version_id
                return str(client("secretsmanager").get_secret_value(**arguments)["SecretString"])
            name = reference.name + (f":{reference.version}" if reference.version else "")
            found = client("ssm").get_parameter(
                Name=name, WithDecryption=reference.service == "ssm-secure"
            )
            return str(found["Parameter"]["Value"])
        except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError) as exc:
            raise CfngenError(
                f"{reference.text} could not be resolved in the account of AWS profile "
                f"{profile!r}: {exc}",
                "create it there, or leave out --profile to resolve it offline from --ssm "
                "and --secret",
            ) from None

    return fetch


def resolve_model(
    value: Any, seeds: Seeds, where: str, fetch: Fetch | None = None
) -> tuple[Any, list[str]]:
    """A resource's properties (an input, a request's state) as the handler gets them:
    `ssm` and `secretsmanager` references resolved, `ssm-secure` ones passed through (see
    `resolve`); a malformed reference stops the run at its pointer."""
    check(value, where)
    return resolve(value, seeds, where, keep=("ssm-secure",), fetch=fetch)
