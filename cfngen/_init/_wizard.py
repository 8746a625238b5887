"""The `cfngen init` wizard: questionary prompts for whatever the flags left open.

It asks which kind to build, then the kind's questions in their order (cfngen/_kinds: each
`Question` says how to ask it), offering what the project folder's name proposes (a type name
from `acme-storage-bucket`). Each prompt checks its answer as it is typed, with the same rules
the flags use. Ctrl-C, and Ctrl-D (the end of input), raise KeyboardInterrupt before anything
is written: the command ends with exit 130, as for any interrupt.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from cfngen._kind import Kind
from cfngen._kind._init_spec import Answers, Question


def _validator(problem: Callable[[str], str | None] | None) -> Any:
    if problem is None:
        return None

    def validate(text: str) -> bool | str:
        found = problem(text.strip())
        return True if found is None else str(found)

    return validate


@contextlib.contextmanager
def _end_of_input_interrupts() -> Iterator[None]:
    """EOFError (Ctrl-D, see _answer, or a closed stdin) means the user left."""
    try:
        yield
    except EOFError:
        raise KeyboardInterrupt from None


def _answer(question: Any) -> Any:
    """Ask a questionary question; Ctrl-D leaves the wizard in every kind of prompt (prompt
    toolkit binds it in text prompts only, and only while the text is empty)."""
    from prompt_toolkit.key_binding import KeyBindings, merge_key_bindings

    leave = KeyBindings()

    @leave.add("c-d", eager=True)
    def _leave(event: Any) -> None:
        event.app.exit(exception=EOFError(), style="class:aborting")

    app = question.application
    app.key_bindings = merge_key_bindings([app.key_bindings or KeyBindings(), leave])
    return question.unsafe_ask()


def ask_kind(kinds: Sequence[Kind]) -> Kind:
    """Which kind to build (the first is the default)."""
    import questionary
    from questionary import Choice

    with _end_of_input_interrupts():
        chosen = _answer(
            questionary.select(
                "What do you want to build?",
                choices=[Choice(kind.label, value=kind.name) for kind in kinds],
                default=kinds[0].name,
            )
        )
    return next(kind for kind in kinds if kind.name == chosen)


def ask(kind: Kind, given: Mapping[str, Any], dest: Path) -> Answers | None:
    """Prompt for every answer of `kind` not in `given`, show a summary, and return the
    answers, or None when the user declines at the summary."""
    with _end_of_input_interrupts():
        return _ask(kind, given, dest)


def _ask(kind: Kind, given: Mapping[str, Any], dest: Path) -> Answers | None:
    import questionary

    spec = kind.init
    assert spec is not None
    folder = Path(os.path.abspath(dest)).name
    values = spec.fold(given)
    for question in spec.questions:
        if question.key in values or not question.when(values):
            continue
        values[question.key] = question.check(_prompt(question, values, folder))
        values = spec.fold(values)
    answers = spec.resolve(values)
    questionary.print(summary(answers, dest))
    if not _answer(questionary.confirm("Create this project?", default=True)):
        return None
    return answers


def _prompt(question: Question, values: Mapping[str, Any], folder: str) -> Any:
    import questionary
    from questionary import Choice

    proposed = question.propose(values, folder) if question.propose is not None else None
    default = question.default(values) if proposed is None else proposed
    choices = list(question.choices(values)) if question.choices else []
    if question.style == "confirm":
        return _answer(questionary.confirm(question.prompt, default=bool(default)))
    if question.style == "select":
        return _answer(
            questionary.select(
                question.prompt,
                choices=[Choice(label, value=value) for value, label in choices],
                default=default,
            )
        )
    if question.style == "checkbox":
        chosen = set(default or ())
        return _answer(
            questionary.checkbox(
                question.prompt,
                choices=[
                    Choice(label, value=value, checked=value in chosen) for value, label in choices
                ],
            )
        )
    if question.repeatable:
        return _ask_repeatedly(question, choices, default)
    raw = _answer(
        questionary.text(
            question.prompt,
            default="" if default is None else str(default),
            validate=_validator(question.problem),
        )
    )
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
            raw = _answer(
                questionary.autocomplete(
                    prompt, choices=[str(value) for value, _ in choices], **options
                )
            )
        else:
            raw = _answer(questionary.text(prompt, **options))
        if not raw.strip():
            return items
        items.append(raw.strip())


def summary(answers: Answers, dest: Path) -> str:
    rows = [("folder", str(dest)), *answers.summary()]
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"  {label.ljust(width)}  {value}" for label, value in rows)
