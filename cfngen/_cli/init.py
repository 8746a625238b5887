"""`cfngen init [DIR]`: the engine's options, plus one flag per question of every kind."""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._cli._output import rendered, show
from cfngen._completion import offer
from cfngen._errors import CfngenError, ExitCode

if TYPE_CHECKING:
    from cfngen._kind import Kind
    from cfngen._kind._init_spec import InitSpec, Question


def _questions() -> list[Question]:
    """Every kind's questions, one per key (kinds asking the same thing share its flags)."""
    from cfngen._kind import all_kinds

    by_key: dict[str, Question] = {}
    for kind in all_kinds():
        for question in kind.init.questions if kind.init else ():
            by_key.setdefault(question.key, question)
    return list(by_key.values())


def _kinds() -> list[Kind]:
    from cfngen._kind import all_kinds

    return [kind for kind in all_kinds() if kind.init is not None]


#: The one line `cfngen --help` lists it with.
HELP = "create a project: a wizard, or flags and --no-input"


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "init",
        help=HELP,
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
    kinds = _kinds()
    offer(
        p.add_argument(
            "--artifact-type",
            metavar="KIND",
            help=f"{kinds[0].name} (the default)"
            + (f", or {', '.join(k.name for k in kinds[1:])}" if kinds[1:] else ""),
        ),
        [kind.name for kind in kinds],
    )
    questions = _questions()
    for question in questions:
        if not question.flags:
            continue
        options: dict[str, Any] = {"dest": f"answer_{question.key}", "help": question.help}
        if question.style == "confirm":
            if question.negatable:
                options.update(action=argparse.BooleanOptionalAction, default=None)
            else:
                options.update(action="store_const", const=True, default=None)
        else:  # named after the answer, not after where argparse keeps it (answer_*)
            options["metavar"] = question.metavar or question.key.upper()
        if question.repeatable:
            options.update(action="append", default=None)
        flag = p.add_argument(*question.flags, **options)
        if question.choices is not None and question.style != "confirm":
            offer(flag, functools.partial(_choice_values, question))
    keys = ["artifact_type", *(q.key for q in questions)]
    p.add_argument(
        "--data",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"set any answer (repeatable); keys: {', '.join(keys)}",
    )
    p.add_argument(
        "--no-input",
        action="store_true",
        help="never ask: use the flags and defaults, and fail if a required answer is missing",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="add the project's files to a non-empty DIR; a file already there is kept, never "
        "replaced (init lists them); a folder holding a project is refused: use `cfngen upgrade`",
    )
    p.add_argument(
        "--no-git", dest="git", action="store_false", help="do not make a git repository"
    )
    p.add_argument(
        "--language",
        choices=("python", "typescript"),
        default="python",
        help="what the handlers are written in (default: python); typescript makes a resource "
        "type in the official TypeScript plugin's layout, its handlers on the AWS SDK v3 "
        "(with --example: a working SSM parameter), built with `npm install && npm run build`",
    )
    offer(
        p.add_argument(
            "--template-version",
            metavar="VERSION",
            help="render an earlier version of the kind's project template, one this cfngen "
            "ships (default: the newest); e.g. to try `cfngen upgrade` on a new project, or to "
            "match projects made by an older cfngen",
        ),
        _template_versions,
    )
    p.set_defaults(run=run)


def _choice_values(question: Question) -> list[str]:
    """A question's choices as a flag takes them, for shell completion (none when they depend
    on earlier answers)."""
    assert question.choices is not None
    try:
        return [str(value) for value, _ in question.choices({})]
    except (KeyError, TypeError, ValueError):
        return []


def _template_versions() -> list[str]:
    """Every template version this cfngen ships, of any kind, for shell completion."""
    from cfngen._init._template_cache import packaged_versions

    found = []
    for kind in _kinds():
        assert kind.init is not None
        with contextlib.suppress(CfngenError):
            found += [str(v.version) for v in packaged_versions(kind.init.template)]
    return sorted(set(found), key=lambda text: [int(part) for part in text.split(".")])


