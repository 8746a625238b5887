"""`cfngen build [PROJECT]`; `build_package` is also `cfngen submit`'s first step."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._cli._output import painter, print_warning, rendered, show
from cfngen._errors import ExitCode

if TYPE_CHECKING:
    from cfngen._package import BuildResult


#: The one line `cfngen --help` lists it with.
HELP = "build the package `cfn submit` uploads, without Docker (other languages: check their build)"


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "build",
        help=HELP,
        description=(
            "Write the project's registry package (acme-svc-widget.zip, as `cfn submit "
            "--dry-run` names it) into the project folder: the official file set, with a "
            "deflated ResourceProvider.zip whose dependencies from requirements.txt are "
            "installed for the Lambda runtime's CPython version and architecture. The same "
            "inputs give the same bytes; with nothing changed it returns at once. pip's own "
            "output shows with -v. In a TypeScript, Go or Java project the build is the "
            "project's own (npm run build, make, mvn package): cfngen checks the built "
            "handlers are there and newer than their sources, and names the command when not "
            "(exit 2); the package for the registry is then the official `cfn submit`'s."
        ),
    )
    p.add_argument(
        "path",
        nargs="?",
        type=Path,
        metavar="PROJECT",
        help="the project folder (default: the current folder)",
    )
    add_package_options(p)
    p.set_defaults(run=run)


def add_package_options(p: argparse.ArgumentParser) -> None:
    """The options build and submit share: how the handler's dependencies are installed."""
    p.add_argument(
        "--include-boto3",
        action="store_true",
        help="also ship boto3, botocore and the rest of what Lambda provides (default: leave "
        "them out)",
    )
    p.add_argument(
        "--find-links",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help="a folder of wheels pip may install from besides the index (repeatable)",
    )
    p.add_argument(
        "--no-index",
        action="store_true",
        help="install from --find-links folders only, not from the package index",
    )
    p.add_argument(
        "--refresh",
        action="store_true",
        help="resolve requirements.txt again instead of reusing the last install of the same text",
    )
    p.add_argument(
        "--no-cache",
        dest="use_cache",
        action="store_false",
        help="neither use nor fill cfngen's build cache",
    )


def build_package(args: argparse.Namespace, root: Path, *, write: bool = True) -> BuildResult:
    """Build with the shared options; show what was built. pip's own output goes to stderr
    with -v only (its last error is in the message when it fails; the status line says what
    runs meanwhile)."""
    from cfngen._package import build_package as build
    from cfngen._package import render_build

    err = sys.stderr
    paint_err = painter(err)

    def pip_line(line: str) -> None:
        print(paint_err(f"  pip | {line}", "dim"), file=err, flush=True)

    result = build(
        root,
        include_boto3=args.include_boto3,
        use_cache=args.use_cache,
        refresh=args.refresh,
        pip_options=[
            *(["--no-index"] if args.no_index else []),
            *(option for d in args.find_links for option in ("--find-links", str(d.absolute()))),
        ],
        on_pip_line=pip_line if getattr(args, "verbose", False) else None,
        write=write,
    )
    for message in result.warnings:
        print_warning(message)
    if write and getattr(args, "format", "text") == "json":
        import json

        from cfngen._package import build_json

        sys.stdout.write(json.dumps(build_json(result), indent=2) + "\n")
        return result
    text = rendered()
    render_build(result, text)
    if write:
        show(text)
    else:  # submit and publish build on the way: what was built is progress, not their result
        import contextlib

        with contextlib.redirect_stdout(sys.stderr):
            show(text)
    return result


def run(args: argparse.Namespace) -> int:
    root = args.path or Path.cwd()
    if _checked_other_language(args, root):
        return ExitCode.OK
    build_package(args, root)
    return ExitCode.OK


def _checked_other_language(args: argparse.Namespace, root: Path) -> bool:
    """In a TypeScript, Go or Java project: check the handlers' own build is there and newer
    than its sources (a CfngenError naming the build command when not), and say so. The
    registry package is the official `cfn submit`'s there: its plugin packs the built handlers
    its own way (the Node modules, the Go binary, the shaded jar), nothing cfngen's Python
    packaging knows. False in a Python project (or a language cfngen has no rule for)."""
    from cfngen._project import load_project

    project = load_project(root)
    language = project.language
    if language.handlers or language.built is None:
        return False
    built = language.built(project.root, project.config)
    if getattr(args, "format", "text") == "json":
        import json

        out = {"language": language.name, **vars(built), "package": "cfn submit"}
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
        return True
    print(
        f"cfngen: {built.artefact} is built and newer than {built.sources} ({built.command}); "
        f"the registry package of {language.label} handlers is made by the official "
        f"`cfn submit` ({language.plugin})"
    )
    return True
