"""`cfngen submit [PROJECT]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cfngen._cli._output import paint
from cfngen._cli._values import endpoint_url, region, seconds
from cfngen._cli.build import add_package_options, build_package
from cfngen._errors import ExitCode

#: The one line `cfngen --help` lists it with.
HELP = "build the package, upload it and register the extension with CloudFormation"


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "submit",
        help=HELP,
        description=(
            "Build the package (as `cfngen build`), deploy the execution-role stack and the "
            "managed upload infrastructure stack as `cfn submit` does (or use --role-arn and "
            "--bucket), upload, call RegisterType and wait for the registration, saying what "
            "happens. Exit 1 when registration fails or times out, 2 without credentials or "
            "region. Uses your AWS credentials and region the usual way (--profile, the "
            "environment, ~/.aws)."
        ),
    )
    p.add_argument(
        "path",
        nargs="?",
        type=Path,
        metavar="PROJECT",
        help="the project folder (default: the current folder)",
    )
    p.add_argument("--dry-run", action="store_true", help="only build the package (`cfngen build`)")
    p.add_argument("--region", type=region, metavar="REGION", help="the AWS region to register in")
    p.add_argument("--profile", metavar="PROFILE", help="the AWS profile whose credentials to use")
    p.add_argument(
        "--endpoint-url",
        type=endpoint_url,
        metavar="URL",
        help="the CloudFormation endpoint to call",
    )
    p.add_argument(
        "--set-default",
        action="store_true",
        help="make the new version the default once it is registered",
    )
    roles = p.add_mutually_exclusive_group()
    roles.add_argument(
        "--role-arn",
        metavar="ARN",
        help="the execution role for the handlers (default: deploy the role stack)",
    )
    roles.add_argument(
        "--no-role",
        dest="use_role",
        action="store_false",
        help="register without an execution role (the handlers cannot call AWS)",
    )
    p.add_argument(
        "--bucket",
        metavar="NAME",
        help="upload to this S3 bucket instead of the managed upload infrastructure's",
    )
    p.add_argument(
        "--log-role-arn",
        metavar="ARN",
        help="the role CloudFormation delivers the handlers' logs with (default: the managed "
        "upload infrastructure's; none with --bucket)",
    )
    p.add_argument(
        "--timeout",
        type=seconds,
        default=3600.0,
        metavar="S",
        help="stop waiting for a stack or the registration after S seconds (default: 3600)",
    )
    p.add_argument(
        "--configure",
        type=Path,
        metavar="FILE",
        help="set the type configuration in FILE after registration (a hook does nothing until "
        "configured); checked against the configuration schema first",
    )
    docker = p.add_mutually_exclusive_group()
    for flag in ("--use-docker", "--no-docker"):
        docker.add_argument(
            flag, action="store_true", help="accepted as `cfn submit` does; cfngen needs no Docker"
        )
    add_package_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    root = args.path or Path.cwd()
    if args.dry_run:
        build_package(args, root)
        return ExitCode.OK
    from cfngen._package import SubmitOptions, make_clients, prepare_configuration, submit_package
    from cfngen._project import load_project

    clients = make_clients(region=args.region, profile=args.profile, endpoint_url=args.endpoint_url)
    configuration = None
    if args.configure is not None:
        configuration = prepare_configuration(load_project(root.absolute()), args.configure)
    build = build_package(args, root, write=False)

    def say(message: str) -> None:
        print(f"cfngen: {message}", file=sys.stderr, flush=True)

    result = submit_package(
        build,
        clients,
        SubmitOptions(
            role_arn=args.role_arn,
            use_role=args.use_role,
            set_default=args.set_default,
            bucket=args.bucket,
            log_role_arn=args.log_role_arn,
            timeout=args.timeout,
        ),
        configuration=configuration,
        say=say,
    )
    sys.stderr.flush()
    print(f"{paint('registered', 'ok', sys.stdout)} {result.type_version_arn}")
    if result.default_set:
        print("  it is the default version")
    if result.configured:
        print(f"  configured from {args.configure}")
    return ExitCode.OK
