"""The answers `cfngen init --artifact-type hook` needs, checked once whatever their source:
target names, invocation points and type configuration settings.

`copier_data` (_template_data.py) turns them into the data of the hook template
(templates/hook/copier.yml), including the hidden `starter` table the starter inputs are
rendered from.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from cfngen._errors import CfngenError
from cfngen._init._answers import (
    ci_question,
)
from cfngen._kind._init_spec import Question
from cfngen._kinds._shared import _targets
from cfngen._kinds._shared._questions import (
    example_question,
    package_name_question,
    runtime_question,
    type_name_question,
)
from cfngen._kinds.hook._template_data import copier_data
from cfngen._typename import TypeName

#: A hook schema's handlers, in contract order, with the names people also write for them.
INVOCATION_POINTS = ("preCreate", "preUpdate", "preDelete")
_POINT_ALIASES = {
    "precreate": "preCreate",
    "pre_create": "preCreate",
    "create": "preCreate",
    "create_pre_provision": "preCreate",
    "preupdate": "preUpdate",
    "pre_update": "preUpdate",
    "update": "preUpdate",
    "update_pre_provision": "preUpdate",
    "predelete": "preDelete",
    "pre_delete": "preDelete",
    "delete": "preDelete",
    "delete_pre_provision": "preDelete",
}
CONFIG_TYPES = ("string", "integer", "number", "boolean")
_CONFIG_NAME = re.compile(r"^(?!CloudFormation)[A-Za-z0-9]{1,64}$")

DEFAULT_TARGETS = ("AWS::S3::Bucket",)
#: `cfngen init --artifact-type hook --example`: S3 buckets must be encrypted and versioned, and
#: a stack may not hold a bucket that would be deleted with it.
EXAMPLE_TYPE_NAME = "Example::S3::ComplianceHook"
EXAMPLE_FIXED: dict[str, Any] = {
    "targets": ("AWS::S3::Bucket", "STACK"),
    "invocation_points": ("preCreate", "preUpdate"),
    "config_properties": (("EncryptionAlgorithm", "string"),),
}


def parse_targets(value: str | Sequence[str]) -> tuple[str, ...]:
    """`AWS::S3::Bucket,STACK` or a list -> target names, in the order given, without repeats.

    Refused: what the registry refuses (`*?`) and what is not a target name at all. A
    well-formed name cfngen does not know is accepted (the bundled list lags new types; other
    namespaces hold private types): `target_notes` says so.
    """
    items = value.split(",") if isinstance(value, str) else list(value)
    names = list(dict.fromkeys(item.strip() for item in items if item.strip()))
    if not names:
        raise CfngenError("no target given", "name at least one, e.g. --target AWS::S3::Bucket")
    for name in names:
        if "*?" in name:
            raise CfngenError(
                f"target {name!r}: CloudFormation does not allow '*?' in a target name",
                "use '*' alone, e.g. AWS::S3::*",
            )
        if name in _targets.SPECIAL_TARGETS or _targets.is_wildcard(name):
            continue
        if not _targets.is_type_name(name):
            raise CfngenError(
                f"target {name!r} is not a resource type name, a wildcard, STACK or CHANGE_SET",
                "e.g. --target AWS::S3::Bucket --target 'AWS::SQS::*' --target STACK",
            )
    return tuple(names)


def target_notes(targets: Sequence[str]) -> list[str]:
    """What the user should know about well-formed target names: the warnings `cfngen
    validate` gives about them (a type cfngen does not know, a wildcard matching none, the
    AWS namespace in another case)."""
    from cfngen._kinds.hook._schema import target_name_problems

    known = _targets.bundled_types()
    return [
        problem.message + (f" ({problem.hint})" if problem.hint else "")
        for name in targets
        for problem in target_name_problems(name, "", known)
    ]


def parse_invocation_points(value: str | Sequence[str]) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else list(value)
    chosen = set()
    for item in items:
        key = item.strip()
        if not key:
            continue
        point = _POINT_ALIASES.get(key.lower())
        if point is None:
            raise CfngenError(
                f"unknown invocation point {key!r}",
                f"choose from {','.join(INVOCATION_POINTS)}",
            )
        chosen.add(point)
    if not chosen:
        raise CfngenError("no invocation point given", f"choose from {','.join(INVOCATION_POINTS)}")
    return tuple(p for p in INVOCATION_POINTS if p in chosen)


def parse_config_property(text: str) -> tuple[str, str]:
    """`Name` or `Name:type` -> (name, JSON type)."""
    name, _, kind = text.strip().partition(":")
    name, kind = name.strip(), (kind.strip() or "string").lower()
    if not _CONFIG_NAME.match(name):
        raise CfngenError(
            f"invalid setting name {name!r}",
            "a setting name is 1 to 64 letters or digits, not starting with CloudFormation",
        )
    if kind not in CONFIG_TYPES:
        raise CfngenError(
            f"setting {name}: unknown type {kind!r}", f"use one of {', '.join(CONFIG_TYPES)}"
        )
    return name, kind


def parse_config_properties(value: str | Sequence[Any]) -> tuple[tuple[str, str], ...]:
    if isinstance(value, str):
        items: list[Any] = [] if value.strip().lower() in ("", "none") else value.split(",")
    else:
        items = list(value)
    out: dict[str, str] = {}
    for item in items:
        if isinstance(item, (tuple, list)) and len(item) == 2:
            name, kind = parse_config_property(f"{item[0]}:{item[1]}")
        else:
            name, kind = parse_config_property(str(item))
        if name.lower() in {n.lower() for n in out}:
            raise CfngenError(f"setting {name} is given twice", "name each setting once")
        out[name] = kind
    return tuple(out.items())


# --------------------------------------------------------------------------- the answers

#: The answer copier records as the project's artifact type.
ARTIFACT_TYPE = "HOOK"


@dataclass(frozen=True)
class Answers:
    #: The folder under templates/ that renders these answers.
    template: ClassVar[str] = "hook"

    type_name: TypeName
    package_name: str
    runtime: str
    example: bool = False
    targets: tuple[str, ...] = DEFAULT_TARGETS
    invocation_points: tuple[str, ...] = INVOCATION_POINTS
    config_properties: tuple[tuple[str, str], ...] = ()
    artifact_type: str = ARTIFACT_TYPE
    #: The CI workflow to add: github, gitlab or none.
    ci: str = "github"

    @property
    def title(self) -> str:
        return str(self.type_name)

    def copier_data(self) -> dict[str, Any]:
        return {
            "artifact_type": self.artifact_type,
            "example": self.example,
            "type_name": str(self.type_name),
            "package_name": self.package_name,
            "runtime": self.runtime,
            **copier_data(self.targets, self.invocation_points, self.config_properties),
            "ci": self.ci,
        }

    def summary(self) -> list[tuple[str, str]]:
        settings = ", ".join(f"{n}:{t}" for n, t in self.config_properties) or "none"
        return [
            ("artifact type", self.artifact_type),
            ("type name", str(self.type_name)),
            ("package", f"src/{self.package_name}"),
            ("runtime", self.runtime),
            ("start from", "the working S3 example" if self.example else "the starter rule"),
            ("targets", ", ".join(self.targets)),
            ("invocation points", ", ".join(self.invocation_points)),
            ("type configuration", settings),
            ("CI", self.ci),
        ]

    def details(self) -> list[str]:
        return [self.runtime]

    def notes(self) -> list[str]:
        notes = target_notes(self.targets)
        official = "_".join(part.lower() for part in str(self.type_name).split("::"))
        if self.package_name != official:
            notes.append(
                f"the official `cfn submit` looks for the handlers in src/{official}/, not "
                f"src/{self.package_name}/, so it cannot package this project"
            )
        return notes

    def next_steps(self, stubbed: Sequence[str]) -> list[str]:
        return ["python -m pip install -r requirements-dev.txt", "python -m pytest", "cfngen test"]


def _questions() -> tuple[Question, ...]:
    def target_problem(text: str) -> str | None:
        try:
            parse_targets(text)
        except CfngenError as error:
            return error.message
        return None

    def config_problem(text: str) -> str | None:
        try:
            parse_config_properties(text)
        except CfngenError as error:
            return error.message
        return None

    return (
        example_question(
            "Start from the working example (S3 buckets must be encrypted and versioned)?",
            "start from cfngen's working example: for a resource type an SSM parameter, "
            "for a hook S3 buckets that must be encrypted and versioned; both pass `cfngen test`",
        ),
        type_name_question("Organization::Service::Hook", EXAMPLE_TYPE_NAME, EXAMPLE_TYPE_NAME),
        package_name_question(),
        runtime_question(),
        Question(
            "targets",
            "Target (a resource type, a wildcard, STACK or CHANGE_SET):",
            "text",
            parse_targets,
            default=lambda _a: DEFAULT_TARGETS,
            # Offered as completions as the name is typed.
            choices=lambda _a: [
                (t, t) for t in (*_targets.SPECIAL_TARGETS, *_targets.bundled_types())
            ],
            problem=target_problem,
            flags=("--target",),
            metavar="NAME",
            repeatable=True,
            help="hooks: a target the hook checks (repeatable): a resource type such as "
            "AWS::S3::Bucket, a wildcard such as 'AWS::S3::*', STACK or CHANGE_SET "
            "(default: AWS::S3::Bucket)",
        ),
        Question(
            "invocation_points",
            "Invocation points:",
            "checkbox",
            parse_invocation_points,
            default=lambda _a: INVOCATION_POINTS,
            choices=lambda _a: [(p, p) for p in INVOCATION_POINTS],
            flags=("--invocation-points",),
            metavar="LIST",
            help="hooks: comma-separated from preCreate,preUpdate,preDelete (default: all)",
        ),
        Question(
            "config_properties",
            "Type configuration setting (Name:type; empty for none):",
            "text",
            parse_config_properties,
            default=lambda _a: (),
            problem=config_problem,
            flags=("--config-property",),
            metavar="NAME[:TYPE]",
            repeatable=True,
            help="hooks: a type configuration setting (repeatable); TYPE is string (default), "
            "integer, number or boolean",
        ),
        ci_question(),
    )


def example_conflicts(given: Mapping[str, Any]) -> None:
    """Refuse answers the example cannot honour: it is one fixed hook."""
    if not given.get("example"):
        return
    for key, fixed in EXAMPLE_FIXED.items():
        if key in given and tuple(given[key]) != tuple(fixed):
            raise CfngenError(
                f"the example is made with {key}={_shown(fixed)}, not {key}={_shown(given[key])}",
                "drop that answer, or drop --example to start from the starter rule",
            )


def _shown(value: Any) -> str:
    return ",".join(":".join(v) if isinstance(v, tuple) else str(v) for v in value) or "none"


class HookInit:
    template = Answers.template

    @functools.cached_property
    def questions(self) -> tuple[Question, ...]:
        return _questions()

    def fold(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The example fixes its targets, points and settings: they are not asked."""
        if not given.get("example"):
            return dict(given)
        example_conflicts(given)
        return {**EXAMPLE_FIXED, **given}

    def resolve(self, given: Mapping[str, Any]) -> Answers:
        if "type_name" not in given and not given.get("example"):
            raise CfngenError(
                "--no-input needs the type name",
                "pass --type-name Organization::Service::Hook (or --example for the working "
                "example)",
            )
        values = self.fold(given)
        for question in self.questions:
            if question.key not in values:
                default = question.default(values)
                if default is not None:
                    values[question.key] = default
        return Answers(
            type_name=values["type_name"],
            package_name=values["package_name"],
            runtime=values["runtime"],
            example=bool(values.get("example")),
            targets=tuple(values["targets"]),
            invocation_points=tuple(values["invocation_points"]),
            config_properties=tuple((str(n), str(t)) for n, t in values["config_properties"]),
            ci=values["ci"],
        )


INIT = HookInit()
