"""`cfngen validate --against REF`: the changes between an earlier schema and this one, each
judged breaking (major), new (minor) or words (patch), and the version step they need."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen._compat._against import REGISTRY, earlier
from cfngen._compat._diff import BUMPS, Bump, Change, compare
from cfngen._errors import CfngenError

__all__ = ["REGISTRY", "Bump", "Change", "CompatReport", "Located", "check_against"]


@dataclass(frozen=True)
class Located:
    change: Change
    line: int | None
    column: int | None
    #: A possibly breaking change the user accepted (`--accept POINTER`): counted as minor.
    accepted: bool = False

    @property
    def bump(self) -> Bump:
        return "minor" if self.accepted else self.change.bump

    def as_json(self) -> dict[str, Any]:
        c = self.change
        return {
            "code": c.code,
            "bump": self.bump,
            "breaking": self.bump == "major",
            "possibly": c.possibly,
            "accepted": self.accepted,
            "pointer": c.pointer,
            "line": self.line,
            "column": self.column,
            "message": c.message,
        }


@dataclass
class CompatReport:
    path: str
    against: str
    #: False when the schema did not exist there: a first version, nothing to compare.
    compared: bool = True
    changes: list[Located] = field(default_factory=list)

    @property
    def bump(self) -> Bump | None:
        if not self.changes:
            return None
        return max((c.bump for c in self.changes), key=BUMPS.index)

    @property
    def breaking(self) -> bool:
        return self.bump == "major"

    def as_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "against": self.against,
            "compared": self.compared,
            "bump": self.bump,
            "changes": [c.as_json() for c in self.changes],
        }


def check_against(
    schema: Path,
    ref: str,
    *,
    kind: str,
    accept: tuple[str, ...] = (),
    profile: str | None = None,
    region: str | None = None,
    display: str | None = None,
) -> CompatReport:
    """Compare `schema` (a resource type's or hook's) with its version at `ref`; `kind` is
    the registry's type (RESOURCE, HOOK)."""
    from cfngen import _schema

    shown = display or str(schema)
    text = _schema.read_text(schema)
    try:
        doc = _schema.loads(text)
    except _schema.JsonSyntaxError as exc:
        raise CfngenError(f"{shown}: cannot compare: {exc}", "fix its syntax first") from None
    new = doc.data if isinstance(doc.data, dict) else {}
    before = earlier(
        ref, schema, type_name=str(new.get("typeName")), kind=kind, profile=profile, region=region
    )
    report = CompatReport(shown, before.label)
    if before.text is None:
        report.compared = False
        return report
    try:
        old = _schema.loads(before.text).data
    except _schema.JsonSyntaxError as exc:
        raise CfngenError(
            f"{before.label}: the earlier schema is not valid JSON: {exc}",
            "compare with another revision or file",
        ) from None
    if not isinstance(old, dict):
        raise CfngenError(f"{before.label}: the earlier schema is not a JSON object", None)
    unused = set(accept)
    for change in compare(old, new):
        accepted = change.possibly and change.pointer in accept
        unused.discard(change.pointer if accepted else "")
        line, column = doc.position(change.pointer) or (None, None)
        report.changes.append(Located(change, line, column, accepted))
    if unused:
        raise CfngenError(
            f"--accept {sorted(unused)[0]}: no possibly breaking change is there",
            "accept the pointer a 'possibly breaking' line names",
        )
    report.changes.sort(key=lambda c: (c.line or 1 << 30, c.column or 0))
    return report
