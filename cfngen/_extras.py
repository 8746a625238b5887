"""Optional dependencies: what a command needs beyond the base install.

`pip install cfngen` brings what `validate`, `generate` (also `--check`), `schema export`,
`runtime`, `module render`, `template sync` and `completion` need: the pre-commit hooks install
only that. `init`/`upgrade`, `invoke`/`test` and `build`/`submit` need the extras `init`, `test`
and `build` (`pip install "cfngen[all]"` for every command). The extras are read from cfngen's
own metadata (pyproject.toml's `[project.optional-dependencies]`), so this module holds no
second list.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from cfngen._errors import CfngenError

if TYPE_CHECKING:
    from packaging.requirements import Requirement


def require(extra: str, needed_by: str) -> None:
    """Raise CfngenError (exit 2) naming what to install when a distribution of `extra` is
    missing or at a version the extra does not allow; do nothing when all are there."""
    problems = _problems(extra)
    if problems:
        raise _error(needed_by, problems, extra)


def as_missing_extra(exc: ModuleNotFoundError, needed_by: str) -> CfngenError | None:
    """The message for an import of a module an extra provides (None: not one of those; the
    error is then a bug). The net under `require` for paths that import before checking."""
    name = (exc.name or "").partition(".")[0]
    extra = _extra_of_module(name)
    if extra is None:
        return None
    return _error(needed_by, _problems(extra) or [f"{name} (not importable)"], extra)


def _error(needed_by: str, problems: list[str], extra: str) -> CfngenError:
    return CfngenError(
        f'{needed_by} needs cfngen\'s optional dependencies "{extra}": {", ".join(problems)}',
        f'install them: python -m pip install "cfngen[{extra}]" (or "cfngen[all]" for every '
        "command)",
    )


def _problems(extra: str) -> list[str]:
    from importlib.metadata import PackageNotFoundError, version

    problems = []
    for requirement in _requirements().get(extra, []):
        try:
            installed = version(requirement.name)
        except PackageNotFoundError:
            problems.append(f"{requirement.name} (not installed)")
            continue
        if not requirement.specifier.contains(installed, prereleases=True):
            problems.append(f"{requirement.name}{requirement.specifier} ({installed} is installed)")
        problems.extend(_missing_for_extras(requirement))
    return problems


def _missing_for_extras(requirement: Requirement) -> list[str]:
    """What the extras of an installed requirement bring and is missing: `moto[s3]` installed
    as plain `moto` has no py-partiql-parser, and a handler's S3 call fails with `No module
    named ...` (moto imports its services' libraries at the first call)."""
    from importlib.metadata import PackageNotFoundError, requires, version

    from packaging.requirements import Requirement

    if not requirement.extras:
        return []
    missing = []
    for text in requires(requirement.name) or []:
        needed = Requirement(text)
        if needed.marker is None or not any(
            needed.marker.evaluate({"extra": extra}) for extra in requirement.extras
        ):
            continue
        try:
            version(needed.name)
        except PackageNotFoundError:
            missing.append(f"{needed.name} (not installed; {requirement} needs it)")
    return missing


@functools.cache
def _requirements() -> dict[str, list[Requirement]]:
    """Each command extra's requirements, in the order the metadata lists them, from the
    installed cfngen's metadata ({} when cfngen runs from a source tree that was never
    installed: nothing can be checked then)."""
    from importlib.metadata import PackageNotFoundError, metadata, requires

    from packaging.requirements import Requirement

    try:
        extras = metadata("cfngen").get_all("Provides-Extra") or []
        texts = requires("cfngen") or []
    except PackageNotFoundError:
        return {}
    requirements = [Requirement(text) for text in texts]
    by_extra = {
        extra: [
            r for r in requirements if r.marker is not None and r.marker.evaluate({"extra": extra})
        ]
        for extra in extras
    }
    # An extra holding another ("all", "dev": whether the metadata names cfngen's own extras
    # or lists their requirements) is a collection, not what a command needs.
    names = {extra: {_canonical(r.name) for r in found} for extra, found in by_extra.items()}
    return {
        extra: found
        for extra, found in by_extra.items()
        if "cfngen" not in names[extra]
        and not any(other != extra and names[other] < names[extra] for other in names)
    }


def _extra_of_module(module: str) -> str | None:
    # An import name is its distribution's name with `-` as `_` for every extra's distribution
    # (cloudformation_cli_python_lib, time_machine); botocore comes with boto3.
    wanted = _canonical("boto3" if module == "botocore" else module)
    for extra, requirements in _requirements().items():
        for requirement in requirements:
            if _canonical(requirement.name) == wanted:
                return extra
    return None


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()
