"""What `cfngen init` asks for a resource type, and the answers its copier template renders.

The keys are the questions of templates/resource/copier.yml, so the answers file copier writes
holds exactly these. Checks shared with other kinds (type name, package, runtime) are in
cfngen/_init/_answers.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from cfngen._errors import CfngenError
from cfngen._init._answers import (
    ci_question,
    parse_bool,
)
from cfngen._kind._init_spec import Question
from cfngen._kinds._shared._questions import (
    example_question,
    package_name_question,
    runtime_question,
    type_name_question,
)
from cfngen._kinds.resource import HANDLERS
from cfngen._typename import TypeName

#: The answer copier records as the project's artifact type.
ARTIFACT_TYPE = "RESOURCE"
#: The type name of `cfngen init --example` when none is given: what the example is (an SSM
#: parameter), in a namespace AWS does not reserve, so it can be registered as it is.
EXAMPLE_TYPE_NAME = "Example::SSM::Parameter"
#: The answers the example is made for: its schema has tags and every handler, whatever these
#: say, so other values are refused rather than silently ignored. It may have a
#: typeConfiguration (the tier new parameters are created in), which its handlers read.
EXAMPLE_FIXED: dict[str, Any] = {
    "tagging": True,
    "handlers": HANDLERS,
}


@dataclass(frozen=True)
class Answers:
    #: The folder under templates/ that renders these answers.
    template: ClassVar[str] = "resource"

    type_name: TypeName
    package_name: str
    #: Lambda runtime id, e.g. python3.12.
    runtime: str
    artifact_type: str = ARTIFACT_TYPE
    #: Start from the working SSM example instead of stubs.
    example: bool = False
    tagging: bool = True
    type_configuration: bool = False
    handlers: tuple[str, ...] = HANDLERS
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
            "tagging": self.tagging,
            "type_configuration": self.type_configuration,
            "handlers": list(self.handlers),
            "ci": self.ci,
        }

    def summary(self) -> list[tuple[str, str]]:
        return [
            ("artifact type", self.artifact_type),
            ("type name", str(self.type_name)),
            ("package", f"src/{self.package_name}"),
            ("runtime", self.runtime),
            ("start from", "the working SSM example" if self.example else "stubs"),
            ("tags", "yes" if self.tagging else "no"),
            ("type configuration", "yes" if self.type_configuration else "no"),
            ("handlers", ", ".join(self.handlers) or "none"),
            ("CI", self.ci),
        ]

    def details(self) -> list[str]:
        return [self.runtime]

    def notes(self) -> list[str]:
        official = "_".join(part.lower() for part in self.type_name.parts)
        if self.package_name == official:
            return []
        # The official Python plugin derives the folder from the type name, not from
        # .rpdk-config's entrypoint (rpdk/python/codegen.py, _init_from_project).
        return [
            f"the official `cfn submit` looks for the handlers in src/{official}/, not "
            f"src/{self.package_name}/, so it cannot package this project"
        ]

    def next_steps(self, stubbed: Sequence[str]) -> list[str]:
        steps = ["python -m pip install -r requirements-dev.txt", "python -m pytest"]
        if not stubbed:
            return [*steps, "cfngen test"]
        return [
            *steps,
            "cfngen test  (says 'not implemented' until you implement the handlers in "
            f"{', '.join(stubbed)} and delete their `# STUB:` lines)",
        ]


# --------------------------------------------------------------------------- single answers


def parse_handlers(value: str | Sequence[str]) -> tuple[str, ...]:
    """`create,read` or a list -> handlers in contract order; `none` or '' -> none."""
    if isinstance(value, str):
        items = [] if value.strip().lower() in ("", "none") else value.split(",")
    else:
        items = list(value)
    chosen = {item.strip().lower() for item in items if item.strip()}
    unknown = sorted(chosen.difference(HANDLERS))
    if unknown:
        raise CfngenError(
            f"unknown handler(s): {', '.join(unknown)}",
            f"choose from {','.join(HANDLERS)}, or 'none'",
        )
    return tuple(h for h in HANDLERS if h in chosen)


def _check_bool(key: str) -> Any:
    return lambda value: parse_bool(key, value)


QUESTIONS: tuple[Question, ...] = (
    example_question(
        "Start from the working example (an SSM parameter whose handlers call AWS)?",
        "start from cfngen's working example instead of stubs: an SSM parameter whose "
        "handlers call AWS and pass every contract test (`cfngen test`) offline; the type "
        f"name defaults to {EXAMPLE_TYPE_NAME}",
    ),
    type_name_question(
        "Organization::Service::Resource", "Acme::Storage::Bucket", EXAMPLE_TYPE_NAME
    ),
    package_name_question(),
    runtime_question(),
    Question(
        "tagging",
        "Give the schema a Tags property (taggable)?",
        "confirm",
        _check_bool("tagging"),
        default=lambda _a: True,
        flags=("--tags",),
        help="give the starter schema a Tags property and declare it taggable (default: yes)",
    ),
    Question(
        "type_configuration",
        "Give the schema a typeConfiguration (account-level settings)?",
        "confirm",
        _check_bool("type_configuration"),
        default=lambda _a: False,
        flags=("--type-configuration",),
        help="give the starter schema a typeConfiguration (default: no)",
    ),
    Question(
        "handlers",
        "Handlers to scaffold:",
        "checkbox",
        parse_handlers,
        default=lambda _a: HANDLERS,
        choices=lambda _a: [(h, h) for h in HANDLERS],
        flags=("--handlers",),
        metavar="LIST",
        help=f"handlers to scaffold, comma-separated from {','.join(HANDLERS)}, or none "
        "(default: all)",
    ),
    ci_question(),
)


# --------------------------------------------------------------------------- all answers


def example_conflicts(given: Mapping[str, Any]) -> None:
    """Refuse answers the example cannot honour: it is one fixed resource type."""
    if not given.get("example"):
        return
    for key, fixed in EXAMPLE_FIXED.items():
        if key in given and given[key] != fixed:
            raise CfngenError(
                f"the example is made with {key}={_shown(fixed)}, not {key}={_shown(given[key])}",
                "drop that answer, or drop --example to start from stubs",
            )


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (tuple, list)):
        return ",".join(value) or "none"
    return str(value)


def defaults(given: Mapping[str, Any]) -> dict[str, Any]:
    """Default answers for what `given` (already checked) leaves open, in question order."""
    values = dict(given)
    out: dict[str, Any] = {}
    for question in QUESTIONS:
        if question.key in values:
            continue
        value = question.default(values)
        if value is not None:
            out[question.key] = values[question.key] = value
    return out


class ResourceInit:
    template = Answers.template
    questions = QUESTIONS

    def fold(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The example fixes the schema answers: they are not asked."""
        if not given.get("example"):
            return dict(given)
        example_conflicts(given)
        return {**EXAMPLE_FIXED, **given}

    def resolve(self, given: Mapping[str, Any]) -> Answers:
        return resolve(given)


def resolve(given: Mapping[str, Any]) -> Answers:
    """Complete answers from checked values plus defaults; the type name is required unless
    the project is the example."""
    if "type_name" not in given and not given.get("example"):
        raise CfngenError(
            "--no-input needs the type name",
            "pass --type-name Organization::Service::Resource (or --example for the working "
            "example)",
        )
    example_conflicts(given)
    folded = {**EXAMPLE_FIXED, **given} if given.get("example") else dict(given)
    values = {**folded, **defaults(folded)}
    return Answers(
        type_name=values["type_name"],
        package_name=values["package_name"],
        runtime=values["runtime"],
        example=values["example"],
        tagging=values["tagging"],
        type_configuration=values["type_configuration"],
        handlers=tuple(values["handlers"]),
        ci=values["ci"],
    )


INIT = ResourceInit()
