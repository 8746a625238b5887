"""Options several commands share, declared once with one default each."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from cfngen._cli._values import count, region, seconds


def add_format(
    p: argparse.ArgumentParser,
    *,
    text_help: str = "text (default) or one JSON document on stdout",
    ci: bool = False,
) -> None:
    """`--format`: text or json everywhere; a checking command (`ci=True`) also writes JUnit
    XML, SARIF 2.1.0 or GitHub workflow commands to stdout (cfngen/_formats.py)."""
    from cfngen._render import FORMATS

    if ci:
        text_help += (
            "; junit (JUnit XML), sarif (SARIF 2.1.0) or github (::error/::warning "
            "workflow commands that annotate a pull request)"
        )
    choices = FORMATS if ci else FORMATS[:2]
    p.add_argument("--format", choices=choices, default="text", help=text_help)


def add_kind_options(p: argparse.ArgumentParser, *, invoke: bool = False) -> None:
    """Options only some kinds' contracts take (`cfngen._contract` refuses them elsewhere)."""
    config = p.add_argument_group("type configuration and dynamic references")
    exports = p.add_argument_group("CloudFormation exports (that inputs name as {{NAME}})")
    config.add_argument(
        "--typeconfig",
        type=Path,
        default=None,
        metavar="FILE",
        help="the type configuration (resource types and hooks): the properties object "
        "SetTypeConfiguration takes (for a hook also its CloudFormationConfiguration."
        "HookConfiguration.Properties envelope); default: .rpdk-config contractSettings."
        "typeConfiguration.configuration, else stand-ins for required properties; never a "
        "file in the home folder unless named here",
    )
    config.add_argument(
        "--ssm",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an SSM parameter put into the offline AWS account; {{resolve:ssm:NAME}} and "
        "{{resolve:ssm-secure:NAME}} resolve to VALUE (repeatable; default: a stand-in)",
    )
    config.add_argument(
        "--secret",
        action="append",
        default=[],
        metavar="ID=VALUE",
        help="a Secrets Manager secret (its SecretString) put into the offline AWS account; "
        "{{resolve:secretsmanager:ID...}} resolves to it; never shown in any output "
        "(repeatable; default: a stand-in)",
    )
    config.add_argument(
        "--ssm-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="SSM parameters as a JSON object of names to values (--ssm wins over it)",
    )
    config.add_argument(
        "--secret-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="secrets as a JSON object of ids to SecretStrings (--secret wins over it)",
    )
    exports.add_argument(
        "--export",
        dest="exports",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="the value of a CloudFormation export that inputs name as {{NAME}} (repeatable; "
        "default: a stand-in, as exports cannot be looked up offline)",
    )
    exports.add_argument(
        "--exports",
        dest="exports_file",
        type=Path,
        default=None,
        metavar="FILE",
        help="a JSON object mapping export names to values (--export wins over it)",
    )
    add_declared(p, "invoke" if invoke else "test")


def add_declared(
    p: argparse.ArgumentParser, command: str, *, into: argparse._ArgumentGroup | None = None
) -> None:
    """The options the kinds declare for `command` (`Kind.cli_options`), each once, under
    its group (or all `into` one), in the kinds' order: a new kind's options need no edit
    here."""
    from cfngen._kind import all_kinds

    groups: dict[str, argparse._ArgumentGroup] = {}
    seen: set[str] = set()
    for kind in all_kinds():
        for option in kind.cli_options:
            if command not in option.commands or option.dest in seen:
                continue
            seen.add(option.dest)
            if into is None and option.group not in groups:
                groups[option.group] = p.add_argument_group(option.group)
            _add_option(into or groups[option.group], option)


def _add_option(group: argparse._ArgumentGroup, option: Any) -> None:
    extra: dict[str, Any] = (
        {"action": "append", "default": []} if option.repeat else {"default": None}
    )
    if option.path:
        extra["type"] = Path
    group.add_argument(
        option.flag,
        dest=option.dest,
        metavar=option.metavar,
        help=option.help,
        **extra,
    )


def add_module_options(p: argparse.ArgumentParser, group: argparse._ArgumentGroup) -> None:
    """How a module is used: `cfngen module render` takes what the module kind declares."""
    add_declared(p, "module render", into=group)


def seed_options(args: argparse.Namespace) -> Any:
    """`--ssm`, `--secret` and their files, as the runner's Seeds."""
    from cfngen._contract import Seeds

    return Seeds(
        ssm=_pairs(args.ssm_file, args.ssm, "--ssm", "NAME"),
        secrets=_pairs(args.secret_file, args.secret, "--secret", "ID"),
    )


