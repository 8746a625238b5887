"""`cfngen test [PROJECT]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._cli._options import (
    add_format,
    add_handler_options,
    add_kind_options,
    kind_options,
    project_folder,
    seed_options,
)
from cfngen._cli._output import painter, print_warning
from cfngen._cli._target_options import add_target_options, target_options
from cfngen._cli._watch import add_watch_options, run_watch
from cfngen._cli._watch import run_options as _run_options
from cfngen._errors import ExitCode

if TYPE_CHECKING:
    from cfngen._contract._results import SuiteResult
    from cfngen._contract._target import Target


#: The one line `cfngen --help` lists it with.
HELP = "check the handler contract in-process, offline, in seconds"


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "test",
        help=HELP,
        description=(
            "Run the resource handler contract tests (the official contract_* tests and the "
            "rules they miss) in this process, with every AWS call answered by moto and any "
            "other connection to a host off this machine refused (--allow-network lets those "
            "out). Inputs "
            "come from inputs/inputs_N_{create,update,invalid}.json, as for `cfn test`, else "
            "are generated from the schema. For a hook, its contract; for a custom resource, "
            "its lifecycle (create, update, replacement, rollbacks, duplicate delivery, an "
            "expired ResponseURL) against a local ResponseURL. TypeScript and Go handlers run as "
            "built (dist/ by `npm run build`, bin/bootstrap by `make`) in one process per run, "
            "speaking the Lambda Runtime API, against a moto server cfngen starts; their callback "
            "delays are slept for real, each at most --max-delay (docs/languages.md). Exit 0 "
            "when no test failed, 1 "
            "otherwise."
        ),
    )
    p.add_argument(
        "project",
        nargs="?",
        type=Path,
        default=None,
        metavar="PROJECT",
        help="the project folder, or a custom resource's template (default: the folder of "
        "--template when given, else the current folder)",
    )
    p.add_argument(
        "-k",
        dest="keyword",
        default=None,
        metavar="EXPR",
        help=(
            "run the tests whose names match EXPR: words (substrings of the name) joined "
            'with and, or, not and parentheses, as pytest -k; e.g. -k "delete and not list"'
        ),
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="fail what the tests only warn of where CloudFormation accepts it: a permission "
        "a handler needs that the schema declares only under another handler",
    )
    p.add_argument(
        "--fix-permissions",
        action="store_true",
        help="add the IAM actions handlers called and no handler declares to the schema's "
        "permissions lists (every other byte kept), print the diff; then `cfngen generate` "
        "makes resource-role.yaml follow",
    )
    p.add_argument(
        "--upgrade-from",
        metavar="REV",
        help="instead of the contract tests: the project as it was at git revision REV "
        "creates a resource, then this project's handlers read, update and delete it (on a "
        "moto server cfngen starts, or --endpoint-url): a resource made by the released "
        "handlers survives the new ones",
    )
    add_format(
        p,
        text_help="text (default: each test's line, then the summary, on stdout) or one JSON "
        "document on stdout (each test's line goes to stderr, as for the formats below)",
        ci=True,
    )
    add_handler_options(p, after="fail an action after")
    add_target_options(p, test=True)
    add_kind_options(p)
    add_watch_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cfngen._cli._confirm import confirm_target
    from cfngen._contract import run_contract_tests
    from cfngen._contract._results import (
        TestResult,
        render_json,
        render_progress,
        render_summary,
        render_transforms,
    )

    # Each test's line and the summary on one stream, so they stay in order when both are
    # redirected; with --format json, stdout holds only the document.
    lines = sys.stdout if args.format == "text" else sys.stderr
    paint_lines = painter(lines)

    verbose = getattr(args, "verbose", False)
    if getattr(args, "watch", False):
        return run_watch(args, _run_options(args))
    if getattr(args, "poll", False):
        from cfngen._errors import CfngenError

        raise CfngenError("--poll applies to --watch only", "add --watch, or leave out --poll")

    def progress(result: TestResult) -> None:
        lines.write(render_progress(result, paint_lines))
        if verbose:
            lines.write(render_transforms(result, paint_lines))
        lines.flush()

    confirm_target(args)
    if args.upgrade_from is not None:
        result = _upgrade(args, progress)
    else:
        result = run_contract_tests(
            project_folder(args),
            keyword=args.keyword,
            enforce_timeout=args.enforce_timeout,
            max_reinvoke=args.max_reinvoke,
            max_invocations=args.max_invocations,
            region=args.region,
            allow_network=args.allow_network,
            strict=args.strict,
            on_result=progress,
            seeds=seed_options(args),
            max_delay=max(args.max_delay, 0.0),
            keep=args.keep,
            on_target=_say_target,
            on_wait=_waiting if sys.stderr.isatty() else None,
            **target_options(args),
            **kind_options(args),
        )
    for note in result.notes:
        print_warning(note)
    if args.fix_permissions:
        _fix_permissions(project_folder(args), result)
    if args.format == "json":
        sys.stdout.write(render_json(result))
    elif args.format != "text":
        sys.stdout.write(_ci_report(args.format, project_folder(args), result))
        sys.stderr.write(render_summary(result, painter(sys.stderr)))
    else:
        sys.stdout.write(render_summary(result, painter(sys.stdout)))
    return ExitCode.OK if result.ok else ExitCode.FAILED


def _upgrade(args: argparse.Namespace, progress: Any) -> SuiteResult:
    from cfngen._contract import run_upgrade_test

    return run_upgrade_test(
        project_folder(args),
        args.upgrade_from,
        region=args.region,
        endpoint_url=target_options(args).get("endpoint_url"),
        on_result=progress,
    )


def _say_target(target: Target) -> None:
    """Where the calls go, on stderr before the first test, when it is not in-process moto."""
    if target.kind != "moto":
        sys.stderr.write(f"cfngen: {target.describe()}\n")
        sys.stderr.flush()


def _waiting(seconds: float, asked: float, simulated: bool) -> None:
    """A line for each real wait between handler calls (against an endpoint), on a terminal."""
    from cfngen._contract._report import render_wait

    sys.stderr.write(render_wait(seconds, asked, simulated, painter(sys.stderr)))
    sys.stderr.flush()


def _fix_permissions(root: Path, result: SuiteResult) -> None:
    """Add the missing permissions the run saw; the diff and what follows go to stderr, so
    a JSON or CI report on stdout stays one document."""
    from cfngen._contract._fix_permissions import fix_permissions

    diffs = fix_permissions(root, result.missing_permissions)
    if not diffs:
        sys.stderr.write("--fix-permissions: no permission is missing; nothing changed\n")
        return
    for diff in diffs.values():
        sys.stderr.write(diff)
    sys.stderr.write(
        f"--fix-permissions: added to {', '.join(diffs)}; run `cfngen generate` so that "
        "resource-role.yaml follows, then `cfngen test` again\n"
    )


def _ci_report(fmt: str, root: Path, result: SuiteResult) -> str:
    """JUnit, SARIF or GitHub annotations: one case per contract test, named by the project's
    type name, and failures pinned to the handlers file."""
    from cfngen._formats import render, suite_cases, suite_findings

    name, handlers = _project_names(root)
    return render(
        fmt,
        findings=suite_findings(result, path=handlers, root=root),
        cases=suite_cases(result, suite=name, path=handlers, root=root),
        tool="cfngen test",
    )


def _project_names(root: Path) -> tuple[str, str | None]:
    """The project's type name (the JUnit suite) and its handlers file, as findings name it."""
    from cfngen._errors import CfngenError
    from cfngen._formats import display_path
    from cfngen._project import load_project

    try:
        project = load_project(root)
        name = str(project.type_name)
    except (CfngenError, AttributeError, ValueError):
        return root.resolve().name, None
    try:
        handlers = project.language.layout(project).handlers_path
    except CfngenError:  # another language's handlers: findings name no Python file
        return name, None
    return name, display_path(handlers) if handlers.is_file() else None
