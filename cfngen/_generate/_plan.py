"""What generate does with each derived path: write, leave alone, remove, or stop because the
user edited a file cfngen wrote (the rules are in `_ownership`'s docstring).

The plan is made from what is on disk before anything is written, so a generate that stops
(hand edits, a file it cannot read) has written nothing.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from cfngen._errors import CfngenError
from cfngen._files import inspect, read_optional, sha256, writable
from cfngen._files._conflicts import conflict_line
from cfngen._files._ownership import (
    MANIFEST_PATH,
    Manifest,
    can_carry_header,
    has_header,
    is_official_sam,
    recorded_and_marked,
)

#: Where --discard-edits saves a file's edited bytes before overwriting it.
SAVED_SUFFIX = ".cfngen-old"
#: What to do with files cfngen wrote that the user edited since.
EDITS = ("stop", "discard", "keep")


@dataclass
class Plan:
    writes: dict[str, bytes] = field(default_factory=dict)
    #: `<path>.cfngen-old` -> the edited bytes it keeps (--discard-edits).
    saves: dict[str, bytes] = field(default_factory=dict)
    deletes: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    #: Path -> why it is the user's and left alone.
    skipped: dict[str, str] = field(default_factory=dict)
    #: Files cfngen wrote and the user edited since: they stop the generate (edits="stop").
    edited: list[str] = field(default_factory=list)
    #: Recorded files the schema no longer derives, left in place (no longer recorded) -> the
    #: warning saying why: edited since, or the file itself does not show it is cfngen's.
    kept_stale: dict[str, str] = field(default_factory=dict)
    manifest: Manifest = field(default_factory=Manifest)


def make_plan(
    root: Path,
    rendered: dict[str, bytes],
    old: Manifest,
    *,
    edits: str,
    until_edited: frozenset[str] = frozenset(),
    official_rewrites: Mapping[str, Callable[[bytes], bool]] | None = None,
    official_outputs: Mapping[str, Callable[[bytes], bool]] | None = None,
    official_witness: str | None = None,
) -> Plan:
    """`until_edited`: paths whose first edit makes them the user's (Derived.until_edited);
    `official_rewrites`, `official_outputs`, `official_witness`: the Derived's."""
    plan = Plan(manifest=Manifest(fingerprint=old.fingerprint))
    outputs = official_outputs or {}
    ran_official = _official_generate_ran(root, official_witness, outputs)
    for relpath, data in rendered.items():
        if relpath in until_edited and _taken_over(root, relpath, old):
            plan.skipped[relpath] = "you edited it"
            plan.manifest.user_files.append(relpath)
            continue
        if relpath in until_edited and _untouched_template_output(root, relpath, old):
            # Rendered by an earlier template that had it (0.1.0's inputs/), never edited:
            # generate derives it now.
            plan.writes[relpath] = data
            plan.manifest.files[relpath] = sha256(data)
            continue
        rewritten = (official_rewrites or {}).get(relpath)
        _place(
            root,
            relpath,
            data,
            old=old,
            edits=edits,
            plan=plan,
            rewritten=rewritten,
            official=outputs.get(relpath),
            ran_official=ran_official,
        )
    for relpath in sorted(old.files):
        if relpath in rendered or inspect(root / relpath).kind != "file":
            continue
        current = read_optional(root / relpath)
        if current is None:
            continue
        proof = recorded_and_marked(relpath, current, old.files[relpath])
        stale = f"{relpath} is no longer generated from the schema, but"
        merged = conflict_line(current)
        if proof:
            plan.deletes.append(relpath)
        elif merged is not None:
            plan.kept_stale[relpath] = (
                f"{stale} it holds git conflict markers from line {merged}: left in place "
                "(resolve them, or delete it if you do not need it)"
            )
        elif proof is None:
            plan.kept_stale[relpath] = (
                f"{stale} a JSON file cannot carry cfngen's header, and its record in "
                f"{MANIFEST_PATH} alone never makes cfngen remove a file: left in place "
                "(delete it if you do not need it)"
            )
        elif sha256(current) == old.files[relpath]:
            plan.kept_stale[relpath] = (
                f"{MANIFEST_PATH} lists {relpath}, but its first line has no cfngen header, "
                "so it is not cfngen's: left alone, and no longer listed"
            )
        else:
            plan.kept_stale[relpath] = (
                f"{stale} it was edited since cfngen wrote it: left in place (delete it if "
                "you do not need it)"
            )
    return plan


def _taken_over(root: Path, relpath: str, old: Manifest) -> bool:
    """A file cfngen wrote that the user has edited since, or one already recorded as theirs.
    git's conflict markers are no edit of the user's: `_place` decides about such a file."""
    if inspect(root / relpath).kind != "file":
        return False
    current = read_optional(root / relpath)
    if current is None or conflict_line(current) is not None:
        return False
    if _users_by_record(relpath, old):
        return True
    return relpath in old.files and sha256(current) != old.files[relpath]


def _official_generate_ran(
    root: Path, witness: str | None, outputs: Mapping[str, Callable[[bytes], bool]]
) -> bool:
    """Whether the official `cfn generate` ran here since cfngen's last generate: the file the
    kind names as its witness holds the official output (Derived.official_witness)."""
    if witness is None or witness not in outputs or inspect(root / witness).kind != "file":
        return False
    data = read_optional(root / witness)
    return data is not None and outputs[witness](data)


def _users_by_record(relpath: str, old: Manifest) -> bool:
    return relpath in old.user_files and relpath not in old.files


