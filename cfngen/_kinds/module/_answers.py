"""The answers `cfngen init --artifact-type module` needs: the type name (ending in ::MODULE),
the fragment's format, and optionally a template to start from (`--from-template FILE`,
`--drop-forbidden`). `copier_data` turns them into the data of templates/module/copier.yml.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from cfngen._errors import CfngenError
from cfngen._init._answers import parse_bool, type_name_from_folder
from cfngen._kind._init_spec import Question
from cfngen._kinds._shared._questions import (
    type_name_question,
)
from cfngen._kinds.module._fragment import check_module_type_name, module_type_name_problem
from cfngen._typename import reserved_namespace

ARTIFACT_TYPE = "MODULE"
FORMATS = ("yaml", "json")


def type_name_error(value: str) -> str | None:
    problem = module_type_name_problem(value)
    if problem is not None:
        return problem
    reserved = reserved_namespace(value.split("::", maxsplit=1)[0])
    if reserved is not None:
        return f"the {reserved} namespace is reserved by AWS; use your organization's name"
    return None


def check_type_name(value: str) -> str:
    problem = type_name_error(value)
    if problem is not None:
        raise CfngenError(
            f"invalid module type name {value!r}: {problem}", "e.g. Acme::Storage::Bucket::MODULE"
        )
    return check_module_type_name(value)


def check_format(value: str) -> str:
    lowered = str(value).strip().lower().lstrip(".")
    lowered = {"yml": "yaml"}.get(lowered, lowered)
    if lowered not in FORMATS:
        raise CfngenError(f"unknown fragment format {value!r}", "use yaml or json")
    return lowered


def check_template_file(value: str) -> str:
    path = Path(str(value).strip()).expanduser()
    if not path.is_file():
        raise CfngenError(f"--from-template {value}: no such file", "pass a template file")
    return str(path.absolute())


@dataclass(frozen=True)
class Answers:
    template: ClassVar[str] = "module"

    type_name: str
    fragment_format: str = "yaml"
    fragment_text: str = ""
    #: What --drop-forbidden removed from the template.
    removed: tuple[str, ...] = field(default=())
    source: str | None = None
    artifact_type: str = ARTIFACT_TYPE

    @property
    def title(self) -> str:
        return self.type_name

    def copier_data(self) -> dict[str, Any]:
        return {
            "artifact_type": self.artifact_type,
            "type_name": self.type_name,
            "fragment_format": self.fragment_format,
            "fragment_text": self.fragment_text,
        }

    def summary(self) -> list[tuple[str, str]]:
        return [
            ("artifact type", self.artifact_type),
            ("type name", self.type_name),
            ("fragment", f"fragments/module.{self.fragment_format}"),
            ("start from", self.source or "the starter fragment (an S3 bucket)"),
        ]

    def details(self) -> list[str]:
        return [f"fragments/module.{self.fragment_format}"]

    def notes(self) -> list[str]:
        return [f"from {self.source}: {what}" for what in self.removed]

    def next_steps(self, stubbed: Sequence[str]) -> list[str]:
        return ["cfngen validate", "cfngen generate", "cfngen test"]


def _questions() -> tuple[Question, ...]:
    return (
        type_name_question(
            "Organization::Service::Name::MODULE",
            "Acme::Storage::Bucket::MODULE",
            None,
            check=check_type_name,
            problem=type_name_error,
            propose=lambda _a, folder: type_name_from_folder(
                folder, suffix="::MODULE", problem=type_name_error
            ),
        ),
        Question(
            "fragment_format",
            "Fragment format:",
            "select",
            check_format,
            default=lambda _a: "yaml",
            choices=lambda _a: [("yaml", "YAML"), ("json", "JSON")],
            flags=("--fragment-format",),
            metavar="yaml|json",
            help="modules: the fragment's format (default: yaml)",
        ),
        Question(
            "from_template",
            "Start from an existing template (a file; empty for the starter fragment):",
            "text",
            lambda value: check_template_file(value) if str(value).strip() else "",
            default=lambda _a: "",
            flags=("--from-template",),
            metavar="FILE",
            help="modules: turn this CloudFormation template into the module's fragment "
            "(exit 1 listing what a module cannot contain)",
        ),
        Question(
            "drop_forbidden",
            "Remove what a module cannot contain?",
            "confirm",
            lambda value: parse_bool("drop_forbidden", value),
            default=lambda _a: False,
            when=lambda a: bool(a.get("from_template")),
            flags=("--drop-forbidden",),
            negatable=False,
            help="modules: with --from-template, remove what a module cannot contain and say "
            "what was removed",
        ),
    )


class ModuleInit:
    template = Answers.template

    @functools.cached_property
    def questions(self) -> tuple[Question, ...]:
        return _questions()

    def fold(self, given: Mapping[str, Any]) -> dict[str, Any]:
        return dict(given)

    def resolve(self, given: Mapping[str, Any]) -> Answers:
        if "type_name" not in given:
            raise CfngenError(
                "--no-input needs the type name",
                "pass --type-name Organization::Service::Name::MODULE",
            )
        fmt = given.get("fragment_format") or "yaml"
        source = given.get("from_template") or ""
        if given.get("drop_forbidden") and not source:
            raise CfngenError("--drop-forbidden needs --from-template FILE", "pass both")
        if not source:
            return Answers(type_name=given["type_name"], fragment_format=fmt)
        from cfngen._kinds.module._convert import convert

        converted = convert(Path(source), fmt=fmt, drop=bool(given.get("drop_forbidden")))
        return Answers(
            type_name=given["type_name"],
            fragment_format=fmt,
            fragment_text=converted.text,
            removed=tuple(converted.removed),
            source=Path(source).name,
        )


INIT = ModuleInit()
