"""Dependencies published only as source, built into wheels that a Lambda resolution can use.

pip cannot resolve for another platform and build sources in the same run (`--platform` needs
`--only-binary=:all:`), so to the Lambda resolution a release published only as an sdist does
not exist: pip answers ResolutionImpossible when another dependency needs it, and with a looser
pin quietly takes an older release that had a wheel, not the one the tests ran with. So pip on
this machine is asked which releases it would install from source for the same requirements
(`pip install --dry-run --report`, nothing installed); those the Lambda resolution lacks are
built into wheels and offered to it beside the index. A pure-Python wheel (`py3-none-any`)
suits every platform; a native one was compiled for this machine and is never offered.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

from cfngen._errors import CfngenError, ExitCode
from cfngen._package._pip import ProgressLine, last_error, pip_command, run_pip
from cfngen._package._platform import Platform


def source_releases(requirements: Path, pip_options: Sequence[str]) -> dict[str, str]:
    """The releases pip on this machine would install from an sdist: name -> version. Empty
    when it cannot resolve here (the Lambda resolution then says what is wrong)."""
    # Quiet, and no progress phase: it is a check beside the Lambda resolution, which shows its own.
    with tempfile.TemporaryDirectory(prefix="cfngen-report-") as folder:
        report = Path(folder) / "report.json"
        command = [
            *pip_command("install"),
            "--dry-run",
            "--ignore-installed",
            "--quiet",
            "--report",
            str(report),
            *pip_options,
            "--requirement",
            str(requirements.absolute()),
        ]
        code, _ = run_pip(command, requirements.parent, None)
        try:
            doc = json.loads(report.read_text(encoding="utf-8")) if code == 0 else {}
        except (OSError, ValueError):
            doc = {}
    found: dict[str, str] = {}
    for item in doc.get("install", []):
        info = item.get("download_info", {})
        # From an index or a file link (archive_info), not a folder or VCS checkout; an sdist.
        if "archive_info" in info and not info.get("url", "").endswith(".whl"):
            metadata = item.get("metadata", {})
            found[canonicalize_name(metadata["name"])] = str(metadata["version"])
    return found


def build_wheel(
    requirement: str,
    wheel_dir: Path,
    *,
    cwd: Path,
    pip_options: Sequence[str],
    on_line: ProgressLine | None,
) -> tuple[Path | None, str]:
    """Build `requirement` from its sdist (never a wheel) into `wheel_dir`: the new wheel, or
    None; and pip's output."""
    never_binary = ["--no-binary", requirement_name(requirement)]
    return _pip_wheel([*never_binary, requirement], wheel_dir, cwd, pip_options, on_line)


def build_local(
    folder: Path,
    wheel_dir: Path,
    *,
    pip_options: Sequence[str],
    on_line: ProgressLine | None,
) -> tuple[Path | None, str]:
    """A wheel of the local project in `folder` (its dependencies are the resolution's), or
    None; and pip's output."""
    return _pip_wheel([str(folder)], wheel_dir, folder.parent, pip_options, on_line)


def _pip_wheel(
    what: Sequence[str],
    wheel_dir: Path,
    cwd: Path,
    pip_options: Sequence[str],
    on_line: ProgressLine | None,
) -> tuple[Path | None, str]:
    """`pip wheel --no-deps` of `what` into `wheel_dir`: the wheel it made, or None; and
    pip's output."""
    before = set(wheel_dir.glob("*.whl"))
    command = [*pip_command("wheel"), "--no-deps", "--wheel-dir", str(wheel_dir), *pip_options]
    code, output = run_pip([*command, *what], cwd, on_line)
    new = sorted(set(wheel_dir.glob("*.whl")) - before)
    return (new[0] if code == 0 and new else None), output


def is_pure(wheel: Path) -> bool:
    _, _, _, tags = parse_wheel_filename(wheel.name)
    return all(tag.abi == "none" and tag.platform == "any" for tag in tags)


def native_error(wheel: Path, platform: Platform) -> CfngenError:
    name, version, _, _ = parse_wheel_filename(wheel.name)
    return CfngenError(
        f"{name} {version} has native code and publishes no wheel for "
        f"{platform.describe()}; built here it would be {wheel.name}, which Lambda cannot load",
        f"use a version of {name} with manylinux wheels for python{platform.python_version}, "
        "or build its wheel on Amazon Linux and pass the folder with --find-links",
        exit_code=ExitCode.FAILED,
    )


def unbuildable_error(requirement: str, platform: Platform, output: str) -> CfngenError:
    return CfngenError(
        f"{requirement}: pip finds no wheel for {platform.describe()} and no source to "
        f"build one from: {last_error(output)}",
        "check the name and version in requirements.txt; a package whose wheels need a "
        "newer glibc needs a newer runtime (python3.12 and later run on Amazon Linux 2023)",
        exit_code=ExitCode.FAILED,
    )


_NOT_FOUND = re.compile(r"No matching distribution found for (\S+)")


def missing_requirement(output: str) -> str | None:
    """The requirement a failed Lambda resolution found no wheel for, if it says one."""
    match = _NOT_FOUND.search(output)
    return match.group(1) if match else None


def requirement_name(requirement: str) -> str:
    try:
        return Requirement(requirement).name
    except InvalidRequirement:
        return requirement
