"""The `cfngen init` wizard: questionary prompts for whatever the flags left open.

It asks which kind to build, then the kind's questions in their order (cfngen/_kinds: each
`Question` says how to ask it). Each prompt checks its answer as it is typed, with the same rules
the flags use. Ctrl-C raises KeyboardInterrupt before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from cfngen._kinds import Answers, Kind, Question


def _validator(problem: Callable[[str], str | None] | None) -> Any:
    if problem is None:
        return None

    def validate(text: str) -> bool | str:
        found = problem(text.strip())
        return True if found is None else str(found)

    return validate


def ask_kind(kinds: Sequence[Kind]) -> Kind:
    """Which kind to build (the first is the default)."""
    import questionary
    from questionary import Choice

    chosen = questionary.select(
        "What do you want to build?",
        choices=[Choice(kind.label, value=kind.name) for kind in kinds],
        default=kinds[0].name,
    ).unsafe_ask()
    return next(kind for kind in kinds if kind.name == chosen)


def ask(kind: Kind, given: Mapping[str, Any], dest: Path) -> Answers | None:
    """Prompt for every answer of `kind` not in `given`, show a summary, and return the
    answers, or None when the user declines at the summary."""
    import questionary

    spec = kind.init
    assert spec is not None
    values = spec.fold(given)
    for question in spec.questions:
        if question.key in values or not question.when(values):
            continue
        values[question.key] = question.check(_prompt(question, values))
        values = spec.fold(values)
    answers = spec.resolve(values)
    questionary.print(summary(answers, dest))
    if not questionary.confirm("Create this project?", default=True).unsafe_ask():
        return None
    return answers


def _prompt(question: Question, values: Mapping[str, Any]) -> Any:
    import questionary
    from questionary import Choice

    default = question.default(values)
    choices = list(question.choices(values)) if question.choices else []
    if question.style == "confirm":
        return questionary.confirm(question.prompt, default=bool(default)).unsafe_ask()
    if question.style == "select":
        return questionary.select(
            question.prompt,
            choices=[Choice(label, value=value) for value, label in choices],
            default=default,
        ).unsafe_ask()
    if question.style == "checkbox":
        chosen = set(default or ())
        return questionary.checkbox(
            question.prompt,
            choices=[
                Choice(label, value=value, checked=value in chosen) for value, label in choices
            ],
        ).unsafe_ask()
    if question.repeatable:
        return _ask_repeatedly(question, choices, default)
    raw = questionary.text(
        question.prompt,
        default="" if default is None else str(default),
        validate=_validator(question.problem),
    ).unsafe_ask()
    return raw.strip()


def _ask_repeatedly(question: Question, choices: list[tuple[Any, str]], default: Any) -> Any:
    """One item per prompt (completed from the choices, when there are some) until an empty
    answer; the first prompt offers the default's first item."""
    import questionary

    first = next(iter(default), "") if isinstance(default, (list, tuple)) else ""
    items: list[str] = []
    check = _validator(question.problem)
    while True:
        prompt = question.prompt if not items else "Another (empty when done):"

        def validate(text: str) -> bool | str:
            if not text.strip():
                return True
            return check(text) if check is not None else True

        options: dict[str, Any] = {"default": "" if items else str(first), "validate": validate}
        if choices:
            raw = questionary.autocomplete(
                prompt, choices=[str(value) for value, _ in choices], **options
            ).unsafe_ask()
        else:
            raw = questionary.text(prompt, **options).unsafe_ask()
        if not raw.strip():
            return items
        items.append(raw.strip())


def summary(answers: Answers, dest: Path) -> str:
    rows = [("folder", str(dest)), *answers.summary()]
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"  {label.ljust(width)}  {value}" for label, value in rows)
