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
    p.add_argument(
        "--example",
        action="store_true",
        help="also validate the example resource schema that ships with cfngen",
    )
    p.set_defaults(run=_run_validate)


def _run_validate(args: argparse.Namespace) -> int:
    from cfngen._validate import (
        EXAMPLE_SCHEMA,
        render_json,
        render_summary,
        render_text,
        validate_paths,
    )

    paths = list(args.paths)
    if args.example:
        paths.append(EXAMPLE_SCHEMA)
    reports = validate_paths(paths or [Path.cwd()], strict=args.strict)
    if args.format == "json":
        sys.stdout.write(render_json(reports))
    else:
        sys.stdout.write(render_text(reports, colour=use_colour(sys.stdout)))
        sys.stdout.flush()
        sys.stderr.write(render_summary(reports))
    return ExitCode.OK if all(r.valid for r in reports) else ExitCode.FAILED


# --------------------------------------------------------------------------- generate


def _add_generate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "generate",
        help="write the files derived from the schema (models, role, SAM template, docs)",
        description=(
            "Validate the project's schema, then write the files derived from it: "
            "src/<package>/models.py and cfngen_runtime.py, resource-role.yaml, template.yml, "
            "src/requirements.txt, docs/ and example_inputs/. Each starts with a line saying "
            "cfngen generated it; a file at one of those paths without that line is yours "
            "and is left alone. handlers.py is never touched."
        ),
    )
    p.add_argument(
        "path",
        nargs="?",
        type=Path,
        metavar="PROJECT",
        help="the project folder (default: the current folder)",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 and list the files that are out of date",
    )
    p.add_argument("--force", action="store_true", help="regenerate even when nothing has changed")
    p.set_defaults(run=_run_generate)


def _run_generate(args: argparse.Namespace) -> int:
    from cfngen._generate import InvalidSchemaError, generate_project

    try:
        result = generate_project(args.path or Path.cwd(), check=args.check, force=args.force)
    except InvalidSchemaError as error:
        from cfngen._validate import render_text

        sys.stderr.write(render_text([error.report], colour=use_colour(sys.stderr)))
        raise
    # Diagnostics go to stderr: stdout lists what generate did (or, with --check, the drift).
    if result.report is not None and result.report.diagnostics:
        from cfngen._validate import render_text

        sys.stderr.write(render_text([result.report], colour=use_colour(sys.stderr)))
    for path in result.skipped:
        why = (
            "it is not what cfngen last wrote there"
            if path.suffix == ".json"
            else "it has no cfngen header"
        )
        print(
            f"cfngen: left {path.as_posix()} alone: {why}, so it is yours "
            "(delete it to have cfngen generate it)",
            file=sys.stderr,
        )
    for message in result.warnings:
        print_warning(message)
    if args.check:
        for path in result.drift:
            print(f"out of date: {path.as_posix()}")
        if result.drift:
            print(
                f"cfngen: {len(result.drift)} derived file(s) out of date; "
                "run `cfngen generate` to refresh them",
                file=sys.stderr,
            )
            return ExitCode.FAILED
        print("cfngen: derived files are up to date")
        return ExitCode.OK
    for path in result.written:
        print(f"wrote {path.as_posix()}")
    for path in result.removed:
        print(f"removed {path.as_posix()}")
    if result.up_to_date:
        print("cfngen: nothing changed since the last generate (use --force to regenerate)")
    else:
        print(
            f"cfngen: {len(result.written)} written, {len(result.unchanged)} unchanged, "
            f"{len(result.removed)} removed, {len(result.skipped)} left to you"
        )
    return ExitCode.OK


# --------------------------------------------------------------------------- invoke


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds: {text!r}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
    return value


