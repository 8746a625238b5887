"""A package never carries what cfngen derived from other inputs than the project has now.

The manifest (`.cfngen/generated.json`, cfngen/_files/_ownership.py) records a fingerprint
of the inputs the derived files were generated from: the schema, `.rpdk-config`, ... When it
still matches, nothing is stale and nothing more is read. When it does not, `cfngen generate
--check` says what generate would change now: a file it would rewrite or remove (still cfngen's,
as generate's own ownership rules tell) or one edited by hand that generate would stop on is
stale, and the build refuses to pack it (exit 1: run `cfngen generate`). A derived file the user
owns (a resource's input they edited, a link) is theirs: packed, with a warning that names it.
Derived files the package does not hold (template.yml, docs/) stop nothing here;
`cfngen generate --check` reports them.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from cfngen._errors import CfngenError, ExitCode
from cfngen._project import Project


@dataclass(frozen=True)
class Derivation:
    #: Derived files generate would rewrite or remove, by path: generated from earlier inputs.
    stale: tuple[str, ...] = ()
    #: Derived files edited by hand that generate would stop on.
    edited: tuple[str, ...] = ()
    #: Files at derived paths that are the user's, by path -> why.
    users: dict[str, str] = field(default_factory=dict)


def derivation(project: Project) -> Derivation:
    """What generate would change in `project` now; nothing when the manifest's fingerprint
    matches the inputs, or there is no manifest (a project cfngen never generated)."""
    from cfngen._files import _ownership
    from cfngen._generate import InvalidSchemaError, generate_project

    kind = project.kind
    manifest = _ownership.load_manifest(project.root, lambda path: kind.may_derive(project, path))
    if not manifest.fingerprint:
        return Derivation()
    try:
        current = _ownership.fingerprint(kind.generate_inputs(project))
    except CfngenError:  # inputs generate cannot read: the parts that pack them say why
        return Derivation()
    if manifest.fingerprint == current:
        return Derivation()
    try:
        result = generate_project(project.root, check=True)
    except InvalidSchemaError as error:
        raise CfngenError(
            f"{Path(error.report.path).name} is invalid, and the derived files were generated from "
            "an earlier version of it; nothing was built",
            "fix it (`cfngen validate` lists every problem), run `cfngen generate`, then build",
            exit_code=ExitCode.FAILED,
        ) from error
    present = [p.as_posix() for p in result.written if (project.root / p).is_file()]
    return Derivation(
        stale=tuple(sorted([*present, *(p.as_posix() for p in result.removed)])),
        edited=tuple(p.as_posix() for p in result.edited),
        users={p.as_posix(): result.skip_reasons.get(p.as_posix(), "") for p in result.skipped},
    )


def check_packed(found: Derivation, packed: Collection[str]) -> list[str]:
    """Warnings about packed files the user owns; a CfngenError (exit 1) naming every packed
    file that is stale."""
    stale = [p for p in found.stale if p in packed]
    edited = [p for p in found.edited if p in packed]
    source = "version of the project's inputs (its schema, .rpdk-config)"
    if stale or edited:
        parts = []
        if stale:
            parts.append(f"{', '.join(stale)} {_were(stale)} generated from an earlier {source}")
        if edited:
            parts.append(
                f"{', '.join(edited)} {_were(edited)} generated from an earlier {source} and "
                "edited by hand since"
            )
        raise CfngenError(
            "; ".join(parts) + ": the package would carry them as they are; nothing was built",
            "run `cfngen generate`, then build again",
            exit_code=ExitCode.FAILED,
        )
    return [
        f"{path} is yours ({why or 'you took it over'}), so cfngen did not derive it from the "
        "project's inputs as they are now (its schema, .rpdk-config): check that it still "
        "fits them; it goes into the package as it is"
        for path, why in sorted(found.users.items())
        if path in packed
    ]


def _were(paths: list[str]) -> str:
    return "was" if len(paths) == 1 else "were"
