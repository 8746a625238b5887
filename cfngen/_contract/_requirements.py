"""A project's requirements, installed for a run of its handlers.

`cfngen invoke` and `cfngen test` import handlers into cfngen's own Python, so what they import
must be there. When a module is missing and the project lists requirements (requirements.txt at
the root of a resource type or hook, as `cfn init` lays it out; beside a custom resource's
function code), pip installs them into a folder of cfngen's home, once per content and Python
version, and the runner puts that folder on sys.path for the run.

cfngen's own packages always win: the lines naming what cfngen runs handlers with
(`PROVIDED`: the runtime library whose classes the runner reads, boto3 and botocore, which
moto patches, moto itself) are left out of the install, and the folder comes last on sys.path,
so a copy another requirement pulls in never shadows them. A handler that pins another
version of one of them runs with cfngen's.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path

from packaging.utils import canonicalize_name

from cfngen._errors import CfngenError
from cfngen._files import readable, repository_root
from cfngen._pip_input import pip_input

REQUIREMENTS_FILE = "requirements.txt"
#: Distributions cfngen runs handlers with (canonical names): never installed for a run.
PROVIDED = frozenset({"boto3", "botocore", "cloudformation-cli-python-lib", "moto"})
#: A requirement line's distribution name, when the line names one (PEP 508; not a path or URL).
_NAME = re.compile(r"^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?=$|[\[<>=!~;@\s(])")
_INCLUDE = re.compile(r"^(-r|--requirement|-c|--constraint)(\s*=?\s*)(\S+)(.*)$")
_EDITABLE = re.compile(r"^(-e|--editable)\b")


def to_install(requirements: Path) -> str | None:
    """The requirements text pip gets: without the lines naming what cfngen provides, with
    included files' paths made absolute; None when nothing is left to install (no file, or
    only comments and provided packages)."""
    try:
        text = requirements.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    kept: list[str] = []
    for line in text.replace("\\\n", "").splitlines():
        stripped = re.sub(r"(^|\s)#.*$", "", line).strip()
        if not stripped:
            continue
        name = _NAME.match(stripped)
        if name and canonicalize_name(name.group(1)) in PROVIDED:
            continue
        include = _INCLUDE.match(stripped)
        if include:
            option, sep, path, rest = include.groups()
            # pip reads it: held to the rule for what cfngen reads to run code.
            included = readable(
                requirements.parent / path,
                repository_root(requirements.parent),
                what=f"{requirements} includes {path}",
            )
            stripped = f"{option}{sep}{included}{rest}"
        kept.append(stripped)
    if not any(
        not line.startswith("-") or _INCLUDE.match(line) or _EDITABLE.match(line) for line in kept
    ):
        return None
    return "\n".join(kept) + "\n"


def install_requirements(requirements: Path) -> str:
    """`pip install -r requirements --target <cache>` (what `to_install` keeps), once per
    content and Python version; the folder installed into. Raises CfngenError naming what to
    install by hand when pip fails."""
    import shutil
    import subprocess

    from cfngen._init._template_cache import cfngen_home

    text = to_install(requirements)
    if text is None:
        raise CfngenError(
            f"{requirements}: lists nothing to install but what cfngen runs with",
            "add what the handlers import",
        )
    # pip gets copies of the local projects it names, never the project's folder itself.
    with pip_input(requirements, text) as given:
        key = hashlib.sha256((text + given.local + sys.version).encode()).hexdigest()[:16]
        target = cfngen_home() / REQUIREMENTS_FILE.removesuffix(".txt") / key
        if (target / ".complete").is_file():
            return str(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        building = target.with_name(f"{key}.{os.getpid()}.building")
        shutil.rmtree(building, ignore_errors=True)
        building.mkdir()
        (building / ".requirements.txt").write_text(text, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             "--no-input", "--target", str(building), "-r", str(given.path)],
            capture_output=True,
            text=True,
            check=False,
            cwd=given.path.parent,
            # cfngen's own install, in the user's environment: not the handler programs'
            # proxies (cfngen/_contract/_network.py sets them for child processes only).
            env=dict(os.environ),
        )  # fmt: skip
    if done.returncode != 0:
        shutil.rmtree(building, ignore_errors=True)
        raise CfngenError(
            f"{requirements}: pip could not install it for the run: {done.stderr.strip()[-500:]}",
            f"install it where cfngen runs (`{sys.executable} -m pip install -r {requirements}`),"
            " or fix it",
        )
    (building / ".complete").write_text("")
    try:
        building.rename(target)
    except OSError:  # another run installed the same text meanwhile
        shutil.rmtree(building, ignore_errors=True)
    return str(target)
