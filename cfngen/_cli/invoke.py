"""`cfngen invoke ACTION REQUEST_FILE`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._cli._options import (
    add_handler_options,
    add_kind_options,
    kind_options,
    project_folder,
    seed_options,
)
from cfngen._cli._output import paint, painter, print_warning
from cfngen._cli._target_options import add_target_options, target_options
from cfngen._cli._values import delay
from cfngen._completion import offer
from cfngen._errors import ExitCode

if TYPE_CHECKING:
    from cfngen._render import Style

#: The one line `cfngen --help` lists it with.
HELP = "run one handler action in-process, re-invoking while IN_PROGRESS"


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from cfngen._contract import DEFAULT_MAX_DELAY
    from cfngen._kind import all_kinds

    p = sub.add_parser(
        "invoke",
        help=HELP,
        description=(
            "Run the project's handler for ACTION with the request in REQUEST_FILE (the JSON "
            "`cfn invoke` reads: desiredResourceState, previousResourceState, "
            "logicalResourceIdentifier, typeConfiguration, nextToken), in this process, "
            "through the handlers' Lambda entrypoint. Offline by default: fake credentials, "
            "every AWS call answered by moto, and any other connection to a host off this "
            "machine refused (--allow-network lets those out). Prints each progress event and the "
            "handler's own log output (with --format json, one document with the response as "
            "an object, the calls on stderr). Exit 0 on SUCCESS, 1 otherwise."
        ),
    )
    action = p.add_argument(
        "action",
        metavar="ACTION",
        help="; ".join(
            f"for a {kind.label} {', '.join(kind.invoke_actions)}"
            for kind in all_kinds()
            if kind.invoke_actions
        ),
    )
    offer(action, _actions)
    p.add_argument(
        "request",
        type=Path,
        nargs="?",
        default=None,
        metavar="REQUEST_FILE",
        help="the request JSON file, or a file of inputs/ (a model's properties, sent as "
        "desiredResourceState); for a hook, an inputs/ file (each target in turn), a hook "
        "request or a resource's properties; for a custom resource (optional) a request or "
        "its ResourceProperties",
    )
    p.add_argument(
        "--project",
        type=Path,
        default=None,
        metavar="DIR",
        help="the project folder (default: the folder of --template when given, else the "
        "current folder)",
    )
    p.add_argument(
        "--profile",
        default=None,
        metavar="PROFILE",
        help="call real AWS with this profile's credentials instead of moto (only the AWS "
        "calls: other connections still need --allow-network)",
    )
    add_handler_options(p, after="stop after")
    add_target_options(p, test=False)
    add_kind_options(p, invoke=True)
    p.add_argument(
        "--max-delay",
        type=delay,
        default=DEFAULT_MAX_DELAY,
        metavar="S",
        help="with --profile (real AWS, real time): sleep at most S seconds of "
        f"callbackDelaySeconds between calls (default: {DEFAULT_MAX_DELAY:g}); offline the "
        "wait is simulated and never slept",
    )
    p.set_defaults(run=run)


def _actions() -> tuple[str, ...]:
    """Every ACTION some kind's handlers take, as each kind declares them, for shell completion
    (read when a completion script is written)."""
    from cfngen._kind import all_kinds

    return tuple(action for kind in all_kinds() for action in kind.invoke_actions)


def run(args: argparse.Namespace) -> int:
    from cfngen._contract import invoke
    from cfngen._contract._call import Invocation
    from cfngen._contract._report import render_wait

    # With --format json, stdout holds only the document: the calls are shown on stderr.
    json_out = getattr(args, "format", "text") == "json"
    out = sys.stderr if json_out else sys.stdout
    paint_out = painter(out)

    def show(invocation: Invocation) -> None:
        out.write(invocation.render(paint_out))
        out.flush()

    def wait(seconds: float, asked: float, simulated: bool) -> None:
        out.write(render_wait(seconds, asked, simulated, paint_out))
        out.flush()

    def imported(lines: list[str]) -> None:
        out.write(paint("output while importing the handlers:", "bold", out) + "\n")
        out.write("".join(f"  | {line}\n" for line in lines))

    result = invoke(
        project_folder(args),
        args.action,
        args.request,
        profile=args.profile,
        region=args.region,
        allow_network=args.allow_network,
        enforce_timeout=args.enforce_timeout,
        max_reinvoke=args.max_reinvoke,
        max_invocations=args.max_invocations,
        max_delay=max(args.max_delay, 0.0),
        on_invocation=show,
        on_wait=wait,
        on_warning=print_warning,
        on_import_output=imported,
        seeds=seed_options(args),
        **target_options(args),
        **kind_options(args),
    )
    if json_out:
        import json

        sys.stdout.write(json.dumps(result.as_json(), indent=2, default=str) + "\n")
    for verdict, succeeded in result.verdicts:
        style: Style = "ok" if succeeded else "error"
        print(f"cfngen: {paint(verdict, style, sys.stderr)}", file=sys.stderr)
    return ExitCode.OK if result.succeeded else ExitCode.FAILED
