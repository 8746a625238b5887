"""What `cfngen publish` will do in each region, read from the registry before anything changes.

The per-region traps public publish scripts fall into are decided here, once, from what each
region says: a type registered for the first time, the version number PublishType must not get
on a first publish, a region whose first public version would lag the others (version skew),
an unregistered or unverified publisher, and the per-type version limit (50 registered
versions per type, account and region; the default version cannot be deregistered while others
exist), which `--keep-versions` stays under by deregistering the oldest non-default versions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cfngen._package._aws import aws_call

#: Registered versions the registry keeps per type, account and region.
VERSION_LIMIT = 50


@dataclass
class RegionPlan:
    region: str
    #: The type is registered there already (False: its first registration).
    registered: bool = False
    #: Registered versions, oldest first: {"arn", "default", "created"}.
    versions: list[dict[str, Any]] = field(default_factory=list)
    #: The latest public version number there (None: never published there).
    public_version: str | None = None
    #: "verified", "unverified" or "none" (never registered as a publisher there); "" private.
    publisher: str = ""
    #: What PublishType gets: None to omit it (the first publish there must omit it).
    version: str | None = None
    #: Version ARNs deregistered first (--keep-versions), oldest first.
    deregister: list[str] = field(default_factory=list)
    #: Why this region is not published (version skew, publisher terms, the version limit).
    refusal: str | None = None

    def steps(self, *, public: bool, configure: bool, accept_terms: bool) -> list[str]:
        """What will happen there, in order, as the plan prints it."""
        if self.refusal:
            return [f"refused: {self.refusal}"]
        lines = [f"deregister {arn}" for arn in self.deregister]
        lines += [
            "upload the package to the region's bucket",
            "RegisterType" + ("" if self.registered else " (first registration)"),
            "SetTypeDefaultVersion",
        ]
        if configure:
            lines.append("SetTypeConfiguration")
        if public:
            if self.publisher == "none" and accept_terms:
                lines.append("RegisterPublisher (terms accepted with --accept-terms)")
            lines.append("TestType, and wait for its result")
            shown = self.version or "none: the registry numbers a first publish 1.0.0"
            lines.append(f"PublishType (version {shown})")
        return lines


def inspect(
    cfn: Any, registry_type: str, type_name: str, region: str, *, public: bool
) -> RegionPlan:
    """What the registry of `cfn`'s region has of `type_name` (read only)."""
    import botocore.exceptions

    plan = RegionPlan(region)
    try:
        described = cfn.describe_type(Type=registry_type, TypeName=type_name)
    except botocore.exceptions.ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "TypeNotFoundException":
            raise
        described = None
    if described is not None:
        plan.registered = True
        plan.public_version = described.get("LatestPublicVersion")
        plan.versions = _versions(cfn, registry_type, type_name)
    if public:
        plan.publisher = _publisher(cfn)
    return plan


def _versions(cfn: Any, registry_type: str, type_name: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    token = None
    while True:
        page = aws_call(
            f"listing the versions of {type_name}",
            cfn.list_type_versions,
            Type=registry_type,
            TypeName=type_name,
            **({"NextToken": token} if token else {}),
        )
        for summary in page.get("TypeVersionSummaries", []):
            found.append(
                {
                    "arn": summary["Arn"],
                    "default": bool(summary.get("IsDefaultVersion")),
                    "created": str(summary.get("TimeCreated", "")),
                }
            )
        token = page.get("NextToken")
        if not token:
            return sorted(found, key=lambda v: v["created"])


def _publisher(cfn: Any) -> str:
    import botocore.exceptions

    try:
        described = cfn.describe_publisher()
    except botocore.exceptions.ClientError:
        return "none"
    if not described.get("PublisherId"):
        return "none"
    return "verified" if described.get("PublisherStatus") == "VERIFIED" else "unverified"


def decide(
    plans: list[RegionPlan],
    *,
    public: bool,
    version: str | None,
    bump: str | None,
    keep_versions: int | None,
    accept_terms: bool,
    allow_version_skew: bool,
) -> None:
    """Fill in each plan's version, deregistrations and refusal, across regions."""
    published = [p.public_version for p in plans if p.public_version]
    newest = max(published, key=_key) if published else None
    for plan in plans:
        keep = keep_versions if keep_versions is not None else VERSION_LIMIT
        excess = len(plan.versions) + 1 - keep
        if excess > 0:
            oldest = [v["arn"] for v in plan.versions if not v["default"]]
            if len(oldest) < excess:
                plan.refusal = (
                    f"{len(plan.versions)} versions are registered and only "
                    f"{len(oldest)} can go (the default version stays): lower the count or "
                    "deregister by hand"
                )
                continue
            plan.deregister = oldest[:excess]
        if not public:
            continue
        if plan.publisher == "unverified":
            plan.refusal = "the publisher is not verified in this region (DescribePublisher)"
        elif plan.publisher == "none" and not accept_terms:
            plan.refusal = (
                "no publisher is registered in this region; RegisterPublisher accepts AWS's "
                "terms and conditions, which cfngen does only with --accept-terms"
            )
        elif plan.public_version is None:
            # The registry numbers a first publish 1.0.0 and refuses a number there.
            wanted = newest if newest is not None else version
            if wanted is not None and _key(wanted) > (1, 0, 0) and not allow_version_skew:
                plan.refusal = (
                    "the first publish here would be 1.0.0 while "
                    + (f"others are at {newest}" if newest else f"--version asks for {version}")
                    + " (the registry numbers a first publish itself): --allow-version-skew "
                    "publishes it anyway"
                )
            plan.version = None
        elif version is not None and _key(version) <= _key(plan.public_version):
            plan.refusal = f"--version {version} is not above {plan.public_version}, published here"
        else:
            plan.version = version or next_version(newest or plan.public_version, bump)


def next_version(current: str, bump: str | None) -> str:
    major, minor, patch = _key(current)
    if bump == "major":
        return f"{major + 1}.0.0"
    if bump == "minor":
        return f"{major}.{minor + 1}.0"
    return f"{major}.{minor}.{patch + 1}"


def _key(version: str) -> tuple[int, int, int]:
    parts = [int(p) if p.isdigit() else 0 for p in version.split(".")[:3]] + [0, 0, 0]
    return parts[0], parts[1], parts[2]