def _untouched_template_output(root: Path, relpath: str, old: Manifest) -> bool:
    if relpath in old.files or relpath in old.user_files or inspect(root / relpath).kind != "file":
        return False
    current = read_optional(root / relpath)
    return current is not None and current in released_renderings(relpath)


@functools.cache
def released_renderings(relpath: str) -> frozenset[bytes]:
    """What the released copier templates that rendered `relpath` themselves could have
    written there, for each value of their yes/no answers (a file that depends on other
    answers is not matched: it stays the user's)."""
    import itertools

    import jinja2

    from cfngen._init._template_cache import templates_root

    try:
        released = templates_root() / "released"
    except Exception:
        return frozenset()
    found: set[bytes] = set()
    for source in sorted(released.glob(f"*/*/project/{relpath}.jinja")):
        env = jinja2.Environment(
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        template = env.from_string(source.read_text(encoding="utf-8"))
        for tagging, example in itertools.product((True, False), (False,)):
            try:
                found.add(template.render(tagging=tagging, example=example).encode("utf-8"))
            except jinja2.TemplateError:
                continue
    return frozenset(found)


def _place(
    root: Path,
    relpath: str,
    data: bytes,
    *,
    old: Manifest,
    edits: str,
    plan: Plan,
    rewritten: Callable[[bytes], bool] | None = None,
    official: Callable[[bytes], bool] | None = None,
    ran_official: bool = False,
) -> None:
    """`ran_official`: whether the official generate ran here (_official_generate_ran)."""
    record = plan.manifest.files
    try:
        writable(root, relpath, what="a derived file")
    except CfngenError:
        plan.skipped[relpath] = (
            f"it leads outside the project (to {os.path.realpath(root / relpath)})"
        )
        plan.manifest.user_files.append(relpath)
        return
    entry = inspect(root / relpath)
    if entry.kind == "absent":
        plan.writes[relpath] = data
        record[relpath] = sha256(data)
        return
    if entry.kind != "file":
        plan.skipped[relpath] = (
            f"it is a symbolic link (to {entry.detail})"
            if entry.kind == "symlink"
            else f"it is {entry.detail}"
        )
        plan.manifest.user_files.append(relpath)
        return
    current = read_optional(root / relpath) or b""
    recorded = old.files.get(relpath)
    by_official = bool(official and official(current))
    official_now = by_official or bool(rewritten and rewritten(current))
    merged = conflict_line(current) if current != data else None
    if current == data:
        plan.unchanged.append(relpath)
        record[relpath] = sha256(data)
    elif merged is not None:
        # git's merge of two versions: derived again when the file itself says it is
        # cfngen's (its header, or the official tool's marks) or, for JSON, which cannot
        # say so, unless a record makes it the user's.
        cfngens = (
            has_header(current) or official_now
            if can_carry_header(relpath)
            else not _users_by_record(relpath, old)
        )
        if cfngens:
            plan.writes[relpath] = data
            record[relpath] = sha256(data)
        else:
            why = (
                "it has no cfngen header"
                if can_carry_header(relpath)
                else f"{MANIFEST_PATH} records it as yours"
            )
            plan.skipped[relpath] = (
                f"{why} (and it holds git conflict markers from line {merged}: resolve them)"
            )
            plan.manifest.user_files.append(relpath)
    elif recorded_and_marked(relpath, current, recorded) is not False:
        plan.writes[relpath] = data
        record[relpath] = sha256(data)
    elif recorded is not None and sha256(current) != recorded:
        if (ran_official and by_official) or (rewritten is not None and rewritten(current)):
            # The official tool's own output over cfngen's is not a hand edit: `cfn
            # generate`'s models.py, role and docs (only where it ran: cfngen's docs without
            # their header read like its docs), a module's schema.json (`cfn validate`).
            plan.writes[relpath] = data
            record[relpath] = sha256(data)
        elif edits == "discard":
            plan.saves[_free_name(root, relpath + SAVED_SUFFIX)] = current
            plan.writes[relpath] = data
            record[relpath] = sha256(data)
        elif edits == "keep":
            plan.skipped[relpath] = "you kept your edits to it (--keep-edits)"
            plan.manifest.user_files.append(relpath)
        else:
            plan.edited.append(relpath)
    elif has_header(current) or official_now:
        plan.writes[relpath] = data
        record[relpath] = sha256(data)
    else:
        # Unrecorded, or recorded with these very bytes but without the header: the record
        # alone proves nothing (anyone can edit the manifest), so the file is the user's.
        plan.skipped[relpath] = _why_users(relpath, current, old)
        plan.manifest.user_files.append(relpath)


def _why_users(relpath: str, current: bytes, old: Manifest) -> str:
    if relpath == "template.yml" and is_official_sam(current):
        return (
            "it is the SAM template the official `cfn init` made, whose `CodeUri: build/` the "
            "official build relies on (cfngen's points at src/ for `sam build`)"
        )
    if PurePosixPath(relpath).suffix == ".json" and old.rebuilt:
        return f"{MANIFEST_PATH} could not be read, and nothing else shows cfngen wrote it"
    if PurePosixPath(relpath).suffix == ".json":
        return f"{MANIFEST_PATH} has no record of cfngen writing it"
    return "it has no cfngen header"


def _free_name(root: Path, relpath: str) -> str:
    """`relpath`, or `relpath-2`, `-3`...: an earlier saved edit is never overwritten."""
    candidate, number = relpath, 1
    while inspect(root / candidate).kind != "absent":
        number += 1
        candidate = f"{relpath}-{number}"
    return candidate
