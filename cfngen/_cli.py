"""The command line: parse options, call one core function, render its result or error.

Nothing else lives here. Core modules never print or exit; they return values or raise
CfngenError. Heavy libraries are imported inside the command that needs them so that
`cfngen --help` stays fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from cfngen import __version__
from cfngen._errors import CfngenError, ExitCode

Runner = Callable[[argparse.Namespace], int]


# --------------------------------------------------------------------------- output


def use_colour(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


_STYLES = {"error": "1;31", "warning": "1;33", "hint": "36", "ok": "32", "bold": "1", "dim": "2"}


def paint(text: str, style: str, stream: TextIO) -> str:
    if not use_colour(stream):
        return text
    return f"\033[{_STYLES[style]}m{text}\033[0m"


def print_error(error: CfngenError, stream: TextIO | None = None) -> None:
    stream = stream or sys.stderr
    print(f"cfngen: {paint('error', 'error', stream)}: {error.message}", file=stream)
    if error.hint:
        print(f"  {paint('hint', 'hint', stream)}: {error.hint}", file=stream)


def print_warning(message: str, stream: TextIO | None = None) -> None:
    stream = stream or sys.stderr
    print(f"cfngen: {paint('warning', 'warning', stream)}: {message}", file=stream)


# --------------------------------------------------------------------------- validate


def _add_validate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "validate",
        help="check resource schemas and report every problem at once",
        description=(
            "Check resource schemas: JSON syntax, duplicate keys, structure, and the semantic "
            "mistakes the official validator misses. Every problem is reported with its JSON "
            "pointer, line and column, and a hint."
        ),
    )
    p.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="schema files or project folders (default: the project in the current folder)",
    )
    p.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text (default) or one JSON document on stdout",
    )
    p.add_argument("--strict", action="store_true", help="treat warnings as errors")
    p.set_defaults(run=_run_validate)


def _run_validate(args: argparse.Namespace) -> int:
    from cfngen._validate import render_json, render_text, validate_paths

    reports = validate_paths(args.paths or [Path.cwd()], strict=args.strict)
    if args.format == "json":
        sys.stdout.write(render_json(reports))
    else:
        sys.stdout.write(render_text(reports, colour=use_colour(sys.stdout)))
    return ExitCode.OK if all(r.valid for r in reports) else ExitCode.FAILED


# ---------------------------------------------------------------- init, upgrade, template


def _add_init(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from cfngen._init._answers import HANDLERS, KEYS

    p = sub.add_parser(
        "init",
        help="create a project: a wizard, or flags and --no-input",
        description=(
            "Create a project for a new extension: answer the wizard (on a terminal) or pass "
            "the answers as flags with --no-input. The project is rendered from cfngen's copier "
            "template, its derived files are generated, and it becomes a git repository with "
            "one commit. `cfngen upgrade` later merges newer templates into it."
        ),
    )
    p.add_argument(
        "dir",
        nargs="?",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="the project folder (default: the current folder); must be empty or new",
    )
    p.add_argument(
        "-t", "--type-name", help="Organization::Service::Resource, e.g. Acme::Storage::Bucket"
    )
    p.add_argument(
        "--artifact-type",
        help="resource (the default; modules, hooks and custom resources are not available yet)",
    )
    p.add_argument(
        "--package-name", help="the Python package under src/ (default: from the type name)"
    )
    p.add_argument("--runtime", help="the Lambda runtime, e.g. python3.12 (default: the newest)")
    p.add_argument(
        "--tags",
        dest="tagging",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="give the starter schema a Tags property and declare it taggable (default: yes)",
    )
    p.add_argument(
        "--type-configuration",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="give the starter schema a typeConfiguration (default: no)",
    )
    p.add_argument(
        "--handlers",
        metavar="LIST",
        help=f"handlers to scaffold, comma-separated from {','.join(HANDLERS)}, or none "
        "(default: all)",
    )
    p.add_argument(
        "--data",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"set any answer (repeatable); keys: {', '.join(KEYS)}",
    )
    p.add_argument(
        "--no-input",
        action="store_true",
        help="never ask: use the flags and defaults, and fail if the type name is missing",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="write into a non-empty DIR, replacing same-named files",
    )
    p.add_argument(
        "--no-git", dest="git", action="store_false", help="do not make a git repository"
    )
    p.add_argument(
        "--template-version",
        metavar="VERSION",
        help="render an earlier template version this cfngen ships (default: the newest)",
    )
    p.set_defaults(run=_run_init)


def _display_path(path: Path) -> str:
    try:
        relative = path.relative_to(Path.cwd())
    except ValueError:
        return str(path)
    return "." if relative == Path() else str(relative)


def _run_init(args: argparse.Namespace) -> int:
    from cfngen._init import _answers
    from cfngen._init._scaffold import check_destination, init_project

    dest = args.dir.absolute()
    check_destination(dest, force=args.force)
    given = _answers.collect(
        {
            "type_name": args.type_name,
            "artifact_type": args.artifact_type,
            "package_name": args.package_name,
            "runtime": args.runtime,
            "tagging": args.tagging,
            "type_configuration": args.type_configuration,
            "handlers": args.handlers,
        },
        _answers.parse_data(args.data),
    )
    if args.no_input:
        if "type_name" not in given:
            raise CfngenError(
                "--no-input needs the type name",
                "pass --type-name Organization::Service::Resource",
            )
        answers = _answers.resolve(given)
    else:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise CfngenError(
                "cfngen init asks its questions on a terminal, and this is not one",
                "pass --no-input with the answers as flags, e.g. "
                "`cfngen init --no-input --type-name Acme::Svc::Widget widget`",
            )
        from cfngen._init._wizard import ask

        wizard_answers = ask(given, dest)
        if wizard_answers is None:
            print("Nothing was created.")
            return ExitCode.FAILED
        answers = wizard_answers
    result = init_project(
        dest,
        answers,
        force=args.force,
        use_git=args.git,
        template_version=args.template_version,
    )
    where = _display_path(result.root)
    out = sys.stdout
    print(
        f"{paint('Created', 'ok', out)} {answers.type_name} in {where} "
        f"({len(result.files)} files, template {result.template_version}, {answers.runtime})"
    )
    if result.commit:
        print(f"  git: one commit, {result.commit}")
    if result.generated is not None:
        for warning in result.generated.warnings:
            print_warning(warning)
    for note in result.notes:
        print_warning(note)
    print("Next:")
    if where != ".":
        print(f"  cd {where}")
    print("  python -m pip install -r requirements-dev.txt")
    print("  python -m pytest")
    print("  cfngen test")
    return ExitCode.OK


def _add_upgrade(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "upgrade",
        help="merge this cfngen's project template into a project, keeping your edits",
        description=(
            "Move a project made by `cfngen init` to the template this cfngen ships: a "
            "three-way merge (your edits stay; conflict markers only where you and the "
            "template changed the same lines), then `cfngen generate`. Needs a clean git tree "
            "and commits nothing: review with `git diff`."
        ),
    )
    p.add_argument(
        "dir",
        nargs="?",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="the project folder (default: the current folder)",
    )
    p.add_argument(
        "--recopy",
        action="store_true",
        help="last resort: render the template afresh over the project, replacing your edits "
        "to template files (the schema, callback-context.json and inputs/ are kept)",
    )
    p.set_defaults(run=_run_upgrade)


def _run_upgrade(args: argparse.Namespace) -> int:
    from cfngen._init._upgrade import upgrade_project

    if args.recopy:
        print_warning(
            "--recopy renders the template afresh: your edits to files that came from it "
            "(handlers.py, tests, README, ...) are replaced; the schema, "
            "callback-context.json and inputs/ are kept. Review with `git diff` and take back "
            "what you need with `git checkout -p`."
        )
    result = upgrade_project(args.dir, recopy=args.recopy)
    if result.up_to_date:
        print(f"Already on template {result.to_version}; nothing to do.")
        return ExitCode.OK
    verb = "Re-rendered" if result.recopied else "Upgraded"
    source = f"from template {result.from_version} " if result.from_version else ""
    print(
        f"{paint(verb, 'ok', sys.stdout)} {source}to template {result.to_version}: "
        f"{len(result.changed)} file(s) changed, nothing committed (review with `git diff`)"
    )
    for path in result.changed:
        print(f"  {path}")
    for path in result.conflicts:
        print_warning(
            f"{path}: conflict where both you and the template changed the same lines; "
            "resolve the '<<<<<<< before updating' ... '>>>>>>> after updating' markers"
        )
    for path in result.deleted_edited:
        print_warning(
            f"{path}: the new template has no such file, so it was deleted although you had "
            f"edited it; `git checkout HEAD -- {path}` brings it back"
        )
    if result.generated is not None:
        for warning in result.generated.warnings:
            print_warning(warning)
    if result.generate_error is not None:
        print_error(
            CfngenError(
                f"the upgrade is done, but cfngen generate failed: {result.generate_error}",
                "fix the problem, then run `cfngen generate`",
            )
        )
        return ExitCode.FAILED
    return ExitCode.FAILED if result.conflicts else ExitCode.OK


def _add_template(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "template",
        help="the local cache of project templates",
        description="Manage the local git cache that cfngen (and copier) render projects from.",
    )
    tsub = p.add_subparsers(dest="template_command", metavar="COMMAND", required=True)
    s = tsub.add_parser(
        "sync",
        help="build the template cache, so `cfngen upgrade` and `copier update` work here",
        description=(
            "Put every project template version this cfngen ships into the local git cache "
            "(~/.cfngen/templates/<kind>, or $CFNGEN_HOME/templates/<kind>). Run it once on a "
            "fresh machine or in CI before a plain `copier update --defaults`."
        ),
    )
    s.set_defaults(run=_run_template_sync)


def _run_template_sync(args: argparse.Namespace) -> int:
    from cfngen._init._templates import KINDS, sync

    for kind in KINDS:
        result = sync(kind)
        added = f" (added {', '.join(result.added)})" if result.added else ""
        replaced = (
            f" (replaced {', '.join(result.replaced)}: a development build of that version)"
            if result.replaced
            else ""
        )
        print(f"{result.src_path}: {', '.join(result.versions)}{added}{replaced}")
    return ExitCode.OK


# --------------------------------------------------------------------------- entry point

_COMMANDS: tuple[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None], ...] = (
    _add_validate,
    _add_init,
    _add_upgrade,
    _add_template,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cfngen",
        description=(
            "Build AWS CloudFormation extensions: validate schemas, generate models, "
            "run the handler contract in-process."
        ),
    )
    parser.add_argument("--version", action="version", version=f"cfngen {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in _COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    run: Runner = args.run
    try:
        return int(run(args))
    except CfngenError as error:
        print_error(error)
        return int(error.exit_code)
    except KeyboardInterrupt:
        print("cfngen: interrupted", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        # `cfngen validate | head`: the reader left; that is not our failure.
        sys.stderr.close()
        return int(ExitCode.OK)
    except Exception as exc:  # a bug in cfngen, not a user mistake
        if os.environ.get("CFNGEN_DEBUG"):
            raise
        print(
            f"cfngen: internal error: {type(exc).__name__}: {exc}\n"
            "  This is a bug in cfngen. Rerun with CFNGEN_DEBUG=1 for the traceback and "
            "report it with the command you ran.",
            file=sys.stderr,
        )
        return int(ExitCode.INTERNAL)
