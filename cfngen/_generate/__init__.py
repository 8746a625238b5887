"""`cfngen generate`: the derived files of a project, from its inputs.

generate_project(root, check=False, force=False, edits="stop") -> GenerateResult
    Asks the project's kind for its inputs and, unless nothing changed, for every derived file
    rendered in memory (`Kind.derive`: an invalid schema raises InvalidSchemaError, a CfngenError
    with exit_code FAILED that carries the validation report, and nothing is written); then
    decides what to do with each path (`_plan`: files the user edited since cfngen wrote them
    raise HandEditsError unless edits="discard" or "keep"; only paths `Kind.may_derive` allows
    are ever written or removed) and writes them all in one transaction (cfngen._files): every
    file, or none, also when the process is killed. check=True writes nothing and lists the
    drifted files; force=True skips the no-op fast path.

conflicted_files(root, may_derive) -> {relpath: line}
    Files at paths the project's kind derives (and the manifest) that hold git's conflict
    markers (cfngen._files._conflicted, which `cfngen test`, `invoke` and `build` ask too),
    other than bytes cfngen recorded writing. generate derives again the ones that are
    cfngen's; `--check` fails while any is left.

The fast path needs only the standard library: it compares a fingerprint of the inputs and the
hashes of the derived files with the manifest (see `_ownership`) before anything heavy (the
validator, jinja, the models renderer) is imported.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._errors import CfngenError, ExitCode
from cfngen._files import Transaction, _ownership, read_optional, recover
from cfngen._files._conflicted import conflicted_files
from cfngen._progress import phase
from cfngen._project import load_project
from cfngen._render import Rendered

if TYPE_CHECKING:
    from cfngen._project import Project
    from cfngen._validate._file_report import FileReport


@dataclass
class GenerateResult:
    #: Derived files written (or, with check=True, that would be written: the drift).
    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    #: Files at a derived path that the user owns (no cfngen header): left alone.
    skipped: list[Path] = field(default_factory=list)
    #: Why each skipped file is the user's (by its posix path).
    skip_reasons: dict[str, str] = field(default_factory=dict)
    #: Where edited files were saved before being overwritten (edits="discard").
    saved: list[Path] = field(default_factory=list)
    #: With check=True: derived files edited by hand since cfngen wrote them.
    edited: list[Path] = field(default_factory=list)
    #: Derived files cfngen wrote earlier that the schema no longer produces (with check=True:
    #: that would be removed).
    removed: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: The validation report (None on the no-op path, which does not validate).
    report: FileReport | None = None
    #: Nothing had changed since the last generate: no file was rendered or written.
    up_to_date: bool = False
    #: Files cfngen derives that held git's conflict markers before this run, by posix path
    #: -> the line of the first (those in `written` were derived again).
    conflicts: dict[str, int] = field(default_factory=dict)

    @property
    def drift(self) -> list[Path]:
        """What --check reports: files out of date, including stale ones to remove, and
        files holding conflict markers."""
        paths = {*self.written, *self.removed, *self.edited, *map(Path, self.conflicts)}
        return sorted(paths)

    def failed(self, *, check: bool) -> bool:
        """--check found drift."""
        return check and bool(self.drift)

    def render(self, text: Rendered, *, check: bool) -> None:
        """stdout lists what generate did (with check: the drift); the rest goes to stderr."""
        if self.report is not None and self.report.diagnostics:
            from cfngen._validate import render_text

            text.err(render_text([self.report], text.paint_err).rstrip("\n"))
        for path in self.skipped:
            why = self.skip_reasons.get(path.as_posix(), "you took it over")
            text.err(
                f"cfngen: left {path.as_posix()} alone: {why}, so it is yours "
                "(delete it to have cfngen generate it)"
            )
        for message in self.warnings:
            text.warning(message)
        if check:
            for path in self.drift:
                line = self.conflicts.get(path.as_posix())
                if line is not None:
                    state = f"holds git conflict markers (line {line})"
                else:
                    state = "edited by hand" if path in self.edited else "out of date"
                text.out(f"{state}: {path.as_posix()}")
            if self.drift:
                text.err(
                    f"cfngen: {len(self.drift)} derived file(s) out of date; "
                    "run `cfngen generate` to refresh them"
                )
            else:
                text.out("cfngen: derived files are up to date")
            return
        for path in self.saved:
            text.out(f"saved your edited version as {path.as_posix()}")
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
            "saved": [p.as_posix() for p in self.saved],
            "edited": [p.as_posix() for p in self.edited],
            "warnings": list(self.warnings),
            "up_to_date": self.up_to_date,
            "conflicts": dict(sorted(self.conflicts.items())),
            "diagnostics": [d.as_json() for d in self.report.diagnostics] if self.report else [],
        }


class HandEditsError(CfngenError):
    """Derived files cfngen wrote were edited since: nothing was written."""

    def __init__(self, paths: list[str]) -> None:
        super().__init__(
            f"{len(paths)} generated file(s) were edited by hand since cfngen wrote them: "
            f"{', '.join(paths)}; nothing was written",
            "move your changes into your own files, then `cfngen generate --discard-edits` "
            "(it saves each edited file as <path>.cfngen-old first); or make them yours with "
            "`cfngen generate --keep-edits` (cfngen stops generating them)",
            exit_code=ExitCode.FAILED,
        )
        self.paths = paths


class InvalidSchemaError(CfngenError):
    """The schema did not validate: nothing was generated."""

    def __init__(self, report: FileReport) -> None:
        super().__init__(
            f"{report.path}: the schema is invalid; nothing was generated",
            "fix the problems listed above and run `cfngen generate` again",
            exit_code=ExitCode.FAILED,
        )
        self.report = report


def models_older_than_schema(project: Project) -> str | None:
    """A warning when the project's models.py is older than its schema and `cfngen generate`
    has not run on the schema as it is now (the manifest's fingerprint, when there is one,
    rules out a checkout that only touched the file times). Standard library only."""
    try:
        models = project.language.layout(project).package_dir / "models.py"
    except CfngenError:
        return None  # another language's project: no models of cfngen's
    try:
        older = models.stat().st_mtime < project.schema_path.stat().st_mtime
    except OSError:
        return None  # no models yet: importing the handlers says what to do
    if not older:
        return None
    kind = project.kind
    try:
        manifest = _ownership.load_manifest(
            project.root, lambda path: kind.may_derive(project, path)
        )
        current = _ownership.fingerprint(kind.generate_inputs(project))
    except CfngenError:  # generate itself will say what is wrong; the times are enough here
        current, manifest = "", _ownership.Manifest()
    if manifest.fingerprint and manifest.fingerprint == current:
        return None
    where = models.relative_to(project.root).as_posix()
    return (
        f"{where} is older than {project.schema_path.name}: the handlers run with models of "
        "an earlier schema; run `cfngen generate` first"
    )


def _left_conflicted(result: GenerateResult, said: Collection[str] = ()) -> list[str]:
    """Warnings for the files generate leaves with conflict markers, but those in `said`
    (derived again, or left with a reason that names the markers)."""
    return [
        f"{path} holds git conflict markers from line {line} and is not cfngen's to "
        "derive again: resolve them"
        for path, line in sorted(result.conflicts.items())
        if path not in said
    ]


def generate_project(
    root: Path, *, check: bool = False, force: bool = False, edits: str = "stop"
) -> GenerateResult:
    project = load_project(root)
    kind = project.kind
    notes = [*project.notes, *recover(root)]
    inputs = kind.generate_inputs(project)
    fingerprint = _ownership.fingerprint(inputs)
    manifest = _ownership.load_manifest(root, lambda path: kind.may_derive(project, path))
    notes += manifest.ignored
    conflicts = conflicted_files(root, lambda path: kind.may_derive(project, path), manifest)

    if not force and _ownership.is_up_to_date(root, manifest, fingerprint):
        result = GenerateResult(
            unchanged=[Path(p) for p in sorted(manifest.files)],
            skipped=[Path(p) for p in sorted(manifest.user_files)],
            up_to_date=True,
            conflicts=conflicts,
        )
        result.warnings += notes
        result.warnings += kind.generate_notes(project, inputs)
        if not check:
            result.warnings += _left_conflicted(result)
        return result

    derived = kind.derive(project, inputs)
    from cfngen._generate._plan import make_plan

    plan = make_plan(
        root,
        derived.files,
        manifest,
        edits=edits,
        until_edited=derived.until_edited,
        official_rewrites=derived.official_rewrites,
        official_outputs=derived.official_outputs,
        official_witness=derived.official_witness,
    )
    plan.manifest.fingerprint = fingerprint
    result = GenerateResult(report=derived.report, conflicts=conflicts)
    result.warnings += notes
    result.warnings += derived.warnings
    result.warnings += kind.generate_notes(project, inputs)
    result.warnings += plan.kept_stale.values()
    result.written = [Path(p) for p in sorted(plan.writes)]
    result.unchanged = [Path(p) for p in sorted(plan.unchanged)]
    result.skipped = [Path(p) for p in sorted(plan.skipped)]
    result.skip_reasons = dict(plan.skipped)
    result.removed = [Path(p) for p in plan.deletes]
    result.saved = [Path(p) for p in sorted(plan.saves)]
    # A file that is what generate derives (a description may hold marker-like lines)
    # holds no conflict.
    result.conflicts = {p: n for p, n in conflicts.items() if p not in plan.unchanged}
    if check:
        result.edited = [Path(p) for p in plan.edited]
        return result
    if plan.edited:
        raise HandEditsError(plan.edited)

    transaction = Transaction(root)
    for relpath, data in {**plan.saves, **plan.writes}.items():
        transaction.write(relpath, data)
    for relpath in plan.deletes:
        transaction.delete(relpath)
    manifest_text = plan.manifest.render().encode()
    if read_optional(root / _ownership.MANIFEST_PATH) != manifest_text:
        transaction.write(_ownership.MANIFEST_PATH, manifest_text)
    with phase("writing the files"):
        transaction.commit()
    said = [*plan.writes, _ownership.MANIFEST_PATH, *plan.skipped, *plan.kept_stale]
    result.warnings += _left_conflicted(result, said)
    return result