def _pairs(path: Path | None, items: list[str], flag: str, key: str) -> dict[str, str]:
    from cfngen._errors import CfngenError

    found: dict[str, str] = {}
    if path is not None:
        from cfngen import _schema

        hint = f'{flag}-file holds a JSON object of {key.lower()}s to string values: {{"x": "v"}}'
        for name, value in _schema.load_object(path, hint).items():
            if not isinstance(value, str):
                raise CfngenError(f"{path}: the value of {name!r} is not a string", hint)
            found[name] = value
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise CfngenError(f"{flag} {item!r} is not {key}=VALUE", f"e.g. {flag} {key}=value")
        found[name.strip()] = value
    return found


def kind_options(args: argparse.Namespace) -> dict[str, Any]:
    from cfngen._errors import CfngenError

    exports: dict[str, object] = {}
    if args.exports_file is not None:
        from cfngen import _schema

        exports.update(
            _schema.load_object(
                args.exports_file, 'an exports file maps names to values: {"KeyArn": "arn:..."}'
            )
        )
    for item in args.exports:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise CfngenError(
                f"--export {item!r} is not NAME=VALUE", "e.g. --export KeyArn=arn:..."
            )
        exports[name.strip()] = value
    from cfngen._kind import all_kinds

    # What the kinds declare, by dest; the contract refuses what its kind does not take.
    declared = {
        option.dest: getattr(args, option.dest, None)
        for kind in all_kinds()
        for option in kind.cli_options
    }
    return {
        **declared,
        "template": template_path(args),
        "handler": _handler(args),
        "typeconfig": args.typeconfig,
        "exports": exports,
    }


def template_path(args: argparse.Namespace) -> Path | None:
    """The custom resource's template: `--template FILE`, or a template given as the project
    (`cfngen test templates/x.yaml`); absolute, as the shell meant it."""
    from cfngen._errors import CfngenError
    from cfngen._project import CONFIG_FILE

    template: Path | None = getattr(args, "template", None)
    project: Path | None = getattr(args, "project", None)
    if project is not None and _a_file(project) and project.name != CONFIG_FILE:
        if template is not None:
            raise CfngenError(
                f"{project} is a file: a project is a folder", "pass the template once"
            )
        template = project
    if template is None:
        return None
    if not template.is_file():
        if os.path.exists(template):  # a named pipe, a folder: refused, never opened to wait
            from cfngen._files import read_optional

            read_optional(template, hint="a template is a regular file: name one")
        raise CfngenError(f"--template {template}: no such file", "name the template file")
    return Path(os.path.abspath(template))


def _a_file(path: Path) -> bool:
    """Whether PROJECT names a file (a named pipe too: it is refused as a template) rather
    than a folder."""
    return path.is_file() or (os.path.exists(path) and not path.is_dir())


def project_folder(args: argparse.Namespace) -> Path:
    """The project a command runs in: PROJECT when given (a folder, or the folder of the file
    given), else the folder that holds the `--template` given (a template path is enough to
    find the project), else the current folder."""
    project: Path | None = getattr(args, "project", None)
    if project is not None:
        return project.parent if _a_file(project) else project
    template = template_path(args)
    return template.parent if template is not None else Path.cwd()


def _handler(args: argparse.Namespace) -> str | None:
    """`--handler FILE.py:FUNCTION` with FILE absolute, as the shell meant it."""
    handler: str | None = getattr(args, "handler", None)
    if handler is None:
        return None
    file, sep, function = handler.rpartition(":")
    return f"{os.path.abspath(file)}:{function}" if sep and file else handler


def add_handler_options(p: argparse.ArgumentParser, *, after: str) -> None:
    """The options invoke and test share: region, network, time limits, re-invocations."""
    from cfngen._contract import DEFAULT_MAX_INVOCATIONS, DEFAULT_MAX_REINVOKE

    p.add_argument(
        "--region",
        type=region,
        default=None,
        metavar="REGION",
        help="the region the handlers see (default: us-east-1); it never lets a call out",
    )
    p.add_argument(
        "--allow-network",
        action="store_true",
        help="let the handlers' own connections leave this machine (their HTTP calls to "
        "other hosts, DNS lookups); without it each such call fails naming its host. AWS "
        "calls still go to moto (to AWS with --profile, which lets nothing else out)",
    )
    p.add_argument(
        "--enforce-timeout",
        type=seconds,
        default=None,
        metavar="S",
        help="time limit: S seconds for READ and LIST, 2S for the others (default: 30 and 60)",
    )
    p.add_argument(
        "--max-reinvoke",
        type=count,
        default=DEFAULT_MAX_REINVOKE,
        metavar="N",
        help=f"{after} N IN_PROGRESS answers in a row without a callbackDelaySeconds "
        f"(default: {DEFAULT_MAX_REINVOKE}); waits with a delay are limited by the handler's "
        "timeoutInMinutes, in simulated time offline",
    )
    p.add_argument(
        "--max-invocations",
        type=count,
        default=DEFAULT_MAX_INVOCATIONS,
        metavar="N",
        help=f"{after} N calls of one action in all, whatever their delays "
        f"(default: {DEFAULT_MAX_INVOCATIONS})",
    )
