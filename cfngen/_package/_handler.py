"""ResourceProvider.zip: the handler package and its dependencies, deflated, for Lambda.

Its bytes are a pure function of the requirements (as resolved once and cached, see _cache),
the platform, the handler package's files and `include_boto3`, so a rebuild with nothing
changed reads one cached file.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._errors import CfngenError, ExitCode
from cfngen._files import reason, sha256
from cfngen._package import _cache
from cfngen._package._limits import LAMBDA_UNZIPPED
from cfngen._package._platform import Platform, handler_platform
from cfngen._package._zip import zip_bytes
from cfngen._pip_input import pip_input
from cfngen._project import Project

if TYPE_CHECKING:
    from cfngen._package._deps import Distribution

REQUIREMENTS_FILE = "requirements.txt"
#: In a dependency cache entry: the installed files, and what was left out of them.
_SITE = "site"
_LEFT_OUT = "left-out.json"
_FROM_SOURCE = "from-source.json"
_NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS})


@dataclass(frozen=True)
class Shipped:
    name: str
    version: str
    #: The wheel tag it was installed from when it holds native code, else "".
    native_tag: str
    #: Built here from its sdist (pure Python: it publishes no wheel of this release).
    from_source: bool = False


@dataclass(frozen=True)
class HandlerZip:
    data: bytes
    platform: Platform
    shipped: tuple[Shipped, ...]
    #: Distributions resolved but left out because Lambda provides them.
    left_out: tuple[str, ...]
    unzipped_size: int
    from_cache: bool
    warnings: tuple[str, ...]


def build_handler_zip(
    project: Project,
    sources: Mapping[str, Path],
    *,
    include_boto3: bool = False,
    use_cache: bool = True,
    refresh: bool = False,
    pip_options: Sequence[str] = (),
    on_line: Callable[[str], None] | None = None,
) -> HandlerZip:
    from cfngen._extras import require

    require("build", "building handlers (`cfngen build`, `cfngen submit`)")
    platform, warnings = handler_platform(project)
    requirements = project.root / REQUIREMENTS_FILE
    if requirements.is_file():
        text = _cache.requirements_text(requirements)
    else:
        text = ""
        warnings.append(
            f"{REQUIREMENTS_FILE}: no such file, so the handler zip holds the handler package "
            "alone; add cloudformation-cli-python-lib there, or the handler cannot import"
        )
    cacheable = use_cache and text is not None
    deps_key = _cache.digest(
        "deps", text, platform, include_boto3, sorted(pip_options), _cache.pip_environment()
    )
    handler_key = _cache.digest(
        "handler", deps_key, include_boto3, [(n, _sha256(p)) for n, p in sources.items()]
    )
    if cacheable and not refresh:
        hit = _cached_handler(handler_key, platform, warnings)
        if hit is not None:
            return dataclasses.replace(hit, warnings=(*hit.warnings, *tested_versions(hit)))

    # Only a build that misses the cache needs pip, installer and wheel metadata.
    from packaging.utils import canonicalize_name

    from cfngen._package._deps import (
        Installed,
        package_files,
        pip_install,
        provided_by_lambda,
        read_distributions,
    )

    temporary: list[Path] = []
    try:
        deps = _cache.DEPS.get_folder(deps_key) if cacheable and not refresh else None
        if deps is None:
            folder = (
                _cache.DEPS.new_folder()
                if cacheable
                else Path(tempfile.mkdtemp(prefix="cfngen-deps-"))
            )
            temporary.append(folder)

            def fill(folder: Path) -> None:
                (folder / _SITE).mkdir()
                installed = Installed([], [])
                if text is None or _has_requirements(text):
                    # pip gets copies of the local projects it names: it builds them in place.
                    with pip_input(requirements) as given:
                        installed = pip_install(
                            given.path,
                            platform,
                            folder / _SITE,
                            leave_out=(lambda name: False) if include_boto3 else provided_by_lambda,
                            pip_options=pip_options,
                            on_line=on_line,
                            local=given.folders,
                        )
                (folder / _LEFT_OUT).write_text(json.dumps(installed.left_out), "utf-8")
                (folder / _FROM_SOURCE).write_text(json.dumps(installed.from_source), "utf-8")

            try:
                fill(folder)
            except OSError as exc:
                if not _cache.DEPS.holds(folder) or exc.errno not in _NO_ROOM:
                    raise
                # The cache's file system is full or read-only: this build installs elsewhere.
                _cache.DEPS.drop(folder)
                folder = _cache.DEPS.elsewhere(reason(exc))
                temporary.append(folder)
                fill(folder)
            stored = (
                _cache.DEPS.put_folder(deps_key, folder, replace=refresh) if cacheable else None
            )
            deps = stored or folder
        dists = read_distributions(deps / _SITE)
        from_source = {canonicalize_name(n) for n in json.loads(_read(deps / _FROM_SOURCE))}
        left_out = tuple(f"{name} {version}" for name, version in _read_left_out(deps))
        files = package_files(deps / _SITE, ())
        files.update(sources)  # the handler package wins over a same-named dependency file
        unzipped = sum(f.stat().st_size for f in files.values())
        problem = LAMBDA_UNZIPPED.problem(unzipped, "the handler, unzipped,")
        if problem:
            raise CfngenError(
                problem,
                "ship only what the handler imports (requirements.txt); without "
                "--include-boto3 Lambda's own SDK is left out",
                exit_code=ExitCode.FAILED,
            )
        data = zip_bytes(files, deflate=True, what="the handler and its dependencies")
    finally:
        for path in temporary:
            _cache.DEPS.drop(path)
    shipped = tuple(_shipped(d, canonicalize_name(d.name) in from_source) for d in dists)
    if cacheable:
        summary = {
            "shipped": [[s.name, s.version, s.native_tag, s.from_source] for s in shipped],
            "left_out": list(left_out),
            "unzipped_size": unzipped,
        }
        # One entry: the summary (JSON, which never holds a NUL byte), a NUL, the zip.
        _cache.HANDLERS.put(handler_key, json.dumps(summary).encode() + b"\0" + data)
    built = HandlerZip(data, platform, shipped, left_out, unzipped, False, tuple(warnings))
    return dataclasses.replace(built, warnings=(*built.warnings, *tested_versions(built)))


def tested_versions(handler: HandlerZip) -> list[str]:
    """One warning naming every packed distribution whose version differs from the one
    installed where cfngen runs (this process): `cfngen test` imported the handlers with it."""
    from importlib import metadata

    from packaging.version import InvalidVersion, Version

    differ = []
    for shipped in handler.shipped:
        try:
            here = metadata.version(shipped.name)
            same = Version(here) == Version(shipped.version)
        except (metadata.PackageNotFoundError, InvalidVersion):
            continue
        if not same:
            how = ", built from its source" if shipped.from_source else ""
            differ.append(f"{shipped.name} {shipped.version}{how} (tested with {here})")
    if not differ:
        return []
    return [
        "the package holds other versions than `cfngen test` runs the handlers with (those "
        f"installed here): {'; '.join(differ)}; pin the versions you mean in requirements.txt "
        "and install the same here"
    ]


def _has_requirements(text: str) -> bool:
    """Whether pip has anything to install (it refuses a file of comments only)."""
    return any(line.split("#")[0].strip() for line in text.splitlines())


def _cached_handler(key: str, platform: Platform, warnings: list[str]) -> HandlerZip | None:
    entry = _cache.HANDLERS.get(key)
    if entry is None:
        return None
    head, _, data = entry.partition(b"\0")
    try:
        summary = json.loads(head)
        shipped = tuple(Shipped(*row) for row in summary["shipped"])
        return HandlerZip(
            data,
            platform,
            shipped,
            tuple(summary["left_out"]),
            int(summary["unzipped_size"]),
            True,
            tuple(warnings),
        )
    except (ValueError, KeyError, TypeError):
        return None  # verified, so written by a cfngen whose entry had another shape


def _read_left_out(deps: Path) -> list[tuple[str, str]]:
    return [(str(n), str(v)) for n, v in json.loads((deps / _LEFT_OUT).read_text("utf-8"))]


def _shipped(dist: Distribution, from_source: bool) -> Shipped:
    native = next((t for t in dist.tags if not t.endswith("-none-any")), "")
    return Shipped(dist.name, dist.version, native, from_source)


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _sha256(path: Path) -> str:
    return sha256(path.read_bytes())
