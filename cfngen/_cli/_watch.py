"""`cfngen test --watch`: a compact verdict on stdout after every save (cfngen/_watch.py)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._cli._output import painter, print_warning
from cfngen._errors import CfngenError, ExitCode

if TYPE_CHECKING:
    from cfngen._watch import Verdict

#: At most this many failed tests are named under a verdict (the rest are counted).
SHOWN_FAILURES = 5


def run_watch(args: argparse.Namespace, options: dict[str, object]) -> int:
    """Watch until Ctrl-C (or SIGTERM): exit 0 then, as the session ended as asked."""
    from cfngen._cli._options import project_folder
    from cfngen._watch import Session
    from cfngen._watch_warm import prepare

    _refuse(args)
    _refuse_language(project_folder(args))
    poll = args.poll
    if not poll:
        try:
            import watchfiles  # noqa: F401
        except ImportError:
            poll = True
            print_warning(
                "watchfiles is not installed (cfngen[test] installs it): looking at the files "
                "every 50 ms instead of receiving file events"
            )
    prepare()
    session = Session(project_folder(args), options, poll=poll)
    how = "polling every 50 ms" if poll else "native file events"
    out = sys.stdout
    paint = painter(out)
    out.write(paint(f"watching {session.root} ({how}); Ctrl-C ends it\n", "dim"))
    out.flush()
    try:
        with session.opened():
            for verdict in session.runs():
                out.write(render_verdict(verdict, paint))
                out.flush()
    except KeyboardInterrupt:
        out.write(paint("watch ended\n", "dim"))
        out.flush()
    return ExitCode.OK


def _refuse(args: argparse.Namespace) -> None:
    """Options that write a report or change files once make no sense on every save."""
    if args.format != "text":
        raise CfngenError("--watch prints its own verdicts: leave out --format")
    if args.fix_permissions:
        raise CfngenError("--watch never edits the schema: run --fix-permissions once without it")
    if args.upgrade_from is not None:
        raise CfngenError("--upgrade-from runs once: leave out --watch")
    from cfngen._cli._target_options import target_options

    elsewhere = [name for name, value in target_options(args).items() if value]
    if elsewhere or args.keep:
        # A watch run is the in-process loop; a target outside it is `cfngen test` run once.
        raise CfngenError(
            "--watch runs against moto in this process: leave out the target options "
            "(--endpoint-url, --moto-server, --profile, --role-arn, --setup, --keep)"
        )


def _refuse_language(root: Path) -> None:
    """Another language's handlers run out of process, once per `cfngen test`: refuse upfront
    rather than fail on every save. An unreadable `.rpdk-config` is left to the watch's own
    reports, as before."""
    import json

    from cfngen._languages import language_of

    try:
        config = json.loads((root / ".rpdk-config").read_text("utf-8"))
    except (OSError, ValueError):
        return
    language = language_of(config) if isinstance(config, dict) else None
    if language is not None and not language.handlers:
        raise CfngenError(
            f"--watch runs Python handlers in this process; this is a {language.label} project",
            "build, then run `cfngen test` without --watch",
        )


def render_verdict(verdict: Verdict, paint: object) -> str:
    """One line (and a line per failed test, at most SHOWN_FAILURES): when, what changed,
    whether generate wrote anything, the counts and the time from the change seen."""
    assert callable(paint)
    stamp = time.strftime("%H:%M:%S")
    changed = verdict.changed[:3]
    what = ", ".join(changed) + (
        f" +{len(verdict.changed) - 3}" if len(verdict.changed) > 3 else ""
    )
    if len(verdict.changed) > 20:
        what = "start"
    head = f"[{stamp}] {what}"
    if verdict.generated:
        head += " (generated)"
    lines: list[str] = []
    if verdict.error is not None:
        lines.append(f"{head}: {paint('ERROR', 'error')} {verdict.error}")
        if verdict.hint:
            lines.append(paint(f"  {verdict.hint}", "hint"))
        return "\n".join(lines) + "\n"
    counts = f"{verdict.passed} passed"
    if verdict.failed:
        counts = f"{verdict.failed} failed, " + counts
    if verdict.skipped:
        counts += f", {verdict.skipped} skipped"
    word = paint("FAIL", "error") if verdict.failed else paint("PASS", "ok")
    lines.append(f"{head}: {word} {counts} in {verdict.seconds:.2f} s")
    for name, message in verdict.failures[:SHOWN_FAILURES]:
        first_line = (message.strip().splitlines() or [""])[0]
        lines.append(f"  {paint('FAILED', 'error')} {name}: {first_line}")
    if len(verdict.failures) > SHOWN_FAILURES:
        lines.append(f"  ... and {len(verdict.failures) - SHOWN_FAILURES} more")
    return "\n".join(lines) + "\n"


def add_watch_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--watch",
        action="store_true",
        help="stay running: on every save of the schema, the handlers or the inputs, generate "
        "(not for inputs alone) and run the tests again in a process kept warm, the ones that "
        "failed first, and print one verdict; Ctrl-C ends it",
    )
    p.add_argument(
        "--poll",
        action="store_true",
        help="with --watch: look at the files every 50 ms instead of asking the operating "
        "system for events (network and container file systems that send none)",
    )


def run_options(args: argparse.Namespace) -> dict[str, object]:
    """The options of `cfngen test` a watch session runs each time with."""
    from cfngen._cli._options import kind_options, seed_options

    return {
        "keyword": args.keyword,
        "enforce_timeout": args.enforce_timeout,
        "max_reinvoke": args.max_reinvoke,
        "max_invocations": args.max_invocations,
        "region": args.region,
        "allow_network": args.allow_network,
        "strict": args.strict,
        "seeds": seed_options(args),
        **kind_options(args),
    }
