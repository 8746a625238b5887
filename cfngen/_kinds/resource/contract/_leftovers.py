"""The ledger of what a run created on a target that outlives it, and the sweep that deletes it.

Each test deletes what it created when it ends (`Case.clean_up`), but a test never ends that
way when its worker is killed: Ctrl-C, a handler that ends its process, a crash. Against
in-process moto, or the moto server cfngen started, that loses nothing: the account is
discarded. Against an endpoint (`--endpoint-url`) or AWS it leaves resources behind. So the
worker tells this process of every model a CREATE returned (`Made`) as soon as it returns, and
of every one deleted (`Gone`); what the ledger still holds when the run ends, however it ends,
the sweep deletes through the delete handler, in a new worker. `--keep` leaves everything and
names it. Against AWS, the LIST handler then looks for what the run created: anything it still
shows is a leftover, named by its identifiers, and fails the run.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from cfngen._kinds.resource.contract import _rules
from cfngen._kinds.resource.contract._messages import as_json


@dataclass(frozen=True)
class Made:
    """A worker's note: a CREATE returned this model (it may exist on the target)."""

    model: dict[str, Any]


@dataclass(frozen=True)
class Gone:
    """A worker's note: this model was deleted."""

    model: dict[str, Any]


@dataclass
class Ledger:
    """The models created on the target and not yet deleted, in this (the parent) process."""

    info: Any
    models: list[dict[str, Any]] = field(default_factory=list)
    #: Every model a CREATE returned in the run, deleted or not (what LIST may not show).
    made: list[dict[str, Any]] = field(default_factory=list)

    def receive(self, message: Any) -> None:
        if isinstance(message, Made):
            if not any(self._same(message.model, m) for m in self.models):
                self.models.append(copy.deepcopy(message.model))
            if not any(self._same(message.model, m) for m in self.made):
                self.made.append(copy.deepcopy(message.model))
        elif isinstance(message, Gone):
            self.models = [m for m in self.models if not self._same(m, message.model)]

    def _same(self, a: dict[str, Any], b: dict[str, Any]) -> bool:
        return _rules.same_identifier(self.info, a, b)

    def names(self, models: list[dict[str, Any]] | None = None) -> str:
        """The identifiers of `models` (default: all held), as messages show them."""
        found = self.models if models is None else models
        return ", ".join(as_json(_rules.identifiers_of(self.info, m)) for m in found)


def still_listed(ledger: Ledger, listed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The models LIST returned that the run created: left behind, whatever deleted them."""
    return [m for m in listed if any(ledger._same(m, made) for made in ledger.made)]


def swept_note(ledger: Ledger, left: list[dict[str, Any]], deleted: int, where: str) -> str | None:
    """What the sweep did, for the run's notes (None: nothing was left to sweep)."""
    if not left and not deleted:
        return None
    parts = []
    if deleted:
        parts.append(
            f"deleted {deleted} resource(s) on {where} that tests left when they did not end "
            "(interrupted, or their handler process ended)"
        )
    if left:
        parts.append(
            f"could not delete {len(left)} resource(s) on {where}: {ledger.names(left)}; "
            "delete them yourself"
        )
    return "; ".join(parts)