def _add_invoke(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "invoke",
        help="run one handler action in-process, re-invoking while IN_PROGRESS",
        description=(
            "Run the project's handler for ACTION with the request in REQUEST_FILE (the JSON "
            "`cfn invoke` reads: desiredResourceState, previousResourceState, "
            "logicalResourceIdentifier, typeConfiguration, nextToken), in this process, "
            "through the handlers' Lambda entrypoint. Offline by default: fake credentials, "
            "and every AWS call answered by moto. Prints each progress event and the "
            "handler's own log output. Exit 0 on SUCCESS, 1 otherwise."
        ),
    )
    p.add_argument(
        "action",
        metavar="ACTION",
        help="CREATE, READ, UPDATE, DELETE or LIST; for a hook CREATE_PRE_PROVISION, "
        "UPDATE_PRE_PROVISION or DELETE_PRE_PROVISION (or preCreate, preUpdate, preDelete)",
    )
    p.add_argument(
        "request",
        type=Path,
        metavar="REQUEST_FILE",
        help="the request JSON file; for a hook, one target in the inputs/ format or a full "
        "hook request",
    )
    p.add_argument(
        "--project",
        type=Path,
        default=None,
        metavar="DIR",
        help="the project folder (default: the current folder)",
    )
    p.add_argument(
        "--profile",
        default=None,
        help="call real AWS with this profile's credentials instead of moto",
    )
    _add_handler_limits(p, max_reinvoke=100, after="stop after")
    _add_hook_options(p)
    p.add_argument(
        "--max-delay",
        type=float,
        default=5.0,
        metavar="S",
        help="sleep at most S seconds of callbackDelaySeconds between calls (default: 5)",
    )
    p.set_defaults(run=_run_invoke)


def _add_handler_limits(p: argparse.ArgumentParser, *, max_reinvoke: int, after: str) -> None:
    """The options invoke and test share: region, time limits, re-invocations."""
    p.add_argument("--region", default=None, help="the region (default: us-east-1)")
    p.add_argument(
        "--enforce-timeout",
        type=_seconds,
        default=None,
        metavar="S",
        help="time limit: S seconds for READ and LIST, 2S for the others (default: 30 and 60)",
    )
    p.add_argument(
        "--max-reinvoke",
        type=_count,
        default=max_reinvoke,
        metavar="N",
        help=f"{after} N re-invocations while IN_PROGRESS (default: {max_reinvoke})",
    )


def _add_hook_options(p: argparse.ArgumentParser) -> None:
    hook = p.add_argument_group("hooks")
    hook.add_argument(
        "--typeconfig",
        type=Path,
        default=None,
        metavar="FILE",
        help="the hook's type configuration: the SetTypeConfiguration JSON "
        "(CloudFormationConfiguration.HookConfiguration.Properties) or the properties alone",
    )
    hook.add_argument(
        "--export",
        dest="exports",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="the value of a CloudFormation export that inputs name as {{NAME}} (repeatable; "
        "default: a stand-in, as exports cannot be looked up offline)",
    )


