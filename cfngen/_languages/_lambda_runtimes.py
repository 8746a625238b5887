"""Lambda's runtimes for the handlers of the other languages, with Lambda's end-of-support dates.

The dates are read from the table cfn-lint ships for its rules E2531/W2531
(`cfnlint/data/AdditionalSpecs/LmbdRuntimeLifecycle.json`: per runtime id, the day Lambda
deprecates it, blocks new functions, blocks updates, and its successor). cfn-lint is pinned
in cfngen's dependencies and keeps that table up to date from Lambda's runtimes page, so a
cfn-lint upgrade moves cfngen's dates with it; nothing here repeats a date.

Which runtimes belong to which language is what the official plugins' projects run on:
TypeScript on `nodejs*`, Go on `go1.x` (the plugin's older projects) and the OS-only runtimes
`provided.al2`/`provided.al2023` (its newer ones: a `bootstrap` executable), Java on `java*`.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from cfngen._errors import CfngenError

Phase = Literal["supported", "deprecated", "create-blocked", "blocked"]

#: Lambda says a runtime's deprecation at least this many days ahead (its runtime
#: deprecation policy); cfngen warns from then on.
NOTICE_DAYS = 180


@dataclass(frozen=True)
class LambdaRuntime:
    #: Lambda's runtime identifier, as in template.yml and `.rpdk-config` "runtime".
    name: str
    #: ISO dates; "" when Lambda has not set one.
    deprecated_on: str
    create_blocked_on: str
    update_blocked_on: str
    #: The runtime Lambda names to move to ("" for the newest).
    successor: str

    def phase(self, today: str) -> Phase:
        """Where Lambda's end of support stands on `today` (ISO date)."""
        if self.update_blocked_on and today >= self.update_blocked_on:
            return "blocked"
        if self.create_blocked_on and today >= self.create_blocked_on:
            return "create-blocked"
        if self.deprecated_on and today >= self.deprecated_on:
            return "deprecated"
        return "supported"

    def near_deprecation(self, today: str) -> bool:
        """Supported today, deprecated within Lambda's notice period."""
        import datetime

        if not self.deprecated_on or self.phase(today) != "supported":
            return False
        left = datetime.date.fromisoformat(self.deprecated_on) - datetime.date.fromisoformat(today)
        return left.days <= NOTICE_DAYS


@functools.cache
def lifecycle() -> dict[str, LambdaRuntime]:
    """Every runtime in cfn-lint's table, by id."""
    # Found, not imported: importing cfnlint costs a second (its rules, sympy) for one file.
    spec = importlib.util.find_spec("cfnlint")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    source = Path(folders[0] if folders else ".") / "data/AdditionalSpecs/LmbdRuntimeLifecycle.json"
    try:
        data = json.loads(source.read_text("utf-8"))
    except (OSError, ValueError) as error:
        raise CfngenError(
            f"cannot read Lambda's runtime dates from cfn-lint ({source}): {error}",
            "reinstall cfngen (it installs the cfn-lint it was tested with)",
        ) from None
    return {
        name: LambdaRuntime(
            name,
            row.get("deprecated") or "",
            row.get("create-block") or "",
            row.get("update-block") or "",
            row.get("successor") or "",
        )
        for name, row in data.items()
        if isinstance(row, dict)
    }


@dataclass(frozen=True)
class Family:
    """The Lambda runtimes one language's handlers run on."""

    #: Runtime ids matching this pattern belong to the language.
    pattern: str
    #: What the language's build must produce for a move between two of its runtimes to work,
    #: when the move changes it (said in `cfngen runtime set`'s output), by (from, to) prefix.
    notes: tuple[tuple[str, str, str], ...] = ()

    def holds(self, name: str) -> bool:
        return re.fullmatch(self.pattern, name) is not None

    def rows(self) -> list[LambdaRuntime]:
        """The family's runtimes, newest first (by version number, then id)."""
        found = [row for name, row in lifecycle().items() if self.holds(name)]
        return sorted(found, key=_version_key, reverse=True)

    def find(self, name: str) -> LambdaRuntime | None:
        return lifecycle().get(name) if self.holds(name) else None

    def newest(self, today: str) -> LambdaRuntime | None:
        """The newest runtime Lambda supports today (what `cfngen runtime` suggests)."""
        return next((row for row in self.rows() if row.phase(today) == "supported"), None)

    def notes_for(self, old: str, new: str) -> list[str]:
        return [
            note for was, now, note in self.notes if old.startswith(was) and new.startswith(now)
        ]


def _version_key(row: LambdaRuntime) -> tuple[tuple[int, ...], str]:
    numbers = tuple(int(part) for part in re.findall(r"\d+", row.name))
    return numbers, row.name


NODE = Family(r"nodejs\d+\.x")
GO = Family(
    r"go1\.x|provided\.al2(023)?",
    notes=(
        (
            "go1.x",
            "provided",
            "provided.al2 and provided.al2023 run an executable named bootstrap: build it as "
            'the Go plugin does now (`.rpdk-config` "entrypoint": "bootstrap", the Makefile '
            "building bin/bootstrap with -tags lambda.norpc, Handler: bootstrap in template.yml); "
            "cfngen changes only the runtime",
        ),
    ),
)
JAVA = Family(r"java\d+(\.al2)?")