def _display_path(path: Path) -> str:
    try:
        relative = path.relative_to(Path.cwd())
    except ValueError:
        return str(path)
    return "." if relative == Path() else str(relative)


def _chosen_kind(flag: str | None, data: dict[str, str]) -> Kind | None:
    """The kind named by --artifact-type or --data artifact_type (None: neither)."""
    from cfngen._kind import lookup

    from_data = data.pop("artifact_type", None)
    kind = lookup(flag) if flag is not None else None
    data_kind = lookup(from_data) if from_data is not None else None
    if kind is not None and data_kind is not None and kind is not data_kind:
        raise CfngenError(
            f"artifact_type is given twice with different values ({from_data!r} and {flag!r})",
            "drop the --data entry or the flag",
        )
    kind = kind or data_kind
    if kind is not None and kind.init is None:
        raise CfngenError(f"cfngen cannot make a {kind.label} yet", "use --artifact-type resource")
    return kind


def run(args: argparse.Namespace) -> int:
    from cfngen._extras import require
    from cfngen._init import _answers
    from cfngen._init._scaffold import check_destination, init_project

    # Before the wizard's questions: their answers would be lost.
    require("init", "`cfngen init`")
    dest = args.dir.absolute()
    check_destination(dest, force=args.force)
    questions = _questions()
    data = _answers.parse_data(args.data, ["artifact_type", *(q.key for q in questions)])
    kind = _chosen_kind(args.artifact_type, data)
    flags = {q.key: getattr(args, f"answer_{q.key}") for q in questions if q.flags}
    # Every answer given is checked before anything is asked, by the chosen kind's question
    # when it has one (a module's type name ends in ::MODULE).
    checks = {q.key: q for q in questions}
    checks.update({q.key: q for q in (_spec(kind).questions if kind is not None else ())})
    given = _answers.collect(list(checks.values()), flags, data)
    if args.language == "typescript":
        return _typescript(args, dest, kind, given)
    if args.no_input:
        kind = kind or _kinds()[0]
        spec = _spec(kind)
        answers = spec.resolve(spec.fold(_only(given, spec.questions)))
    else:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise CfngenError(
                "cfngen init asks its questions on a terminal, and this is not one",
                "pass --no-input with the answers as flags, e.g. "
                "`cfngen init --no-input --type-name Acme::Svc::Widget widget`",
            )
        from cfngen._init import _wizard

        kind = kind or _wizard.ask_kind(_kinds())
        wizard_answers = _wizard.ask(kind, _only(given, _spec(kind).questions), dest)
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
    text = rendered()
    result.render(text, where=_display_path(result.root))
    show(text)
    return ExitCode.OK


def _typescript(
    args: argparse.Namespace, dest: Path, kind: Kind | None, given: dict[str, Any]
) -> int:
    """`--language typescript`: a resource type in the TypeScript plugin's layout."""
    from cfngen._languages._typescript_init import init_typescript, refuse_answers

    if kind is not None and kind is not _kinds()[0]:
        raise CfngenError(
            f"--language typescript makes a {_kinds()[0].label} project, not a {kind.label}",
            "leave out --artifact-type",
        )
    refuse_answers(given)
    type_name = given.get("type_name")
    made = init_typescript(
        dest,
        None if type_name is None else str(type_name),
        example=bool(given.get("example")),
        git=args.git,
    )
    print(f"Created {_display_path(made.root)} (TypeScript): {', '.join(made.files)}")
    if made.commit:
        print(f"  git: one commit, {made.commit}")
    for note in made.notes:
        print(f"  note: {note}")
    return ExitCode.OK


def _spec(kind: Kind) -> InitSpec:
    assert kind.init is not None  # _chosen_kind and _kinds() only give kinds with one
    return kind.init


def _only(given: dict[str, Any], questions: Sequence[Question]) -> dict[str, Any]:
    """The answers to these questions; an answer to another kind's question is refused."""
    keys = {question.key for question in questions}
    for key in given:
        if key not in keys:
            raise CfngenError(f"{key} does not apply to this kind of extension")
    return dict(given)
