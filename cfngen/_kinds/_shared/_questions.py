"""init's questions that several kinds ask, made once: each kind passes what differs (its type
name's form and example, its example's prompt), so a copy can no longer drift (the hook's copy
of the type name question said Organization::Service::Resource, the module's too)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cfngen._init._answers import (
    check_package_name,
    check_runtime,
    check_type_name,
    package_name_error,
    parse_bool,
    type_name_error,
    type_name_from_folder,
)
from cfngen._kind._init_spec import Question
from cfngen._languages._python_runtimes import DEFAULT_RUNTIME, RUNTIMES
from cfngen._typename import TypeName, python_package_name


def _stripped(check: Callable[[str], Any]) -> Callable[[Any], Any]:
    return lambda value: check(str(value).strip())


def example_question(prompt: str, help: str) -> Question:
    """`--example`: start from the kind's working example."""
    return Question(
        "example",
        prompt,
        "confirm",
        lambda value: parse_bool("example", value),
        default=lambda _a: False,
        flags=("--example",),
        negatable=False,
        help=help,
    )


def type_name_question(
    form: str,
    shown: str,
    working_example: str | None,
    *,
    check: Callable[[str], Any] = check_type_name,
    problem: Callable[[str], str | None] = type_name_error,
    propose: Callable[[Mapping[str, Any], str], Any] | None = None,
) -> Question:
    """`-t/--type-name`, asked as `form` (Organization::Service::Hook), `shown` as an example
    in --help; `--example` makes `working_example` (the type name of the kind's working
    example) the default."""

    def default(answers: Mapping[str, Any]) -> Any:
        if working_example is not None and answers.get("example"):
            return TypeName(working_example)
        return None

    def from_folder(answers: Mapping[str, Any], folder: str) -> Any:
        return None if answers.get("example") else type_name_from_folder(folder)

    return Question(
        "type_name",
        f"Type name ({form}):",
        "text",
        _stripped(check),
        default=default,
        problem=problem,
        flags=("-t", "--type-name"),
        help=f"{form}, e.g. {shown}",
        propose=propose or from_folder,
    )


def package_name_question() -> Question:
    """`--package-name`: the Python package under src/, from the type name by default."""
    return Question(
        "package_name",
        "Python package name:",
        "text",
        _stripped(check_package_name),
        default=lambda a: python_package_name(a["type_name"]) if a.get("type_name") else None,
        problem=package_name_error,
        flags=("--package-name",),
        help="the Python package under src/ (default: from the type name)",
    )


def runtime_question() -> Question:
    """`--runtime`: a supported Lambda runtime, the newest by default."""
    return Question(
        "runtime",
        "Lambda runtime:",
        "select",
        _stripped(check_runtime),
        default=lambda _a: DEFAULT_RUNTIME.name,
        choices=lambda _a: [(r.name, r.name) for r in RUNTIMES if r.status == "supported"],
        flags=("--runtime",),
        help="the Lambda runtime, e.g. python3.12 (default: the newest)",
    )
