"""The schema a change is judged against: a file, the same file at a git revision, or the one
the registry has (with `--profile`, the only source that leaves the machine)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from cfngen._errors import CfngenError

REGISTRY = "registry"


@dataclass(frozen=True)
class Earlier:
    #: How the output names it: `HEAD~1:acme-x.json`, a path, `the registry (us-east-1)`.
    label: str
    #: The earlier schema's text; None when the schema did not exist there (a first version).
    text: str | None


def earlier(
    ref: str, schema: Path, *, type_name: str, kind: str, profile: str | None, region: str | None
) -> Earlier:
    if ref == REGISTRY:
        return _registry(type_name, kind, profile, region)
    given = Path(ref)
    if given.is_file():
        try:
            return Earlier(str(given), given.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise CfngenError(f"cannot read {given}: {exc}", "pass a readable UTF-8 file") from None
    return _revision(ref, schema)


def _revision(ref: str, schema: Path) -> Earlier:
    from cfngen._files import repository_root
    from cfngen._git import git, git_available

    hint = "pass a git revision (HEAD~1, main, v1.2.0), a schema file, or `registry` with --profile"
    if not git_available():
        raise CfngenError(f"{ref!r} is not a file, and git is not installed", hint)
    top = repository_root(schema.parent)
    if not (top / ".git").exists():
        raise CfngenError(
            f"{ref!r} is not a file, and {schema.parent} is not in a git repository", hint
        )
    # `--end-of-options`: a revision that starts with '-' is a revision, never an option.
    found = git(
        ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"],
        top,
        check=False,
    )
    if found.returncode != 0:
        raise CfngenError(f"{ref!r} is neither a file nor a revision of {top}", hint)
    commit = found.stdout.strip()
    relpath = Path(os.path.realpath(schema)).relative_to(os.path.realpath(top)).as_posix()
    shown = git(["cat-file", "blob", f"{commit}:{relpath}"], top, check=False)
    label = f"{ref}:{relpath}"
    return Earlier(label, shown.stdout if shown.returncode == 0 else None)


def _registry(type_name: str, kind: str, profile: str | None, region: str | None) -> Earlier:
    if profile is None:
        raise CfngenError(
            "comparing with the registry's schema calls AWS",
            "pass --profile NAME (and --region) to let that one call out",
        )
    from cfngen._extras import require

    require("build", "`cfngen validate --against registry`")
    import botocore.exceptions

    from cfngen._package._aws import aws_error, make_clients

    clients = make_clients(region=region, profile=profile, endpoint_url=None)
    label = f"the registry ({clients.region})"
    try:
        described = clients.cloudformation.describe_type(Type=kind, TypeName=type_name)
    except botocore.exceptions.ClientError as exc:
        if exc.response.get("Error", {}).get("Code") == "TypeNotFoundException":
            return Earlier(label, None)
        raise aws_error(exc, f"reading {type_name}'s schema from the registry") from None
    except botocore.exceptions.BotoCoreError as exc:
        raise aws_error(exc, f"reading {type_name}'s schema from the registry") from None
    return Earlier(label, described.get("Schema"))
