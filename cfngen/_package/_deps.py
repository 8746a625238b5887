"""A handler's dependencies, cross-installed for its Lambda runtime without Docker.

The official build runs `pip install -r requirements.txt --target build/` with whatever Python
runs it, so native wheels match the build machine (cp311 `.so` files in a python3.12 package).
Here pip resolves for the runtime instead: `--platform` with every manylinux tag the runtime's
Amazon Linux accepts, `--implementation cp`, `--python-version X.Y`, `--only-binary=:all:`.
pip is the resolver and installer; this module only chooses its arguments, builds pure-Python
sdists into wheels pip can then use, and reads what pip installed.
"""

from __future__ import annotations

import csv
import email.parser
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

from cfngen._errors import CfngenError, ExitCode
from cfngen._package._platform import Platform
from cfngen._progress import advance, phase

#: What every Python Lambda runtime already has on its path (the runtimes page lists the SDK
#: each one includes; these are boto3 and what it depends on). Shipping them only makes the
#: package bigger; `--include-boto3` keeps them when a handler needs a newer SDK than Lambda's.
LAMBDA_PROVIDED = frozenset(
    {"boto3", "botocore", "jmespath", "python-dateutil", "s3transfer", "six", "urllib3"}
)

ProgressLine = Callable[[str], None]


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


def pip_install(
    requirements: Path,
    platform: Platform,
    dest: Path,
    *,
    leave_out: Callable[[str], bool] = lambda name: False,
    pip_options: Sequence[str] = (),
    on_line: ProgressLine | None = None,
    max_sdists: int = 20,
) -> list[tuple[str, str]]:
    """Install `requirements` into `dest` for `platform`, except the distributions `leave_out`
    names; the (name, version) of those left out.

    pip resolves and downloads (`pip download`, with the user's pip configuration and cache);
    the wheels are then unpacked with pypa's `installer`, in this process, so that what Lambda
    provides is never unpacked at all (botocore alone is 2,000 files). A requirement pip finds
    no wheel for is built from its sdist on this machine: a pure-Python result (`py3-none-any`)
    is then offered to pip beside the index; a native one is refused, since it was compiled for
    this machine and not for Lambda.
    """
    with (
        tempfile.TemporaryDirectory(prefix="cfngen-wheels-") as built,
        tempfile.TemporaryDirectory(prefix="cfngen-downloads-") as downloads,
    ):
        built_dir = Path(built)
        tried: set[str] = set()
        while True:
            command = [
                *_pip("download"),
                "--dest",
                downloads,
                "--only-binary=:all:",
                "--implementation",
                "cp",
                "--python-version",
                platform.python_version,
                *(arg for tag in platform.tags for arg in ("--platform", tag)),
                "--find-links",
                str(built_dir),
                *pip_options,
                "--requirement",
                str(requirements.absolute()),
            ]
            code, output = _run(command, requirements.parent, on_line)
            if code == 0:
                break
            missing = _missing_requirement(output)
            if (
                missing is None
                or canonicalize_name(_name(missing)) in tried
                or (len(tried) >= max_sdists)
            ):
                raise _pip_failed(output, platform)
            tried.add(canonicalize_name(_name(missing)))
            wheel = _build_sdist(
                missing,
                platform,
                built_dir,
                cwd=requirements.parent,
                pip_options=pip_options,
                on_line=on_line,
            )
            _require_pure(wheel, platform)
        left_out: list[tuple[str, str]] = []
        wheels = sorted(Path(downloads).glob("*.whl"))
        with phase("installing dependencies", total=len(wheels)):
            for wheel in wheels:
                name, version, _, _ = parse_wheel_filename(wheel.name)
                if leave_out(name):
                    left_out.append((name, str(version)))
                else:
                    _unpack(wheel, dest)
                advance()
        return left_out


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


def _pip(command: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pip",
        command,
        "--disable-pip-version-check",
        "--no-input",
        "--progress-bar",
        "off",
    ]


def _run(command: list[str], cwd: Path, on_line: ProgressLine | None) -> tuple[int, str]:
    """Run pip, passing each line of its output on as it comes; its exit code and output."""
    lines = []
    try:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            # Line by line as pip prints it: a pipe would otherwise get it in blocks, at the end.
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
        )
    except OSError as exc:
        raise CfngenError(f"cannot run pip: {exc}", "install pip beside cfngen") from None
    assert process.stdout is not None
    with process:
        for line in process.stdout:
            lines.append(line)
            if on_line is not None:
                on_line(line.rstrip("\n"))
    return process.returncode, "".join(lines)


_NOT_FOUND = re.compile(r"No matching distribution found for (\S+)")


def _missing_requirement(output: str) -> str | None:
    match = _NOT_FOUND.search(output)
    return match.group(1) if match else None


def _name(requirement: str) -> str:
    try:
        return Requirement(requirement).name
    except InvalidRequirement:
        return requirement


def _build_sdist(
    requirement: str,
    platform: Platform,
    wheel_dir: Path,
    *,
    cwd: Path,
    pip_options: Sequence[str],
    on_line: ProgressLine | None,
) -> Path:
    """Build `requirement` from its sdist (never a wheel) into `wheel_dir`; the new wheel."""
    before = set(wheel_dir.glob("*.whl"))
    command = [
        *_pip("wheel"),
        "--no-deps",
        "--no-binary",
        _name(requirement),
        "--wheel-dir",
        str(wheel_dir),
        *pip_options,
        requirement,
    ]
    code, output = _run(command, cwd, on_line)
    new = sorted(set(wheel_dir.glob("*.whl")) - before)
    if code != 0 or not new:
        raise CfngenError(
            f"{requirement}: pip finds no wheel for {platform.describe()} and no source to "
            f"build one from: {_last_error(output)}",
            "check the name and version in requirements.txt; a package whose wheels need a "
            "newer glibc needs a newer runtime (python3.12 and later run on Amazon Linux 2023)",
            exit_code=ExitCode.FAILED,
        )
    return new[0]


def _require_pure(wheel: Path, platform: Platform) -> None:
    name, version, _, tags = parse_wheel_filename(wheel.name)
    if all(tag.abi == "none" and tag.platform == "any" for tag in tags):
        return
    raise CfngenError(
        f"{name} {version} has native code and publishes no wheel for "
        f"{platform.describe()}; built here it would be {wheel.name}, which Lambda cannot load",
        f"use a version of {name} with manylinux wheels for python{platform.python_version}, "
        "or build its wheel on Amazon Linux and pass the folder with --find-links",
        exit_code=ExitCode.FAILED,
    )


def _pip_failed(output: str, platform: Platform) -> CfngenError:
    return CfngenError(
        f"pip could not install the requirements for {platform.describe()}: {_last_error(output)}",
        "fix requirements.txt (pip's output above says more)",
        exit_code=ExitCode.FAILED,
    )


def _last_error(output: str) -> str:
    errors = [line[len("ERROR: ") :] for line in output.splitlines() if line.startswith("ERROR: ")]
    if errors:
        return " ".join(errors[-2:])
    tail = [line for line in output.splitlines() if line.strip()]
    return tail[-1] if tail else "no output"


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
