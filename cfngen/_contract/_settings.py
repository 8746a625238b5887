"""What the user chose for a run of the runner (`cfngen invoke` / `cfngen test` options)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cfngen._contract._references import Seeds
from cfngen._simulated_time import DEFAULT_MAX_INVOCATIONS, DEFAULT_MAX_REINVOKE

#: Longest real wait between re-invocations with `--profile` (real AWS); offline the clock is
#: simulated and nothing is slept.
DEFAULT_MAX_DELAY = 5.0


@dataclass
class Settings:
    """What the user chose for a run (`cfngen invoke` / `cfngen test` options)."""

    region: str | None = None
    #: Real AWS with this profile's credentials (real time); None: moto, simulated time.
    profile: str | None = None
    #: `--role-arn`: real AWS with this role's credentials, assumed with the profile's.
    role_arn: str | None = None
    #: `--endpoint-url URL`: every AWS client the handlers make goes there (real time).
    endpoint_url: str | None = None
    #: `--moto-server`: a moto server cfngen starts on 127.0.0.1 (simulated time).
    moto_server: bool = False
    #: `--setup TEMPLATE`: a stack deployed to the target for the run (so a moto server is not
    #: reset between tests: the stack must outlive them).
    setup: Path | None = None
    #: `--keep`: what the tests create on an endpoint is left there (and named).
    keep: bool = False
    #: `--enforce-timeout S`: the kind's per-call limits scaled to S.
    enforce_timeout: float | None = None
    max_reinvoke: int = DEFAULT_MAX_REINVOKE
    max_invocations: int = DEFAULT_MAX_INVOCATIONS
    max_delay: float = DEFAULT_MAX_DELAY
    #: `--allow-network`: the handlers' own connections may leave the machine (_network.py).
    allow_network: bool = False
    #: `-k EXPR` of `cfngen test`.
    keyword: str | None = None
    #: `--ssm`, `--secret`: what is put into the offline AWS account (and resolves references).
    seeds: Seeds = field(default_factory=Seeds)
    #: `--strict`: what a test warns of and CloudFormation accepts fails it (a permission
    #: declared only under another handler).
    strict: bool = False
    #: Tests to run before the others, by name (`cfngen test --watch`: the ones that failed).
    first: frozenset[str] = frozenset()
    #: Worker processes running a suite's tests at once (each test is a new container, so
    #: they are independent); `cfngen test --watch` uses one per CPU, up to 2.
    workers: int = 1
