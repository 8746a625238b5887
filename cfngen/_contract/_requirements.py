"""A project's requirements, installed for a run of its handlers.

`cfngen invoke` and `cfngen test` import handlers into cfngen's own Python, so what they import
must be there. When a module is missing and the project lists requirements (requirements.txt at
the root of a resource type or hook, as `cfn init` lays it out; beside a custom resource's
function code), pip installs them into a folder of cfngen's home, once per content and Python
version, and the runner puts that folder on sys.path for the run. The folder is an entry of the
cache `requirements` (cfngen/_files/_cache.py): every file of it is checked against its digest
before a run uses it, and a damaged one is installed again.

cfngen's own packages always win: the lines naming what cfngen runs handlers with
(`PROVIDED`: the runtime library whose classes the runner reads, boto3 and botocore, which
moto patches, moto itself) are left out of the install, and the folder comes last on sys.path,
so a copy another requirement pulls in never shadows them. A handler that pins another
version of one of them runs with cfngen's.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from packaging.utils import canonicalize_name

from cfngen._errors import CfngenError
from cfngen._files import Cache, readable, repository_root, sha256
from cfngen._pip_input import INCLUDE, pip_input, requirement_lines

REQUIREMENTS_FILE = "requirements.txt"
#: Distributions cfngen runs handlers with (canonical names): never installed for a run.
PROVIDED = frozenset({"boto3", "botocore", "cloudformation-cli-python-lib", "moto"})
#: A requirement line's distribution name, when the line names one (PEP 508; not a path or URL).
_NAME = re.compile(r"^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?=$|[\[<>=!~;@\s(])")
_EDITABLE = re.compile(r"^(-e|--editable)\b")
#: One install per requirements text and Python; the ones used last are kept.
CACHE = Cache("requirements", keep=16, what="the cache of requirements installed for runs")


def to_install(requirements: Path) -> str | None:
    """The requirements text pip gets: without the lines naming what cfngen provides, with
    included files' paths made absolute; None when nothing is left to install (no file, or
    only comments and provided packages)."""
    try:
        text = requirements.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    kept: list[str] = []
    for line in requirement_lines(text):
        name = _NAME.match(line)
        if name and canonicalize_name(name.group(1)) in PROVIDED:
            continue
        include = INCLUDE.match(line)
        if include:
            option, path, rest = include.groups()
            # pip reads it: held to the rule for what cfngen reads to run code.
            included = readable(
                requirements.parent / path,
                repository_root(requirements.parent),
                what=f"{requirements} includes {path}",
            )
            kept.append(f"{option} {included}{rest}")
        else:
            kept.append(line)
    if not any(
        not line.startswith("-") or INCLUDE.match(line) or _EDITABLE.match(line) for line in kept
    ):
        return None
    return "\n".join(kept) + "\n"


def install_requirements(requirements: Path) -> str:
    """`pip install -r requirements --target <folder>` (what `to_install` keeps), once per
    content and Python version (the cache `requirements` of cfngen's home, verified on every
    read); the folder installed into. Raises CfngenError naming what to install by hand when
    pip fails."""
    text = to_install(requirements)
    if text is None:
        raise CfngenError(
            f"{requirements}: lists nothing to install but what cfngen runs with",
            "add what the handlers import",
        )
    # pip gets copies of the local projects it names, never the project's folder itself.
    with pip_input(requirements, text) as given:
        key = sha256((text + given.local + sys.version).encode())[:16]
        found = CACHE.get_folder(key)
        if found is not None:
            return str(found)
        building = CACHE.new_folder()
        done = _pip_install(given.path, text, building)
        full = _no_room(done.stderr) if done.returncode != 0 else None
        if full is not None and CACHE.holds(building):
            # The cache's file system is full or read-only: this run installs elsewhere.
            CACHE.drop(building)
            building = CACHE.elsewhere(full)
            done = _pip_install(given.path, text, building)
    if done.returncode != 0:
        CACHE.drop(building)
        raise CfngenError(
            f"{requirements}: pip could not install it for the run: {done.stderr.strip()[-500:]}",
            f"install it where cfngen runs (`{sys.executable} -m pip install -r {requirements}`),"
            " or fix it",
        )
    stored = CACHE.put_folder(key, building)
    if stored is None:
        # Another run installed the same text meanwhile (use that), or the cache cannot keep
        # it: then the run uses what it installed, removed when this process ends or by the
        # cache's next clean-up.
        stored = CACHE.get_folder(key)
        if stored is None:
            return str(building)
        CACHE.drop(building)
    return str(stored)


def _pip_install(given: Path, text: str, target: Path) -> subprocess.CompletedProcess[str]:
    """pip installs `given` (the requirements as pip_input rewrote them) into `target`, which
    keeps `text` (the requirements as written) beside what was installed."""
    listed = target / ".requirements.txt"
    try:
        listed.write_text(text, encoding="utf-8")
    except OSError as exc:  # as pip would say it
        return subprocess.CompletedProcess([], 1, "", f"[Errno {exc.errno}] {exc.strerror}")
    return subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--no-input", "--target", str(target), "-r", str(given)],
        capture_output=True,
        text=True,
        check=False,
        cwd=given.parent,
        # cfngen's own install, in the user's environment: not the handler programs' proxies
        # (cfngen/_contract/_network.py sets them for child processes only).
        env=dict(os.environ),
    )  # fmt: skip


def _no_room(stderr: str) -> str | None:
    """Why pip could not write, when it failed for want of room (ENOSPC, EDQUOT) or of a
    writable file system (EROFS): pip says so only in words, with the errno."""
    import errno

    from cfngen._files import reason

    for code in (errno.ENOSPC, errno.EDQUOT, errno.EROFS):
        if f"[Errno {code}]" in stderr:
            return reason(OSError(code, os.strerror(code)))
    return None
