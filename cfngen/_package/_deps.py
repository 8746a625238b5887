"""A handler's dependencies, cross-installed for its Lambda runtime without Docker.

The official build runs `pip install -r requirements.txt --target build/` with whatever Python
runs it, so native wheels match the build machine (cp311 `.so` files in a python3.12 package).
Here pip resolves for the runtime instead: `--platform` with every manylinux tag the runtime's
Amazon Linux accepts, `--implementation cp`, `--python-version X.Y`, `--only-binary=:all:`.
pip is the resolver and installer; this module only chooses its arguments, has pure-Python
sdists built into wheels pip can then use (_from_source), and reads what pip installed.
"""

from __future__ import annotations

import contextlib
import csv
import email.parser
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.utils import canonicalize_name, canonicalize_version, parse_wheel_filename

from cfngen._errors import CfngenError, ExitCode
from cfngen._package._from_source import (
    build_local,
    build_wheel,
    is_pure,
    missing_requirement,
    native_error,
    requirement_name,
    source_releases,
    unbuildable_error,
)
from cfngen._package._pip import ProgressLine, last_error, pip_command, run_pip
from cfngen._package._platform import Platform
from cfngen._progress import advance, phase

#: What every Python Lambda runtime already has on its path (the runtimes page lists the SDK
#: each one includes; these are boto3 and what it depends on). Shipping them only makes the
#: package bigger; `--include-boto3` keeps them when a handler needs a newer SDK than Lambda's.
LAMBDA_PROVIDED = frozenset(
    {"boto3", "botocore", "jmespath", "python-dateutil", "s3transfer", "six", "urllib3"}
)


@dataclass(frozen=True)
class Distribution:
    """One installed distribution, as its .dist-info folder describes it."""

    name: str
    version: str
    #: The wheel tags it was installed from (`cp312-cp312-manylinux_2_17_x86_64`).
    tags: tuple[str, ...]
    #: Its files, relative to the install folder (from RECORD).
    files: tuple[str, ...]
    dist_info: str

    @property
    def native(self) -> bool:
        return any(not tag.endswith("-none-any") for tag in self.tags)


def provided_by_lambda(name: str) -> bool:
    return canonicalize_name(name) in LAMBDA_PROVIDED


@dataclass(frozen=True)
class Installed:
    #: (name, version) of the distributions resolved but left out (`leave_out`).
    left_out: list[tuple[str, str]]
    #: Canonical names of the installed distributions built here from their sdists.
    from_source: list[str]


def pip_install(
    requirements: Path,
    platform: Platform,
    dest: Path,
    *,
    leave_out: Callable[[str], bool] = lambda name: False,
    pip_options: Sequence[str] = (),
    on_line: ProgressLine | None = None,
    max_sdists: int = 20,
    local: Sequence[Path] = (),
) -> Installed:
    """Install `requirements` into `dest` for `platform`, except the distributions `leave_out`
    names.

    pip resolves and downloads (`pip download`, with the user's pip configuration and cache);
    the wheels are then unpacked with pypa's `installer`, in this process, so that what Lambda
    provides is never unpacked at all (botocore alone is 2,000 files). Releases published
    only as source are built into wheels first (_from_source); so is a requirement the Lambda
    resolution still finds no wheel for (one that only Lambda's Python version selects). A
    pure-Python result (`py3-none-any`) is offered to pip beside the index; a native one is
    refused, since it was compiled for this machine and not for Lambda.
    """
    with contextlib.ExitStack() as stack:
        built = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cfngen-wheels-")))

        def resolve() -> tuple[int, str, Path]:
            downloads = stack.enter_context(tempfile.TemporaryDirectory(prefix="cfngen-dl-"))
            command = [
                *pip_command("download"),
                "--dest",
                downloads,
                "--only-binary=:all:",
                "--implementation",
                "cp",
                "--python-version",
                platform.python_version,
                *(arg for tag in platform.tags for arg in ("--platform", tag)),
                "--find-links",
                str(built),
                *pip_options,
                "--requirement",
                str(requirements.absolute()),
            ]
            # pip's own lines only with -v (on_line): the status line names what runs.
            with phase(f"resolving {requirements.name} for CPython {platform.python_version}"):
                code, output = run_pip(command, requirements.parent, on_line)
            return code, output, Path(downloads)

        def build(requirement: str) -> tuple[Path | None, str]:
            return build_wheel(
                requirement,
                built,
                cwd=requirements.parent,
                pip_options=pip_options,
                on_line=on_line,
            )

        # This machine's resolution costs as much as Lambda's (~1.2 s of CPU): asked only
        # when Lambda's fails or picks a release other than the one installed here, the two
        # ways a release published only as source shows (ResolutionImpossible, or an older
        # release that had a wheel).
        code, output, downloads = resolve()
        resolved = _versions(downloads) if code == 0 else {}
        differs = code != 0 or _differs_from_here(resolved, leave_out)
        sources = source_releases(requirements, pip_options) if differs else {}
        offered = False
        for name, version in sources.items():
            if resolved.get(name) == version:
                continue  # Lambda has a wheel of the same release: this machine had none
            wheel, _ = build(f"{name}=={version}")
            if wheel is not None and not is_pure(wheel):
                wheel.unlink()  # if Lambda needs it after all, the resolution below names it
            offered = offered or (wheel is not None and wheel.exists())
        if offered:
            code, output, downloads = resolve()
        tried: set[str] = set()
        while code != 0:
            missing = missing_requirement(output)
            if missing is None or _key(missing) in tried or len(tried) >= max_sdists:
                raise _pip_failed(output, platform)
            tried.add(_key(missing))
            wheel, built_output = build(missing)
            if wheel is None:
                raise unbuildable_error(missing, platform, built_output)
            if not is_pure(wheel):
                raise native_error(wheel, platform)
            code, output, downloads = resolve()
        # The local projects the requirements name (`./lib`, `-e .`): pip resolved their
        # dependencies above, but saves no file of a folder; without this they were missing.
        mine = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cfngen-local-")))
        for folder in local:
            wheel, built_output = build_local(
                folder, mine, pip_options=pip_options, on_line=on_line
            )
            if wheel is None:
                raise unbuildable_error(str(folder.name), platform, built_output)
            if not is_pure(wheel):
                raise native_error(wheel, platform)
        ours = {w.name for w in [*built.glob("*.whl"), *mine.glob("*.whl")]}
        left_out: list[tuple[str, str]] = []
        from_source: list[str] = []
        wheels = sorted([*downloads.glob("*.whl"), *mine.glob("*.whl")], key=lambda w: w.name)
        with phase("installing dependencies", total=len(wheels)):
            for wheel in wheels:
                dist, release, _, _ = parse_wheel_filename(wheel.name)
                if leave_out(dist):
                    left_out.append((dist, str(release)))
                else:
                    _unpack(wheel, dest)
                    if wheel.name in ours:
                        from_source.append(dist)
                advance()
        return Installed(left_out, from_source)


