"""The answers `cfngen init --artifact-type lambda-hook` needs: the hook's type name (the
LambdaHook's Alias), the Lambda runtime, whether to start from the example, and the CI workflow.

The project is a SAM project without `.rpdk-config`: template.yaml with the function, the role
CloudFormation's hooks invoke it with and the LambdaHook, the function in src/app.py, and the
inputs `cfngen test` sends in lambda-hook-inputs.json.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from cfngen._errors import CfngenError
from cfngen._init._answers import ci_question, folder_words
from cfngen._kind import Question
from cfngen._kinds._shared._questions import example_question, runtime_question

DEFAULT_ALIAS = "MyCompany::Lambda::Hook"
#: `--example`: S3 buckets must keep versions.
EXAMPLE_ALIAS = "Example::S3::Versioning"


def alias_error(value: str) -> str | None:
    from cfngen._kinds.lambda_hook import KIND

    try:
        KIND.check_type_name(value.strip())
    except CfngenError as error:
        return error.hint
    return None


def check_alias(value: Any) -> str:
    text = str(value).strip()
    problem = alias_error(text)
    if problem is not None:
        raise CfngenError(f"{text!r} is not a Lambda hook type name", problem)
    return text


def alias_from_folder(folder: str) -> str | None:
    """`acme-bucket-rules` -> Acme::Bucket::Rules (None when that is no valid name)."""
    words = folder_words(folder)
    if len(words) < 3:
        return None
    value = "::".join([words[0], words[1], "".join(words[2:])])
    return value if alias_error(value) is None else None


@dataclass(frozen=True)
class Answers:
    template: ClassVar[str] = "lambda_hook"

    hook_alias: str
    runtime: str
    example: bool = False
    ci: str = "github"

    @property
    def title(self) -> str:
        return self.hook_alias

    def copier_data(self) -> dict[str, Any]:
        return {
            "artifact_type": "LAMBDA_HOOK",
            "example": self.example,
            "hook_alias": self.hook_alias,
            "runtime": self.runtime,
            "ci": self.ci,
        }

    def summary(self) -> list[tuple[str, str]]:
        return [
            ("artifact type", "Lambda hook (a SAM project, no .rpdk-config)"),
            ("hook type name", self.hook_alias),
            ("runtime", self.runtime),
            ("start from", "the S3 versioning example" if self.example else "a starter"),
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
            "Start from the working example (S3 buckets must keep versions)?",
            "start from cfngen's working example",
        ),
        Question(
            "hook_alias",
            "Hook type name (Org::Service::Hook):",
            "text",
            check_alias,
            default=lambda a: EXAMPLE_ALIAS if a.get("example") else DEFAULT_ALIAS,
            problem=alias_error,
            flags=("--hook-alias",),
            metavar="ORG::SERVICE::HOOK",
            help=f"Lambda hooks: the hook's type name, its Alias (default: {DEFAULT_ALIAS})",
            propose=lambda a, folder: None if a.get("example") else alias_from_folder(folder),
        ),
        runtime_question(),
        ci_question(),
    )


class LambdaHookInit:
    template = Answers.template

    @functools.cached_property
    def questions(self) -> tuple[Question, ...]:
        return _questions()

    def fold(self, given: Mapping[str, Any]) -> dict[str, Any]:
        return dict(given)

    def resolve(self, given: Mapping[str, Any]) -> Answers:
        values = self.fold(given)
        for question in self.questions:
            if question.key not in values:
                values[question.key] = question.default(values)
        return Answers(
            hook_alias=values["hook_alias"],
            runtime=values["runtime"],
            example=bool(values["example"]),
            ci=values["ci"],
        )


INIT = LambdaHookInit()
