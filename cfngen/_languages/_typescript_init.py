"""`cfngen init --language typescript [--example]`: a resource type with TypeScript handlers,
in the TypeScript plugin's layout (so `cfn generate/submit/test` work on it too).

The files come from `templates/typescript/` (Jinja, one fixed schema: an SSM parameter). With
`--example` the handlers work, through the AWS SDK for JavaScript v3, and pass their own
`cfngen test` once built; without it they are stubs that fail with InternalFailure, naming
themselves. Written here rather than through copier: the project is the plugin's layout, not a
cfngen template that `cfngen upgrade` merges (upgrades of TypeScript projects are the
plugin's).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from cfngen._errors import CfngenError
from cfngen._typename import TypeName

EXAMPLE_TYPE_NAME = "Example::SSM::Parameter"


@dataclass
class Made:
    root: Path
    files: list[str]
    commit: str | None = None
    notes: list[str] = field(default_factory=list)


def _templates() -> Path:
    shipped = Path(__file__).resolve().parent.parent / "templates" / "typescript"
    if shipped.is_dir():
        return shipped
    return Path(__file__).resolve().parents[2] / "templates" / "typescript"  # a source tree


def init_typescript(dest: Path, type_name: str | None, *, example: bool, git: bool) -> Made:
    """Render the project into `dest` (new or empty): nothing is written there unless every
    file was rendered."""
    import jinja2

    name = TypeName(type_name or EXAMPLE_TYPE_NAME)
    values = {
        "type_name": str(name),
        "package_name": name.hyphenated.lower(),
        "example": example,
    }
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_templates())),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,  # JSON and TypeScript, not HTML
    )
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".cfngen-init-", dir=dest.parent))
    umask = os.umask(0)
    os.umask(umask)
    staging.chmod(0o777 & ~umask)  # mkdtemp's folder is the owner's alone
    try:
        files = []
        for source in sorted(env.list_templates()):
            if not source.endswith(".jinja"):
                continue
            relative = source[: -len(".jinja")]
            relative = "/".join(
                "." + part[len("dot-") :] if part.startswith("dot-") else part
                for part in relative.split("/")
            )
            if relative == "schema.json":
                relative = name.schema_filename
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(env.get_template(source).render(values), "utf-8")
            files.append(relative)
        made = Made(dest, files)
        enclosing = _enclosing_repository(dest) if git else None
        if enclosing is not None:
            made.notes.append(
                f"{dest} is inside the git repository at {enclosing}: no new repository was "
                "made; commit the new files there"
            )
        elif git:
            made.commit = _commit(staging, name)
        if dest.exists():
            _move_files(staging, dest)
        else:
            os.rename(staging, dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    made.notes.append(
        "build it before `cfngen test`: npm install && npm run build (Node.js 20 and npm)"
    )
    return made


def _move_files(staging: Path, dest: Path) -> None:
    """Every rendered file into the existing `dest` (`--force`), none if one of them is there
    already: a file of the user's is never replaced."""
    files = sorted(p for p in staging.rglob("*") if not p.is_dir())
    taken = [
        p.relative_to(staging).as_posix() for p in files if (dest / p.relative_to(staging)).exists()
    ]
    if taken:
        raise CfngenError(
            f"{dest} already has {', '.join(taken[:5])}: nothing was written",
            "choose an empty folder, or move those files away",
        )
    for path in files:
        target = dest / path.relative_to(staging)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.rename(path, target)


def _enclosing_repository(dest: Path) -> Path | None:
    from cfngen._git import work_tree_root

    return work_tree_root(dest if dest.exists() else dest.parent)


def _commit(root: Path, name: TypeName) -> str | None:
    from cfngen._git import git, git_available, has_identity

    if not git_available():
        return None
    git(["init", "--quiet"], root)
    git(["add", "--all"], root)
    env = (
        None
        if has_identity(root)
        else {
            "GIT_AUTHOR_NAME": "cfngen",
            "GIT_AUTHOR_EMAIL": "cfngen@localhost",
            "GIT_COMMITTER_NAME": "cfngen",
            "GIT_COMMITTER_EMAIL": "cfngen@localhost",
        }
    )
    git(
        ["commit", "--quiet", "--no-verify", "--no-gpg-sign", "-m", f"Create {name} (TypeScript)"],
        root,
        env=env,
    )
    return git(["rev-parse", "--short", "HEAD"], root).stdout.strip()


def refuse_answers(given: dict[str, object]) -> None:
    """Only the type name and --example apply to a TypeScript project."""
    taken = ("type_name", "example")
    other = sorted(k for k, v in given.items() if v is not None and k not in taken)
    if other:
        raise CfngenError(
            f"--{other[0].replace('_', '-')} does not apply to a TypeScript project",
            "a TypeScript project takes --type-name and --example; leave the others out",
        )