def _differs_from_here(resolved: dict[str, str], leave_out: Callable[[str], bool]) -> bool:
    """Whether a resolved release differs from the one installed where cfngen runs (the one
    `cfngen test` imported), for a distribution that goes into the package."""
    from importlib import metadata

    for name, version in resolved.items():
        if leave_out(name):
            continue
        try:
            here = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
        if canonicalize_version(here) != canonicalize_version(version):
            return True
    return False


def _key(requirement: str) -> str:
    return canonicalize_name(requirement_name(requirement))


def _versions(downloads: Path) -> dict[str, str]:
    """What a resolution downloaded: canonical name -> version."""
    found = {}
    for wheel in downloads.glob("*.whl"):
        name, version, _, _ = parse_wheel_filename(wheel.name)
        found[str(name)] = str(version)
    return found


def _unpack(wheel: Path, dest: Path) -> None:
    """Install one wheel into `dest` as `pip install --target` lays it out."""
    from installer import install
    from installer.destinations import SchemeDictionaryDestination
    from installer.sources import WheelFile

    root = str(dest)
    scheme = {
        "purelib": root,
        "platlib": root,
        "data": root,
        "headers": os.path.join(root, "include"),
        "scripts": os.path.join(root, "bin"),
    }
    # The interpreter only goes into console scripts' shebangs; package_files drops bin/.
    destination = SchemeDictionaryDestination(scheme, "/usr/bin/python3", "posix")
    with WheelFile.open(wheel) as source:
        install(source, destination, {"INSTALLER": b"cfngen\n"})


def read_distributions(root: Path) -> list[Distribution]:
    """The distributions installed in `root`, sorted by name."""
    found = []
    parser = email.parser.HeaderParser()
    for info in sorted(root.glob("*.dist-info")):
        metadata = parser.parsestr((info / "METADATA").read_text(encoding="utf-8"))
        wheel = parser.parsestr(_read_optional(info / "WHEEL"))
        files = []
        with (info / "RECORD").open(encoding="utf-8", newline="") as handle:
            files = [row[0] for row in csv.reader(handle) if row]
        found.append(
            Distribution(
                name=str(metadata["Name"]),
                version=str(metadata["Version"]),
                tags=tuple(wheel.get_all("Tag") or ()),
                files=tuple(files),
                dist_info=info.name,
            )
        )
    return sorted(found, key=lambda d: canonicalize_name(d.name))


def package_files(root: Path, dropped: Iterable[Distribution]) -> dict[str, Path]:
    """The files under `root` to ship (archive name -> file), without the `dropped`
    distributions, console scripts (`bin/`, whose shebang names this machine's Python) and
    bytecode (compiled for this machine's Python, and Lambda compiles on import anyway)."""
    skip: set[str] = set()
    skip_dirs = {"bin"}
    for dist in dropped:
        skip_dirs.add(dist.dist_info)
        skip.update(_normalise(path) for path in dist.files)
    files = {}
    for path in root.rglob("*"):
        if not path.is_file():
            continue
        relative = path.relative_to(root)
        name = relative.as_posix()
        if (
            relative.parts[0] in skip_dirs
            or "__pycache__" in relative.parts
            or path.suffix in (".pyc", ".pyo")
            or name in skip
        ):
            continue
        files[name] = path
    return files


# ----------------------------------------------------------------------------- helpers


def _pip_failed(output: str, platform: Platform) -> CfngenError:
    return CfngenError(
        f"pip could not install the requirements for {platform.describe()}: {last_error(output)}",
        "fix requirements.txt (pip's output above says more)",
        exit_code=ExitCode.FAILED,
    )


def _normalise(record_path: str) -> str:
    parts: list[str] = []
    for part in record_path.replace("\\", "/").split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts)


def _read_optional(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
