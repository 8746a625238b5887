"""The wizard's questions for a hook (`cfngen init`, choice "hook"), checked as they are typed
with the rules the flags use (`_answers`). Target names complete from the resource types cfngen
knows, plus STACK and CHANGE_SET."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cfngen._kinds.hook import _answers, _targets

if TYPE_CHECKING:
    from cfngen._init._answers import Answers


def _check(parse: Any) -> Any:
    from cfngen._errors import CfngenError

    def validate(text: str) -> bool | str:
        try:
            parse(text)
        except CfngenError as error:
            return error.message
        return True

    return validate


def ask_hook(given: Mapping[str, Any]) -> Answers:
    """Ask what `given` leaves open and return the complete answers."""
    import questionary
    from questionary import Choice

    from cfngen._init import _answers as common
    from cfngen._runtimes import DEFAULT_RUNTIME, RUNTIMES
    from cfngen._typename import python_package_name

    values = dict(given)
    if "example" not in values:
        values["example"] = questionary.confirm(
            "Start from the working example (S3 buckets must be encrypted and versioned)?",
            default=False,
        ).unsafe_ask()
    if values["example"]:
        common.example_conflicts(values)
        values = {**_answers.EXAMPLE_FIXED, **values}
    if "type_name" not in values:
        raw = questionary.text(
            "Type name (Organization::Service::Hook):",
            default=_answers.EXAMPLE_TYPE_NAME if values["example"] else "",
            validate=lambda text: common.type_name_error(text.strip()) or True,
        ).unsafe_ask()
        values["type_name"] = common.check_type_name(raw.strip())
    if "package_name" not in values:
        raw = questionary.text(
            "Python package name:",
            default=python_package_name(values["type_name"]),
            validate=lambda text: common.package_name_error(text.strip()) or True,
        ).unsafe_ask()
        values["package_name"] = common.check_package_name(raw.strip())
    if "runtime" not in values:
        values["runtime"] = questionary.select(
            "Lambda runtime:",
            choices=[r.name for r in RUNTIMES if r.status == "supported"],
            default=DEFAULT_RUNTIME.name,
        ).unsafe_ask()
    if "targets" not in values:
        values["targets"] = _ask_targets()
    if "invocation_points" not in values:
        values["invocation_points"] = _answers.parse_invocation_points(
            questionary.checkbox(
                "Invocation points:",
                choices=[Choice(p, value=p, checked=True) for p in _answers.INVOCATION_POINTS],
                validate=lambda chosen: bool(chosen) or "choose at least one",
            ).unsafe_ask()
        )
    if "config_properties" not in values:
        raw = questionary.text(
            "Type configuration settings (Name:type, comma-separated; empty for none):",
            validate=_check(_answers.parse_config_properties),
        ).unsafe_ask()
        values["config_properties"] = _answers.parse_config_properties(raw)
    return common.resolve(values)


def _ask_targets() -> tuple[str, ...]:
    """One target per prompt, completed from the known types, until an empty answer."""
    import questionary

    words = [*_targets.SPECIAL_TARGETS, *_targets.bundled_types()]
    chosen: list[str] = []
    while True:
        question = "Target (a resource type, a wildcard, STACK or CHANGE_SET):"
        if chosen:
            question = "Another target (empty when done):"
        raw = questionary.autocomplete(
            question,
            choices=words,
            default="" if chosen else "AWS::S3::Bucket",
            validate=lambda text: (
                (not text.strip() and bool(chosen)) or _check(_answers.parse_targets)(text)
            ),
        ).unsafe_ask()
        if not raw.strip():
            return tuple(chosen)
        for name in _answers.parse_targets(raw):
            if name not in chosen:
                chosen.append(name)


def summary_rows(answers: Answers) -> list[tuple[str, str]]:
    settings = ", ".join(f"{n}:{t}" for n, t in answers.config_properties) or "none"
    return [
        ("artifact type", "HOOK"),
        ("type name", str(answers.type_name)),
        ("package", f"src/{answers.package_name}"),
        ("runtime", answers.runtime),
        ("start from", "the working S3 example" if answers.example else "the starter rule"),
        ("targets", ", ".join(answers.targets)),
        ("invocation points", ", ".join(answers.invocation_points)),
        ("type configuration", settings),
    ]