def _exports(items: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise CfngenError(
                f"--export {item!r} is not NAME=VALUE", "e.g. --export KeyArn=arn:..."
            )
        out[name.strip()] = value
    return out


def _is_hook(path: Path) -> bool:
    from cfngen._project import load_project

    return load_project(path).artifact_type == "HOOK"


def _run_hook_invoke(args: argparse.Namespace) -> int:
    from cfngen._kinds.hook._report import render_answer, render_verdict
    from cfngen._kinds.hook._run import invoke_hook

    out = sys.stdout
    count = {"n": 0}

    def show(answer: object) -> None:
        count["n"] += 1
        out.write(render_answer(answer, count["n"], lambda t, s: paint(t, s, out)))  # type: ignore[arg-type]
        out.flush()

    def imported(lines: list[str]) -> None:
        out.write(paint("output while importing the handlers:", "bold", out) + "\n")
        out.write("".join(f"  | {line}\n" for line in lines))

    result = invoke_hook(
        args.project or Path.cwd(),
        args.action,
        args.request,
        region=args.region,
        enforce_timeout=args.enforce_timeout,
        max_reinvoke=args.max_reinvoke,
        typeconfig=args.typeconfig,
        exports=_exports(args.exports),
        profile=args.profile,
        on_answer=show,
        on_warning=print_warning,
        on_import_output=imported,
    )
    verdict = render_verdict(result.run)
    style = "ok" if result.succeeded else "error"
    print(f"cfngen: {paint(verdict, style, sys.stderr)}", file=sys.stderr)
    return ExitCode.OK if result.succeeded else ExitCode.FAILED


def _run_invoke(args: argparse.Namespace) -> int:
    if _is_hook(args.project or Path.cwd()):
        return _run_hook_invoke(args)
    args.action = args.action.upper()
    if args.action not in ("CREATE", "READ", "UPDATE", "DELETE", "LIST"):
        raise CfngenError(
            f"unknown action {args.action!r}", "use CREATE, READ, UPDATE, DELETE or LIST"
        )
    from cfngen._contract import invoke
    from cfngen._contract._report import render_invocation, render_outcome, render_wait

    out = sys.stdout

    def paint_out(text: str, style: str) -> str:
        return paint(text, style, out)

    def show(invocation: object) -> None:
        out.write(render_invocation(invocation, paint_out))  # type: ignore[arg-type]
        out.flush()

    def wait(seconds: float, asked: float) -> None:
        out.write(render_wait(seconds, asked, paint_out))
        out.flush()

    def imported(lines: list[str]) -> None:
        out.write(paint("output while importing the handlers:", "bold", out) + "\n")
        out.write("".join(f"  | {line}\n" for line in lines))

    result = invoke(
        args.project or Path.cwd(),
        args.action,
        args.request,
        profile=args.profile,
        region=args.region,
        enforce_timeout=args.enforce_timeout,
        max_reinvoke=args.max_reinvoke,
        max_delay=max(args.max_delay, 0.0),
        on_invocation=show,
        on_wait=wait,
        on_warning=print_warning,
        on_import_output=imported,
    )
    verdict = render_outcome(result.outcome)
    if result.succeeded:
        print(f"cfngen: {paint(verdict, 'ok', sys.stderr)}", file=sys.stderr)
        return ExitCode.OK
    print(f"cfngen: {paint(verdict, 'error', sys.stderr)}", file=sys.stderr)
    return ExitCode.FAILED


# --------------------------------------------------------------------------- test


def _add_test(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "test",
        help="check the handler contract in-process, offline, in seconds",
        description=(
            "Run the resource handler contract tests (the official contract_* tests and the "
            "rules they miss) in this process, with every AWS call answered by moto. Inputs "
            "come from inputs/inputs_N_{create,update,invalid}.json, as for `cfn test`, else "
            "are generated from the schema. Exit 0 when no test failed, 1 otherwise."
        ),
    )
    p.add_argument(
        "project",
        nargs="?",
        type=Path,
        default=None,
        metavar="PROJECT",
        help="the project folder (default: the current folder)",
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
        "--format",
        choices=("text", "json"),
        default="text",
        help="text (default) or one JSON document on stdout; progress goes to stderr",
    )
    _add_handler_limits(p, max_reinvoke=50, after="fail an action after")
    _add_hook_options(p)
    p.set_defaults(run=_run_test)


def _run_hook_test(args: argparse.Namespace) -> int:
    from cfngen._contract._report import render_json, render_progress, render_summary
    from cfngen._kinds.hook._run import no_test_ran, run_hook_tests

    err = sys.stderr

    def progress(result: object) -> None:
        err.write(render_progress(result, lambda t, s: paint(t, s, err)))  # type: ignore[arg-type]
        err.flush()

    result = run_hook_tests(
        args.project or Path.cwd(),
        keyword=args.keyword,
        enforce_timeout=args.enforce_timeout,
        max_reinvoke=args.max_reinvoke,
        region=args.region,
        typeconfig=args.typeconfig,
        exports=_exports(args.exports),
        on_result=progress,
    )
    for note in result.notes:
        print_warning(note)
    if args.format == "json":
        sys.stdout.write(render_json(result))
    else:
        sys.stdout.write(render_summary(result, lambda t, s: paint(t, s, sys.stdout)))
    if no_test_ran(result):
        print(
            f"cfngen: {paint('no test ran', 'error', sys.stderr)}: every test was skipped "
            "(see the reasons above)",
            file=sys.stderr,
        )
        return ExitCode.FAILED
    return ExitCode.OK if result.ok else ExitCode.FAILED


def _run_test(args: argparse.Namespace) -> int:
    if _is_hook(args.project or Path.cwd()):
        return _run_hook_test(args)
    from cfngen._contract import run_contract_tests
    from cfngen._contract._report import render_json, render_progress, render_summary

    err = sys.stderr

    def progress(result: object) -> None:
        err.write(render_progress(result, lambda t, s: paint(t, s, err)))  # type: ignore[arg-type]
        err.flush()

    result = run_contract_tests(
        args.project or Path.cwd(),
        keyword=args.keyword,
        enforce_timeout=args.enforce_timeout,
        max_reinvoke=args.max_reinvoke,
        region=args.region,
        on_result=progress,
    )
    for note in result.notes:
        print_warning(note)
    if args.format == "json":
        sys.stdout.write(render_json(result))
    else:
        sys.stdout.write(render_summary(result, lambda t, s: paint(t, s, sys.stdout)))
    return ExitCode.OK if result.ok else ExitCode.FAILED


# ---------------------------------------------------------------- init, upgrade, template


def _add_init(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from cfngen._init._answers import EXAMPLE_TYPE_NAME, HANDLERS, KEYS

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
        "--example",
        action="store_const",
        const=True,
        default=None,
        help="start from cfngen's working example instead of stubs: an SSM parameter whose "
        "handlers call AWS and pass every contract test (`cfngen test`) offline; the type "
        f"name defaults to {EXAMPLE_TYPE_NAME}",
    )
    p.add_argument(
        "--artifact-type",
        help="resource (the default) or hook (also RESOURCE, HOOK); modules and custom resources "
        "are not available yet",
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
    hook = p.add_argument_group("hooks (--artifact-type hook)")
    hook.add_argument(
        "--target",
        dest="targets",
        action="append",
        metavar="NAME",
        help="a target the hook checks (repeatable): a resource type such as AWS::S3::Bucket, a "
        "wildcard such as 'AWS::S3::*', STACK or CHANGE_SET (default: AWS::S3::Bucket)",
    )
    hook.add_argument(
        "--invocation-points",
        metavar="LIST",
        help="comma-separated from preCreate,preUpdate,preDelete (default: all three)",
    )
    hook.add_argument(
        "--config-property",
        dest="config_properties",
        action="append",
        metavar="NAME[:TYPE]",
        help="a type configuration setting (repeatable); TYPE is string (default), integer, "
        "number or boolean",
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
        help="never ask: use the flags and defaults, and fail if the type name is missing "
        "(unless --example)",
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
            "example": args.example,
            "artifact_type": args.artifact_type,
            "package_name": args.package_name,
            "runtime": args.runtime,
            "tagging": args.tagging,
            "type_configuration": args.type_configuration,
            "handlers": args.handlers,
            "targets": args.targets,
            "invocation_points": args.invocation_points,
            "config_properties": args.config_properties,
        },
        _answers.parse_data(args.data),
    )
    if args.no_input:
        if "type_name" not in given and not given.get("example"):
            raise CfngenError(
                "--no-input needs the type name",
                "pass --type-name Organization::Service::Resource (or --example for the "
                "working example)",
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
    if answers.example or not answers.handlers or answers.artifact_type == "HOOK":
        print("  cfngen test")
    else:
        print(
            "  cfngen test  (says 'not implemented' until you implement the handlers in "
            f"src/{answers.package_name}/handlers.py and delete their `# STUB:` lines)"
        )
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
    _add_generate,
    _add_invoke,
    _add_test,
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
