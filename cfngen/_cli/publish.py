"""`cfngen publish [PROJECT]`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cfngen._cli._options import add_format
from cfngen._cli._output import paint
from cfngen._cli._values import region, seconds
from cfngen._cli.build import add_package_options, build_package
from cfngen._errors import CfngenError, ExitCode
from cfngen._files import write_atomic

#: The one line `cfngen --help` lists it with.
HELP = "register, and with --public publish, the extension in many regions at once"


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "publish",
        help=HELP,
        description=(
            "Build the package once, then in each region: upload it to a bucket in that "
            "region, RegisterType and wait, make it the default version, set the type "
            "configuration (--configure), and with --public check the publisher, run TestType "
            "and PublishType with the right version. Regions run in parallel; a rerun of the "
            "same package and version resumes only the regions that failed. Exit 1 naming each "
            "failed region and CloudFormation's reason."
        ),
    )
    p.add_argument("path", nargs="?", type=Path, metavar="PROJECT", help="the project folder")
    p.add_argument(
        "--regions",
        metavar="REGIONS",
        help="comma-separated regions, or all (the regions the account has enabled that "
        "CloudFormation serves)",
    )
    p.add_argument("--public", action="store_true", help="also test and publish it publicly")
    p.add_argument(
        "--version",
        metavar="X.Y.Z",
        help="with --public: the public version number (default: the last public one moved "
        "by the step the schema change needs; a first publish gets none, as the registry wants)",
    )
    p.add_argument(
        "--keep-versions",
        type=int,
        metavar="N",
        help="keep at most N registered versions per region: deregister the oldest non-default "
        "ones first (it cannot be undone: confirm on a terminal or pass --yes)",
    )
    p.add_argument("--plan", action="store_true", help="print what it would do; change nothing")
    p.add_argument("--yes", action="store_true", help="confirm deregistrations without asking")
    p.add_argument(
        "--accept-terms",
        action="store_true",
        help="with --public: register as a publisher where none is, accepting AWS's terms and "
        "conditions (never done without this flag)",
    )
    p.add_argument(
        "--allow-version-skew",
        action="store_true",
        help="publish where the first public version (1.0.0) would lag the other regions'",
    )
    p.add_argument(
        "--configure",
        type=Path,
        metavar="FILE",
        help="set the type configuration in FILE in every region (as `cfngen submit`)",
    )
    roles = p.add_mutually_exclusive_group()
    roles.add_argument("--role-arn", metavar="ARN", help="the handlers' execution role")
    roles.add_argument(
        "--no-role", dest="use_role", action="store_false", help="register without a role"
    )
    p.add_argument("--profile", metavar="PROFILE", help="the AWS profile whose credentials to use")
    p.add_argument(
        "--region",
        type=region,
        metavar="REGION",
        help="the region of the calls that are not per region (default: your configured one)",
    )
    p.add_argument("--jobs", type=int, default=4, metavar="N", help="regions at once (default 4)")
    p.add_argument(
        "--timeout",
        type=seconds,
        default=3600.0,
        metavar="S",
        help="stop waiting for a registration or TestType after S seconds (default: 3600)",
    )
    p.add_argument(
        "--stack-set-template",
        type=Path,
        metavar="FILE",
        help="instead of registering: write the StackSets template that registers the "
        "extension in every region a stack set reaches",
    )
    p.add_argument(
        "--deploy-stack-set",
        metavar="NAME",
        help="with --stack-set-template: upload the package to each region's bucket and create "
        "or update the stack set NAME with an instance in each region",
    )
    add_format(p)
    add_package_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cfngen._package import SubmitOptions, make_clients, prepare_configuration
    from cfngen._project import load_project
    from cfngen._publish import PublishOptions, publish

    root = (args.path or Path.cwd()).absolute()
    if not args.regions:
        raise CfngenError("publish needs --regions", "pass --regions us-east-1,eu-west-1, or all")
    if args.jobs < 1 or (args.keep_versions is not None and args.keep_versions < 1):
        raise CfngenError("--jobs and --keep-versions take a number of 1 or more", None)
    if args.deploy_stack_set and args.stack_set_template is None:
        raise CfngenError("--deploy-stack-set goes with --stack-set-template FILE", None)
    regions = None if args.regions == "all" else tuple(r for r in args.regions.split(",") if r)
    clients = make_clients(region=args.region, profile=args.profile, endpoint_url=None)
    session = clients.session
    configuration = None
    if args.configure is not None:
        configuration = prepare_configuration(load_project(root), args.configure)
    build = build_package(args, root, write=False)
    if args.stack_set_template is not None:
        return _stack_set(args, build, session, regions, configuration)

    def say(message: str) -> None:
        print(f"cfngen: {message}", file=sys.stderr, flush=True)

    report = publish(
        build,
        session,
        PublishOptions(
            regions=regions,
            public=args.public,
            version=args.version,
            keep_versions=args.keep_versions,
            plan_only=args.plan,
            accept_terms=args.accept_terms,
            allow_version_skew=args.allow_version_skew,
            configuration=configuration,
            submit=SubmitOptions(
                role_arn=args.role_arn, use_role=args.use_role, timeout=args.timeout
            ),
            jobs=args.jobs,
        ),
        confirm=lambda doomed: _confirm(doomed, args.yes),
        say=say,
    )
    sys.stderr.flush()
    if args.format == "json":
        sys.stdout.write(json.dumps(_document(report, args), indent=2) + "\n")
    else:
        sys.stdout.write(_table(report, args))
    bad = [*report.refused, *report.failed]
    return ExitCode.FAILED if bad else ExitCode.OK


def _confirm(doomed: list[str], yes: bool) -> bool:
    if yes:
        return True
    if not sys.stdin.isatty():
        return False
    print("cfngen: publishing deregisters (this cannot be undone):", file=sys.stderr)
    for arn in doomed:
        print(f"  {arn}", file=sys.stderr)
    return input("Deregister them? [y/N] ").strip().lower() in ("y", "yes")


def _document(report: Any, args: argparse.Namespace) -> dict[str, Any]:
    outcomes = {o.region: o for o in report.outcomes}
    regions = []
    for plan in report.plans:
        outcome = outcomes.get(plan.region)
        entry: dict[str, Any] = {"region": plan.region}
        if plan.refusal:
            entry.update(status="refused", reason=plan.refusal)
        elif plan.region in report.resumed:
            entry.update(status="done")
        elif outcome is None:
            entry.update(status="planned")
        else:
            entry.update(
                status="ok" if outcome.ok else "failed",
                version_arn=outcome.version_arn or None,
                public_version=outcome.public_version or None,
                reason=outcome.reason or None,
            )
        entry["steps"] = plan.steps(
            public=args.public, configure=args.configure is not None, accept_terms=args.accept_terms
        )
        regions.append(entry)
    return {"type_name": report.type_name, "bump": report.bump, "regions": regions}


def _table(report: object, args: argparse.Namespace) -> str:
    from cfngen._publish import PublishReport

    assert isinstance(report, PublishReport)
    out = []
    if args.plan:
        if report.bump:
            out.append(f"the schema change needs a {report.bump} version")
        for plan in report.plans:
            resumed = plan.region in report.resumed
            out.append(f"{plan.region}:" + (" done already (the publish state)" if resumed else ""))
            if not resumed:
                steps = plan.steps(
                    public=args.public,
                    configure=args.configure is not None,
                    accept_terms=args.accept_terms,
                )
                out += [f"  {step}" for step in steps]
        return "".join(line + "\n" for line in out)
    outcomes = {o.region: o for o in report.outcomes}
    for plan in report.plans:
        outcome = outcomes.get(plan.region)
        if plan.refusal:
            line = f"{paint('refused', 'error', sys.stdout)}  {plan.refusal}"
        elif outcome is None:
            line = f"{paint('done', 'ok', sys.stdout)}     already (the publish state)"
        elif outcome.ok:
            shown = f" public {outcome.public_version}" if outcome.public_version else ""
            line = f"{paint('ok', 'ok', sys.stdout)}       {outcome.version_arn}{shown}"
        else:
            line = f"{paint('failed', 'error', sys.stdout)}   {outcome.reason}"
        out.append(f"{plan.region:<16} {line}")
    return "".join(line + "\n" for line in out)


def _stack_set(
    args: argparse.Namespace,
    build: Any,
    session: Any,
    regions: tuple[str, ...] | None,
    configuration: str | None,
) -> int:
    from cfngen._package._layout import registered_name
    from cfngen._publish._region import bucket_name
    from cfngen._publish._stackset import deploy_stack_set, stack_set_template

    type_name = registered_name(build.project)
    text = stack_set_template(
        build.file_set.registry_type,
        type_name,
        public=args.public,
        version=args.version,
        configuration=configuration,
    )
    write_atomic(args.stack_set_template, text.encode("utf-8"))
    print(f"wrote {args.stack_set_template}")
    if not args.deploy_stack_set:
        return ExitCode.OK
    from cfngen._package._aws import aws_call
    from cfngen._publish import regions as resolve
    from cfngen._publish._region import ensure_bucket

    # AWS's refusals are sentences (exit 1 or 2), as in `publish` itself, not tracebacks.
    sts = session.client("sts")
    account = str(aws_call("reading the account", sts.get_caller_identity)["Account"])
    targets = resolve(session, regions)
    key = f"{build.path.name}"
    for target in targets:
        s3 = session.client("s3", region_name=target)
        ensure_bucket(s3, bucket_name(account, target), target)
        bucket = bucket_name(account, target)
        aws_call(f"uploading to {bucket}", s3.put_object, Bucket=bucket, Key=key, Body=build.data)
    operation = deploy_stack_set(
        session,
        args.deploy_stack_set,
        text,
        parameters={
            "PackageBucketPrefix": f"cfngen-publish-{account}",
            "PackageKey": key,
            **({"ExecutionRoleArn": args.role_arn} if args.role_arn else {}),
        },
        account=account,
        regions=targets,
        region=session.region_name or targets[0],
    )
    print(f"stack set {args.deploy_stack_set}: instances in {', '.join(targets)} ({operation})")
    return ExitCode.OK
