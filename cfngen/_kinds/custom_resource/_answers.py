"""The answers `cfngen init --artifact-type custom-resource` needs: the `Custom::Name` type,
the Lambda runtime, whether to write a properties schema, and whether to start from the example.

The project is a SAM project without `.rpdk-config` (the official CloudFormation CLI must not
take it for one of its kinds): template.yaml with the function and the custom resource that
uses it, the handler in src/app.py, and cfngen's protocol helper beside it (derived).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from cfngen._errors import CfngenError
from cfngen._init._answers import ci_question, folder_words, parse_bool
from cfngen._kind._init_spec import Question
from cfngen._kinds._shared._questions import (
    example_question,
    runtime_question,
)
from cfngen._kinds.custom_resource import CUSTOM_TYPE_NAME

DEFAULT_TYPE = "Custom::Greeting"
#: `--example`: an SSM parameter managed by a custom resource.
EXAMPLE_TYPE = "Custom::Parameter"


def custom_type_error(value: str) -> str | None:
    text = value.strip()
    if not text.startswith("Custom::"):
        text = "Custom::" + text
    if not CUSTOM_TYPE_NAME.match(text):
        return "use Custom:: then 1 to 60 letters, digits, _, @ or -, e.g. Custom::Greeting"
    return None


def custom_type_from_folder(folder: str) -> str | None:
    """`acme-greeting` -> Custom::AcmeGreeting (None when that is no valid type)."""
    value = "Custom::" + "".join(folder_words(folder))
    return value if value != "Custom::" and custom_type_error(value) is None else None


def check_custom_type(value: Any) -> str:
    text = str(value).strip()
    problem = custom_type_error(text)
    if problem is not None:
        raise CfngenError(f"{text!r} is not a custom resource type", problem)
    return text if text.startswith("Custom::") else "Custom::" + text


@dataclass(frozen=True)
class Answers:
    template: ClassVar[str] = "custom_resource"

    custom_type: str
    runtime: str
    properties_schema: bool = True
    example: bool = False
    #: The CI workflow to add: github, gitlab or none.
    ci: str = "github"

    @property
    def title(self) -> str:
        return self.custom_type

    def copier_data(self) -> dict[str, Any]:
        return {
            "artifact_type": "CUSTOM_RESOURCE",
            "example": self.example,
            "custom_type": self.custom_type,
            "runtime": self.runtime,
            "properties_schema": self.properties_schema,
            "ci": self.ci,
        }

    def summary(self) -> list[tuple[str, str]]:
        return [
            ("artifact type", "custom resource (a SAM project, no .rpdk-config)"),
            ("type", self.custom_type),
            ("runtime", self.runtime),
            ("start from", "the working SSM parameter example" if self.example else "a starter"),
            ("properties schema", "properties-schema.json" if self.properties_schema else "none"),
            ("CI", self.ci),
        ]

    def notes(self) -> list[str]:
        return []

    def details(self) -> list[str]:
        return [self.runtime]

    def next_steps(self, stubbed: Sequence[str]) -> list[str]:
        return ["cfngen validate", "cfngen test", "sam deploy --guided"]


def _questions() -> tuple[Question, ...]:
    return (
        example_question(
            "Start from the working example (an SSM parameter)?",
            "start from cfngen's working example",
        ),
        Question(
            "custom_type",
            "Custom resource type (Custom::Name):",
            "text",
            check_custom_type,
            default=lambda a: EXAMPLE_TYPE if a.get("example") else DEFAULT_TYPE,
            problem=custom_type_error,
            flags=("--custom-type",),
            metavar="Custom::NAME",
            help=f"custom resources: the resource type (default: {DEFAULT_TYPE})",
            propose=lambda a, folder: None if a.get("example") else custom_type_from_folder(folder),
        ),
        runtime_question(),
        Question(
            "properties_schema",
            "Describe the properties in a JSON schema (properties-schema.json)?",
            "confirm",
            lambda value: parse_bool("properties_schema", value),
            default=lambda _a: True,
            flags=("--properties-schema",),
            help="custom resources: write properties-schema.json, which `cfngen validate` "
            "checks the template against and `cfngen test` derives failing requests from "
            "(default: yes)",
        ),
        ci_question(),
    )


class CustomResourceInit:
    template = Answers.template

    @functools.cached_property
    def questions(self) -> tuple[Question, ...]:
        return _questions()

    def fold(self, given: Mapping[str, Any]) -> dict[str, Any]:
        if given.get("example") and given.get("properties_schema") is False:
            raise CfngenError(
                "the example comes with its properties schema",
                "drop --no-properties-schema, or drop --example",
            )
        return dict(given)

    def resolve(self, given: Mapping[str, Any]) -> Answers:
        values = self.fold(given)
        for question in self.questions:
            if question.key not in values:
                values[question.key] = question.default(values)
        return Answers(
            custom_type=values["custom_type"],
            runtime=values["runtime"],
            properties_schema=bool(values["properties_schema"]),
            example=bool(values["example"]),
            ci=values["ci"],
        )


INIT = CustomResourceInit()
