"""`cfngen generate`: the derived files of a project, from its inputs.

generate_project(root, check=False, force=False) -> GenerateResult
    Asks the project's kind for its inputs and, unless nothing changed, for every derived file
    rendered in memory (`Kind.derive`: an invalid schema raises InvalidSchemaError, a CfngenError
    with exit_code FAILED that carries the validation report, and nothing is written); only then
    writes them, each atomically. check=True writes nothing and lists the drifted files;
    force=True skips the no-op fast path.

The fast path needs only the standard library: it compares a fingerprint of the inputs and the
hashes of the derived files with the manifest (see `_ownership`) before anything heavy (the
validator, jinja, the models renderer) is imported.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._errors import CfngenError, ExitCode
from cfngen._fsutil import read_if_exists, write_atomic
from cfngen._generate import _ownership
from cfngen._project import load_project
from cfngen._render import Rendered

if TYPE_CHECKING:
    from cfngen._validate import FileReport


@dataclass
class GenerateResult:
    #: Derived files written (or, with check=True, that would be written: the drift).
    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    #: Files at a derived path that the user owns (no cfngen header): left alone.
    skipped: list[Path] = field(default_factory=list)
    #: Derived files cfngen wrote earlier that the schema no longer produces (with check=True:
    #: that would be removed).
    removed: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: The validation report (None on the no-op path, which does not validate).
    report: FileReport | None = None
    #: Nothing had changed since the last generate: no file was rendered or written.
    up_to_date: bool = False

    @property
    def drift(self) -> list[Path]:
        """What --check reports: files out of date, including stale ones to remove."""
        return sorted([*self.written, *self.removed])

    def failed(self, *, check: bool) -> bool:
        """--check found drift."""
        return check and bool(self.drift)

    def render(self, text: Rendered, *, check: bool) -> None:
        """stdout lists what generate did (with check: the drift); the rest goes to stderr."""
        from cfngen._validate import render_text

        if self.report is not None and self.report.diagnostics:
            text.err(render_text([self.report], text.paint_err).rstrip("\n"))
        for path in self.skipped:
            why = (
                "it is not what cfngen last wrote there"
                if path.suffix == ".json"
                else "it has no cfngen header"
            )
            text.err(
                f"cfngen: left {path.as_posix()} alone: {why}, so it is yours "
                "(delete it to have cfngen generate it)"
            )
        for message in self.warnings:
            text.warning(message)
        if check:
            for path in self.drift:
                text.out(f"out of date: {path.as_posix()}")
            if self.drift:
                text.err(
                    f"cfngen: {len(self.drift)} derived file(s) out of date; "
                    "run `cfngen generate` to refresh them"
                )
            else:
                text.out("cfngen: derived files are up to date")
            return
        for path in self.written:
            text.out(f"wrote {path.as_posix()}")
        for path in self.removed:
            text.out(f"removed {path.as_posix()}")
        if self.up_to_date:
            text.out("cfngen: nothing changed since the last generate (use --force to regenerate)")
        else:
            text.out(
                f"cfngen: {len(self.written)} written, {len(self.unchanged)} unchanged, "
                f"{len(self.removed)} removed, {len(self.skipped)} left to you"
            )

    def as_json(self) -> dict[str, Any]:
        return {
            "written": [p.as_posix() for p in self.written],
            "unchanged": [p.as_posix() for p in self.unchanged],
            "skipped": [p.as_posix() for p in self.skipped],
            "removed": [p.as_posix() for p in self.removed],
            "warnings": list(self.warnings),
            "up_to_date": self.up_to_date,
            "diagnostics": [d.as_json() for d in self.report.diagnostics] if self.report else [],
        }


class InvalidSchemaError(CfngenError):
    """The schema did not validate: nothing was generated."""

    def __init__(self, report: FileReport) -> None:
        super().__init__(
            f"{report.path}: the schema is invalid; nothing was generated",
            "fix the problems listed above and run `cfngen generate` again",
            exit_code=ExitCode.FAILED,
        )
        self.report = report


def generate_project(root: Path, *, check: bool = False, force: bool = False) -> GenerateResult:
    project = load_project(root)
    kind = project.kind
    inputs = kind.generate_inputs(project)
    fingerprint = _ownership.fingerprint(inputs)
    manifest = _ownership.load_manifest(root)

    if not force and _ownership.is_up_to_date(root, manifest, fingerprint):
        result = GenerateResult(
            unchanged=[Path(p) for p in sorted(manifest.files)],
            skipped=[Path(p) for p in sorted(manifest.user_files)],
            up_to_date=True,
        )
        result.warnings += kind.generate_notes(project, inputs)
        return result

    derived = kind.derive(project, inputs)
    rendered = derived.files
    report = derived.report
    result = GenerateResult(report=report)
    result.warnings += derived.warnings
    result.warnings += kind.generate_notes(project, inputs)
    new_manifest = _ownership.Manifest(fingerprint=fingerprint)
    writes: list[tuple[str, bytes]] = []
    for relpath, data in rendered.items():
        existing = read_if_exists(root / relpath)
        if existing == data:
            result.unchanged.append(Path(relpath))
            new_manifest.files[relpath] = _ownership.sha256(data)
        elif existing is None or _owned(relpath, existing, manifest):
            writes.append((relpath, data))
            result.written.append(Path(relpath))
            new_manifest.files[relpath] = _ownership.sha256(data)
        else:
            result.skipped.append(Path(relpath))
            new_manifest.user_files.append(relpath)
    stale = [
        relpath
        for relpath in sorted(manifest.files)
        if relpath not in rendered
        and (old := read_if_exists(root / relpath)) is not None
        and _owned(relpath, old, manifest)
    ]
    result.removed = [Path(p) for p in stale]
    if check:
        return result

    for relpath, data in writes:
        write_atomic(root / relpath, data)
    for relpath in stale:
        os.unlink(root / relpath)
    manifest_text = new_manifest.render().encode()
    if read_if_exists(root / _ownership.MANIFEST_PATH) != manifest_text:
        write_atomic(root / _ownership.MANIFEST_PATH, manifest_text)
    return result


def _owned(relpath: str, data: bytes, manifest: _ownership.Manifest) -> bool:
    return (
        _ownership.has_header(data)
        or manifest.files.get(relpath) == _ownership.sha256(data)
        or _ownership.is_official_output(relpath, data)
    )
