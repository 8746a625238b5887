"""`cfngen publish`: one command from a built package to an extension registered, and with
`--public` published, in many regions at once.

Everything the regions need decided together is decided before anything changes (_plan.py):
which regions, what each has, the version PublishType gets, what `--keep-versions` removes.
Then the regions run in parallel (a bounded pool, one thread and one set of clients each), and
each records where it got in the project's publish state (_state.py), so a rerun of the same
package and version resumes only the regions that failed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from cfngen._errors import CfngenError
from cfngen._files import sha256
from cfngen._package._aws import Clock, aws_call
from cfngen._package._submit import Say, SubmitOptions
from cfngen._publish._plan import RegionPlan, decide, inspect
from cfngen._publish._region import Choices, RegionOutcome, run_region
from cfngen._publish._state import State

__all__ = [
    "PublishOptions",
    "PublishReport",
    "RegionOutcome",
    "RegionPlan",
    "publish",
    "regions",
]

#: Regions published at once: the registry's calls are waits, not work.
DEFAULT_JOBS = 4


@dataclass(frozen=True)
class PublishOptions:
    #: Region names, or None for every region the account has enabled that CloudFormation serves.
    regions: tuple[str, ...] | None
    public: bool = False
    version: str | None = None
    keep_versions: int | None = None
    plan_only: bool = False
    accept_terms: bool = False
    allow_version_skew: bool = False
    #: SetTypeConfiguration's Configuration, checked already (None: not configured).
    configuration: str | None = None
    submit: SubmitOptions = field(default_factory=SubmitOptions)
    jobs: int = DEFAULT_JOBS


@dataclass
class PublishReport:
    type_name: str
    plans: list[RegionPlan]
    #: The version step the schema change needs, when a public version exists to compare with.
    bump: str | None = None
    outcomes: list[RegionOutcome] = field(default_factory=list)
    #: Regions the state file says are done for this package and version.
    resumed: list[str] = field(default_factory=list)

    @property
    def failed(self) -> list[RegionOutcome]:
        return [o for o in self.outcomes if not o.ok]

    @property
    def refused(self) -> list[RegionPlan]:
        return [p for p in self.plans if p.refusal]


def publish(
    build: Any,
    session: Any,
    options: PublishOptions,
    *,
    confirm: Callable[[list[str]], bool],
    say: Say = lambda message: None,
    clock: Clock | None = None,
) -> PublishReport:
    from cfngen._package._layout import registered_name

    clock = clock or Clock()
    project = build.project
    registry_type = build.file_set.registry_type
    type_name = registered_name(project)
    account = str(
        aws_call("reading the account", session.client("sts").get_caller_identity)["Account"]
    )
    names = regions(session, options.regions)
    with ThreadPoolExecutor(max_workers=options.jobs) as pool:
        plans = list(
            pool.map(
                lambda r: inspect(
                    session.client("cloudformation", region_name=r),
                    registry_type,
                    type_name,
                    r,
                    public=options.public,
                ),
                names,
            )
        )
    bump = _bump(session, plans, registry_type, type_name, project) if options.public else None
    decide(
        plans,
        public=options.public,
        version=options.version,
        bump=bump,
        keep_versions=options.keep_versions,
        accept_terms=options.accept_terms,
        allow_version_skew=options.allow_version_skew,
    )
    report = PublishReport(type_name, plans, bump)
    # One state per type, asked-for version and package: the versions computed per region move
    # as regions publish, so they are no part of it.
    digest = sha256(build.data)
    state = State(project.root, f"{type_name}|{options.version or ''}|{digest}")
    todo = []
    for plan in plans:
        if state.done(plan.region):
            plan.refusal = None
            report.resumed.append(plan.region)
        elif not plan.refusal:
            todo.append(plan)
    if options.plan_only:
        return report
    doomed = [arn for plan in todo for arn in plan.deregister]
    if doomed and not confirm(doomed):
        raise CfngenError(
            f"publishing would deregister {len(doomed)} version(s), which cannot be undone",
            "confirm on a terminal, or pass --yes (see them with --plan)",
        )

    choices = Choices(
        account=account,
        public=options.public,
        configuration=options.configuration,
        accept_terms=options.accept_terms,
        submit=options.submit,
        clock=clock,
    )

    def one(plan: RegionPlan) -> RegionOutcome:
        outcome = run_region(session, plan, build, choices, say)
        state.record(
            plan.region,
            status="done" if outcome.ok else "failed",
            version_arn=outcome.version_arn,
            public_version=outcome.public_version,
            reason=outcome.reason,
        )
        return outcome

    with ThreadPoolExecutor(max_workers=options.jobs) as pool:
        report.outcomes = list(pool.map(one, todo))
    return report


def regions(session: Any, given: tuple[str, ...] | None) -> list[str]:
    served = set(session.get_available_regions("cloudformation"))
    if given is not None:
        unknown = [r for r in given if r not in served]
        if unknown:
            raise CfngenError(
                f"CloudFormation serves no region {unknown[0]!r} (botocore's endpoint data)",
                "pass region names such as us-east-1,eu-west-1, or all",
            )
        return list(dict.fromkeys(given))
    enabled = aws_call(
        "listing the account's regions",
        session.client("ec2", region_name=session.region_name or "us-east-1").describe_regions,
    )
    names = {r["RegionName"] for r in enabled.get("Regions", [])}
    return sorted(names & served)


def _bump(
    session: Any, plans: list[RegionPlan], registry_type: str, type_name: str, project: Any
) -> str | None:
    """The step from the schema registered as the default where the type is public."""
    from cfngen._compat._diff import BUMPS, compare
    from cfngen._schema import load_object

    region = next((p.region for p in plans if p.public_version), None)
    if region is None:
        return None
    cfn = session.client("cloudformation", region_name=region)
    described = aws_call(
        "reading the published schema", cfn.describe_type, Type=registry_type, TypeName=type_name
    )
    try:
        old = json.loads(described.get("Schema") or "{}")
    except ValueError:
        return None
    changes = compare(old, load_object(project.schema_path, "fix the schema"))
    return max((c.bump for c in changes), key=BUMPS.index) if changes else "patch"
