"""`cfngen build`: the registry package of a project, as `cfn submit --dry-run` names it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cfngen._errors import CfngenError
from cfngen._files import write_atomic
from cfngen._files._conflicted import refuse_conflicts
from cfngen._kind import FileSet, PackageContext
from cfngen._package._handler import HandlerZip, build_handler_zip
from cfngen._package._layout import package_name, source_files
from cfngen._package._limits import LAMBDA_ZIPPED
from cfngen._package._sources import ProjectFiles
from cfngen._package._stale import check_packed, derivation
from cfngen._package._zip import zip_bytes
from cfngen._project import Project, load_project


def file_set_for(project: Project) -> FileSet:
    """The project's kind's package, or a CfngenError when the registry takes no such kind."""
    file_set = project.kind.packaging
    if file_set is None:
        raise CfngenError(
            f"a {project.kind.label} is not registered with CloudFormation, so it has no "
            "package to build",
            "deploy its template with `sam deploy` or `aws cloudformation deploy`",
        )
    return file_set


@dataclass(frozen=True)
class BuildResult:
    project: Project
    file_set: FileSet
    path: Path
    data: bytes
    #: False when the file already held exactly these bytes.
    written: bool
    #: The archive's entries, sorted.
    files: tuple[str, ...]
    handler: HandlerZip | None
    warnings: tuple[str, ...]
    #: Symbolic links followed (path in the project, where it leads from the project), sorted.
    links: tuple[tuple[str, str], ...] = ()
    #: What the package does not hold although it is there (path in the project, why), sorted.
    excluded: tuple[tuple[str, str], ...] = ()


def build_package(
    root: Path | Project,
    *,
    include_boto3: bool = False,
    use_cache: bool = True,
    refresh: bool = False,
    pip_options: Sequence[str] = (),
    on_pip_line: Callable[[str], None] | None = None,
    write: bool = True,
) -> BuildResult:
    """Build the project's package (`root` is its folder, or the project already loaded);
    write it beside `.rpdk-config` unless `write` is False.

    Raises CfngenError when the package breaks a hard size limit or would carry a derived
    file generated from earlier inputs (_stale); nothing is written then.
    """
    project = root if isinstance(root, Project) else load_project(root.absolute())
    file_set = file_set_for(project)
    kind = project.kind
    refuse_conflicts(project.root, lambda path: kind.may_derive(project, path), "nothing was built")
    derived = derivation(project)
    handlers: list[HandlerZip] = []

    def handler_zip() -> bytes:
        built = build_handler_zip(
            project,
            source_files(context),
            include_boto3=include_boto3,
            use_cache=use_cache,
            refresh=refresh,
            pip_options=pip_options,
            on_line=on_pip_line,
        )
        handlers.append(built)
        return built.data

    context = PackageContext(project, handler_zip, ProjectFiles(project.root))
    entries = file_set.collect(context)
    handler = handlers[0] if handlers else None
    warnings = list(handler.warnings if handler else ()) + context.warnings
    warnings += check_packed(derived, context.files.packed)
    if handler is not None:
        zipped = LAMBDA_ZIPPED.problem(len(handler.data), "ResourceProvider.zip")
        if zipped:
            warnings.append(zipped)
    data = zip_bytes(entries, deflate=False)
    path = project.root / package_name(project)
    written = False
    if write and not _holds(path, data):
        write_atomic(path, data)
        written = True
    return BuildResult(
        project,
        file_set,
        path,
        data,
        written,
        tuple(sorted(entries)),
        handler,
        tuple(warnings),
        links=tuple(sorted(context.files.links.items())),
        excluded=tuple(sorted(context.files.excluded.items())),
    )


def _holds(path: Path, data: bytes) -> bool:
    try:
        return path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False
